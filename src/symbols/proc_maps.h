/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parser for /proc/PID/maps: the address ranges of a process and the files
 * (device, inode, offset, path) behind them. Bounded and tolerant: malformed
 * lines are skipped and counted, entry count and path length are capped.
 * The parser takes text, so fixtures are plain strings; proc_maps__read
 * reads the file of a live process.
 */
#ifndef THREADTOP_PROC_MAPS_H
#define THREADTOP_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROC_MAPS_MAX_ENTRIES 262144u /* vm.max_map_count is 65530 by default */

/* Flags of struct proc_map. */
#define PROC_MAP_EXEC (1u << 0)
#define PROC_MAP_READ (1u << 1)
#define PROC_MAP_WRITE (1u << 2)
#define PROC_MAP_SHARED (1u << 3)
#define PROC_MAP_DELETED (1u << 4) /* path ended in " (deleted)" (removed from it) */
#define PROC_MAP_PSEUDO (1u << 5)  /* "[vdso]", "[heap]", "[stack]", "[anon:...]" */
#define PROC_MAP_ANON (1u << 6)	   /* no path at all */

struct proc_map {
	uint64_t start, end; /* [start, end) */
	uint64_t offset;     /* file offset of start */
	uint64_t dev;	     /* makedev(major, minor) */
	uint64_t inode;
	unsigned flags;	  /* PROC_MAP_* */
	const char *path; /* owned by the proc_maps; "" for anonymous mappings */
};

struct proc_maps;

/*
 * Parses maps text (len bytes). Returns NULL with errno set (ENOMEM only:
 * bad lines are skipped). Entries are kept sorted by start address.
 */
struct proc_maps *proc_maps__parse(const char *buf, size_t len);
/* Reads and parses <proc_root>/<pid>/maps (proc_root NULL = "/proc").
 * NULL with errno set (ENOENT/ESRCH: gone, EACCES: not allowed). */
struct proc_maps *proc_maps__read(const char *proc_root, uint32_t pid);
void proc_maps__free(struct proc_maps *maps);

/* The entry containing addr, or NULL. Lives as long as maps. */
const struct proc_map *proc_maps__find(const struct proc_maps *maps, uint64_t addr);
size_t proc_maps__count(const struct proc_maps *maps);
/* Entry i (0 <= i < count), by start address. */
const struct proc_map *proc_maps__get(const struct proc_maps *maps, size_t i);
/*
 * Opens the file behind mapping m of process pid read-only: via
 * <proc_root>/PID/map_files (deleted files, other mount namespaces), else
 * <proc_root>/PID/root + path when the inode matches, else /proc/PID/exe when
 * it is that file, else (the process has exited) path itself when it is still
 * the file mapped (device and inode). proc_root NULL = "/proc". Returns an
 * O_CLOEXEC fd the caller closes, or -ENOENT.
 */
int proc_map__open(const char *proc_root, uint32_t pid, const struct proc_map *m);
/*
 * Copies the memory of mapping m of process pid (the vdso: no file behind it)
 * from <proc_root>/PID/mem. Returns a buffer of m->end - m->start bytes the
 * caller frees, or NULL with errno set (EFBIG: larger than max; EIO: short).
 */
void *proc_map__copy_mem(const char *proc_root, uint32_t pid, const struct proc_map *m, size_t max);

/* Lines that could not be parsed. */
size_t proc_maps__bad_lines(const struct proc_maps *maps);

#endif /* THREADTOP_PROC_MAPS_H */
