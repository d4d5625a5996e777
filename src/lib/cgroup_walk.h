/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A bounded walk of a cgroup v2 tree (or any directory tree): every
 * directory below the one given, parents before children, each opened once.
 * The cgroup names (cgroup_names.c) and the USE sampler's CPU quotas
 * (use_sampler.c) both walk it.
 */
#ifndef THREADTOP_CGROUP_WALK_H
#define THREADTOP_CGROUP_WALK_H

#include <stdbool.h>
#include <sys/types.h>

#define CGROUP_WALK_PATH 1024 /* longer relative paths are left out, with what is below */

/*
 * Called for each directory: dirfd is the directory (open for the call
 * only), rel its path from the walk's start ("/a/b"), ino its inode number
 * (a cgroup's id). Returns false to end the whole walk.
 */
typedef bool (*cgroup_visit_fn)(void *ctx, int dirfd, const char *rel, ino_t ino);

/*
 * Visits the directories below dirfd, at most max_depth levels down
 * (1 = its children only). rel is dirfd's own path ("" for the root).
 * Returns false when a visit ended the walk.
 */
bool cgroup_walk(int dirfd, const char *rel, int max_depth, cgroup_visit_fn visit, void *ctx);

#endif /* THREADTOP_CGROUP_WALK_H */
