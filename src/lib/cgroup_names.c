// SPDX-License-Identifier: GPL-2.0-only
/*
 * cgroup v2 ids to container, pod and unit names (see cgroup_names.h). On
 * 64-bit kernels since 5.5 a cgroup's id (kernfs node id, what
 * bpf_get_current_cgroup_id and task->cgroups->dfl_cgrp->kn->id give) is
 * its directory's inode number, so one walk of the tree reading d_ino maps
 * every id to its path, named once as it is found.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_names.h"
#include "cgroup_walk.h"
#include "u64map.h"
#include "util.h"

#define MAX_DEPTH 10
#define MAX_CGROUPS 8192
#define REWALK_NS NSEC_PER_SEC

struct cgroup_names {
	int root_fd;	      /* the cgroup v2 mount, -1 when there is none */
	struct u64map *names; /* id -> char[CGROUP_NAME_LEN] */
	uint64_t walked_ns;
};

static bool all_hex(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A runtime's scope "PREFIX-<hex>.scope" (or a bare 64-hex id): its short form. */
static bool container_of(const char *c, size_t n, char *out, size_t cap)
{
	static const struct {
		const char *prefix, *runtime;
	} scopes[] = {
		{"cri-containerd-", "containerd"},
		{"docker-", "docker"},
		{"crio-", "crio"},
		{"libpod-", "podman"},
	};

	if (n == 64 && all_hex(c, n)) {
		snprintf(out, cap, "container/%.12s", c);
		return true;
	}
	if (n < 6 || memcmp(c + n - 6, ".scope", 6))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(scopes); i++) {
		size_t k = strlen(scopes[i].prefix);

		if (n > k + 6 && !memcmp(c, scopes[i].prefix, k) && all_hex(c + k, n - k - 6)) {
			snprintf(out, cap, "%s/%.12s", scopes[i].runtime, c + k);
			return true;
		}
	}
	return false;
}

/* "kubepods-burstable-pod<uid>.slice" or "pod<uid>": the uid, '_' read as '-'. */
static bool pod_of(const char *c, size_t n, char *out, size_t cap)
{
	const char *p = NULL;
	size_t k = 0;

	for (size_t i = 0; i + 3 < n; i++)
		if (!memcmp(c + i, "pod", 3) && (i == 0 || c[i - 1] == '-'))
			p = c + i + 3;
	if (!p)
		return false;
	while (p + k < c + n && p[k] != '.')
		k++;
	if (k < 8 || k >= cap)
		return false;
	for (size_t i = 0; i < k; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f') || p[i] == '-' ||
		      p[i] == '_'))
			return false;
	for (size_t i = 0; i < k; i++)
		out[i] = p[i] == '_' ? '-' : p[i];
	out[k] = '\0';
	return true;
}

void cgroup_name_of_path(const char *path, char *buf, size_t len)
{
	char pod[64] = "", ctr[64] = "";
	const char *last = NULL, *c = path;
	size_t last_n = 0;

	while (*c) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n) {
			pod_of(c, n, pod, sizeof(pod));
			container_of(c, n, ctr, sizeof(ctr));
			last = c, last_n = n;
		}
		c += n + (e ? 1 : 0);
	}
	if (!strstr(path, "kube"))
		pod[0] = '\0'; /* a "pod" word outside Kubernetes' tree names no pod */
	if (*pod && *ctr)
		snprintf(buf, len, "pod/%s/%s", pod, ctr);
	else if (*pod)
		snprintf(buf, len, "pod/%s", pod);
	else if (*ctr)
		snprintf(buf, len, "%s", ctr);
	else if (last)
		snprintf(buf, len, "%.*s", (int)last_n, last);
	else
		snprintf(buf, len, "/");
}

static void put(struct cgroup_names *cn, uint64_t id, const char *path)
{
	char *name;

	if (u64map__get(cn->names, id) || u64map__count(cn->names) >= MAX_CGROUPS)
		return;
	name = xmalloc(CGROUP_NAME_LEN);
	cgroup_name_of_path(path, name, CGROUP_NAME_LEN);
	u64map__put(cn->names, id, name);
}

static bool visit(void *ctx, int dirfd, const char *rel, ino_t ino)
{
	struct cgroup_names *cn = ctx;

	(void)dirfd;
	put(cn, ino, rel);
	return u64map__count(cn->names) < MAX_CGROUPS;
}

static void walk_all(struct cgroup_names *cn)
{
	struct stat st;

	cn->walked_ns = monotonic_ns();
	if (cn->root_fd < 0)
		return;
	if (fstat(cn->root_fd, &st) == 0)
		put(cn, st.st_ino, "/");
	cgroup_walk(cn->root_fd, "", MAX_DEPTH, visit, cn);
}

struct cgroup_names *cgroup_names__new(const char *sys_root)
{
	static const char *const roots[] = {"fs/cgroup", "fs/cgroup/unified"};
	struct cgroup_names *cn = xcalloc(1, sizeof(*cn));
	int sys = open(sys_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cn->root_fd = -1;
	cn->names = u64map__new();
	for (size_t i = 0; i < ARRAY_SIZE(roots) && sys >= 0 && cn->root_fd < 0; i++) {
		char path[64];

		snprintf(path, sizeof(path), "%s/cgroup.controllers", roots[i]);
		if (faccessat(sys, path, F_OK, 0) == 0)
			cn->root_fd = openat(sys, roots[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (sys >= 0)
		close(sys);
	return cn;
}

void cgroup_names__free(struct cgroup_names *cn)
{
	if (!cn)
		return;
	u64map__free_all(cn->names, free);
	if (cn->root_fd >= 0)
		close(cn->root_fd);
	free(cn);
}

int cgroup_names__name(struct cgroup_names *cn, uint64_t id, char *buf, size_t len)
{
	const char *name = u64map__get(cn->names, id);

	if (!name && (!cn->walked_ns || monotonic_ns() - cn->walked_ns >= REWALK_NS)) {
		walk_all(cn); /* a cgroup made since the last walk (a new container) */
		name = u64map__get(cn->names, id);
	}
	if (!name)
		return -ENOENT;
	snprintf(buf, len, "%s", name);
	return 0;
}
