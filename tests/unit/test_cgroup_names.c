// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for cgroup names: what Kubernetes (systemd and cgroupfs
 * drivers), docker, containerd, CRI-O, podman and systemd name their
 * cgroups, and the resolver over a fixture tree (a plain directory as
 * SYS/fs/cgroup, whose inode numbers stand for cgroup ids).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "cgroup_names.h"
#include <stdio.h>
#include <stdlib.h>

static char dir[64];

static const char *path_of(const char *name)
{
	static char buf[2][512];
	static int n;

	n ^= 1;
	snprintf(buf[n], sizeof(buf[n]), "%s/%s", dir, name);
	return buf[n];
}

#define ID64 "3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708"

static const char *name(const char *path)
{
	static char buf[CGROUP_NAME_LEN];

	cgroup_name_of_path(path, buf, sizeof(buf));
	return buf;
}

static void paths(void **state)
{
	assert_string_equal(name("/kubepods.slice/kubepods-burstable.slice/"
				 "kubepods-burstable-pod6f1c2d3e_4a5b_6c7d_8e9f_0a1b2c3d4e5f.slice/"
				 "cri-containerd-" ID64 ".scope"),
			    "pod/6f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f/containerd/3f2a1b4c5d6e");
	assert_string_equal(
		name("/kubepods/besteffort/pod6f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f/" ID64),
		"pod/6f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f/container/3f2a1b4c5d6e");
	assert_string_equal(name("/kubepods.slice/kubepods-pod6f1c2d3e_4a5b.slice"),
			    "pod/6f1c2d3e-4a5b");
	assert_string_equal(name("/system.slice/docker-" ID64 ".scope"), "docker/3f2a1b4c5d6e");
	assert_string_equal(name("/machine.slice/libpod-" ID64 ".scope"), "podman/3f2a1b4c5d6e");
	assert_string_equal(name("/kubepods.slice/crio-" ID64 ".scope"), "crio/3f2a1b4c5d6e");
	assert_string_equal(name("/system.slice/nginx.service"), "nginx.service");
	assert_string_equal(name("/user.slice/user-1000.slice/session-3.scope"), "session-3.scope");
	assert_string_equal(name("/"), "/");
	/* Not a pod outside Kubernetes' tree, not a container without a hex id. */
	assert_string_equal(name("/system.slice/podcast-deadbeef00.service"),
			    "podcast-deadbeef00.service");
	assert_string_equal(name("/system.slice/docker-notahexid.scope"), "docker-notahexid.scope");
}

static ino_t ino_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

static void resolver(void **state)
{
	char buf[CGROUP_NAME_LEN];
	struct cgroup_names *cn;
	FILE *f;

	assert_int_equal(mkdir(path_of("fs"), 0755), 0);
	assert_int_equal(mkdir(path_of("fs/cgroup"), 0755), 0);
	f = fopen(path_of("fs/cgroup/cgroup.controllers"), "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(mkdir(path_of("fs/cgroup/system.slice"), 0755), 0);
	assert_int_equal(mkdir(path_of("fs/cgroup/system.slice/docker-" ID64 ".scope"), 0755), 0);
	cn = cgroup_names__new(dir);
	assert_int_equal(cgroup_names__name(cn, ino_of(path_of("fs/cgroup")), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");
	assert_int_equal(
		cgroup_names__name(cn,
				   ino_of(path_of("fs/cgroup/system.slice/docker-" ID64 ".scope")),
				   buf, sizeof(buf)),
		0);
	assert_string_equal(buf, "docker/3f2a1b4c5d6e");
	assert_int_equal(
		cgroup_names__name(cn, ino_of(path_of("fs/cgroup/system.slice")), buf, sizeof(buf)),
		0);
	assert_string_equal(buf, "system.slice");
	/* Unknown: the tree was walked a moment ago, it is not walked again. */
	assert_int_equal(cgroup_names__name(cn, 12345678, buf, sizeof(buf)), -ENOENT);
	cgroup_names__free(cn);
	/* No cgroup v2 tree at all: nothing is known. */
	cn = cgroup_names__new("/nonexistent");
	assert_int_equal(cgroup_names__name(cn, 1, buf, sizeof(buf)), -ENOENT);
	cgroup_names__free(cn);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/tt_cgroups.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paths),
		cmocka_unit_test(resolver),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
