/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf-PID.map files, the symbol maps JIT compilers (V8/node --perf-basic-prof,
 * the JVM's perf-map-agent, LuaJIT with a perf hook, ...) write to /tmp: one
 * "START SIZE NAME" line per code blob, addresses in hex. Bounded: line length,
 * entry count and file size are capped; bad lines are skipped.
 */
#ifndef THREADTOP_PERFMAP_H
#define THREADTOP_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

#define PERFMAP_MAX_ENTRIES 4000000u

struct perfmap;

struct perfmap_sym {
	uint64_t start;
	uint64_t size;
	const char *name; /* owned by the perfmap */
};

/* Parses text (len bytes). NULL with errno set (ENOMEM). */
struct perfmap *perfmap__parse(const char *buf, size_t len);
/*
 * Reads the file at path when it is trusted as perf trusts it: a regular file
 * (no symlink followed) owned by owner_uid (the process's user) or root and
 * writable by no group or other user. NULL with errno set: ENOENT when there
 * is none, EPERM when someone else's, ELOOP for a symlink.
 */
struct perfmap *perfmap__read(const char *path, unsigned owner_uid);
void perfmap__free(struct perfmap *pm);

/* The entry covering addr; when entries overlap (a JIT reused the memory),
 * the one written last wins. NULL when none. Lives as long as pm. */
const struct perfmap_sym *perfmap__find(const struct perfmap *pm, uint64_t addr);
size_t perfmap__count(const struct perfmap *pm);

#endif /* THREADTOP_PERFMAP_H */
