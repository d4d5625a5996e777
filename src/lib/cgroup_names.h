/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names for cgroup v2 ids, the ones the BPF source puts on every sample
 * (the cgroup directory's inode number): the container, pod or systemd
 * unit that the runtime's cgroup naming shows, so a cluster's profiles and
 * metrics say "pod 6f1c.../containerd 3f2a1b4c5d6e" rather than an inode.
 * Bounded: the tree is walked to a fixed depth and entry count, and walked
 * again on an unknown id at most once per second.
 */
#ifndef THREADTOP_CGROUP_NAMES_H
#define THREADTOP_CGROUP_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define CGROUP_NAME_LEN 96 /* "pod/<36-char uid>/containerd/<12 hex>" fits */

struct cgroup_names;

/* Over the cgroup v2 tree under sys_root ("/sys"). NULL with errno set. */
struct cgroup_names *cgroup_names__new(const char *sys_root);
void cgroup_names__free(struct cgroup_names *cn);

/*
 * The name of cgroup id (see cgroup_name_of_path) into buf (len bytes).
 * Returns 0, or -ENOENT when no cgroup of the tree has that id.
 */
int cgroup_names__name(struct cgroup_names *cn, uint64_t id, char *buf, size_t len);

/*
 * What the cgroup path ("/kubepods.slice/kubepods-burstable.slice/
 * kubepods-burstable-pod<uid>.slice/cri-containerd-<id>.scope") names:
 * "pod/<uid>/containerd/<first 12 hex of id>"; "docker/<12 hex>" for
 * docker-<id>.scope, likewise crio, podman (libpod) and containerd; the
 * cgroupfs driver's ".../pod<uid>/<id>" the same way; otherwise the last
 * component ("nginx.service", "session-3.scope"), "/" for the root.
 */
void cgroup_name_of_path(const char *path, char *buf, size_t len);

#endif /* THREADTOP_CGROUP_NAMES_H */
