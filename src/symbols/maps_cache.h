/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mappings of each process, read from <proc_root>/PID/maps once and
 * shared by every module that needs them (the symbolizer and the DWARF
 * unwinder): a new process costs one read, not one per module. When an
 * address is in no mapping (dlopen, JIT code since), the maps are read again
 * at most once per reread interval (at once after an exec), and that read
 * serves every user. A process that has exited keeps the maps last read
 * while it lived: its stacks still arriving are named with them.
 *
 * Each read has a generation number; each user gets one opaque slot per
 * mapping for what it derives from it (a symbol file, an unwind table),
 * cleared when the maps are read again. A process's maps live while some
 * user holds them. Library code: no logging, no threads.
 */
#ifndef THREADTOP_MAPS_CACHE_H
#define THREADTOP_MAPS_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "proc_maps.h"

#define MAPS_CACHE_MAX_USERS 4
#define MAPS_CACHE_REREAD_NS 1000000000ull /* default: at most one re-read per second */

struct maps_cache;
struct process_maps;

struct maps_cache_opts {
	const char *proc_root; /* NULL = "/proc" */
	uint64_t reread_ns;    /* least time between two reads of a process; 0 = default */
};

/* opts may be NULL (the defaults). */
struct maps_cache *maps_cache__new(const struct maps_cache_opts *opts);
/* Frees every process's maps, held or not: free the users first. */
void maps_cache__free(struct maps_cache *c);

/* A user id (0 <= id < MAPS_CACHE_MAX_USERS) for holds and slots, or -ENOSPC. */
int maps_cache__add_user(struct maps_cache *c);
/* The least time between two reads of a process (maps_cache_opts). */
uint64_t maps_cache__reread_ns(const struct maps_cache *c);
/* The proc root it reads; lives as long as c. */
const char *maps_cache__proc_root(const struct maps_cache *c);
/* Maps files read so far (by every user). */
uint64_t maps_cache__reads(const struct maps_cache *c);
/* Processes whose maps are held now. */
size_t maps_cache__count(const struct maps_cache *c);

/*
 * The maps of process pid, held by user: read now unless another user holds
 * them already. Never NULL; an unreadable process (gone, not allowed) has no
 * maps (process_maps__maps is NULL). Lives until user releases it (or c goes).
 */
struct process_maps *maps_cache__hold(struct maps_cache *c, uint32_t pid, unsigned user);
/* Ends user's hold: its slots go, and the maps go with the last holder. NULL-safe. */
void maps_cache__release(struct process_maps *pm, unsigned user);

uint32_t process_maps__pid(const struct process_maps *pm);
/* The last read that found the process alive, or NULL when none did. Lives
 * until the next read. */
const struct proc_maps *process_maps__maps(const struct process_maps *pm);
/* Counts the reads of this process: a user holding state derived from an
 * older generation (entries, caches by address) drops it. */
uint64_t process_maps__generation(const struct process_maps *pm);
/*
 * Whether the last read found the process exited: no /proc/PID (ENOENT,
 * ESRCH), or empty maps (a zombie: its memory is gone).
 */
bool process_maps__gone(const struct process_maps *pm);
/*
 * Counts the reads that found the process running another executable than
 * the read before (it exec'd): a user holding state derived by address
 * from an older image (names of addresses) drops it.
 */
uint64_t process_maps__images(const struct process_maps *pm);
/*
 * The mapping containing addr. When there is none and the last read is older
 * than the reread interval, or the process has exec'd since (one stat of
 * /proc/PID/exe), reads the maps again (a new generation, every slot
 * cleared) and looks once more. NULL when nothing maps addr.
 */
const struct proc_map *process_maps__find(struct process_maps *pm, uint64_t addr);
/*
 * Reads the maps again unless the last read is younger than the reread
 * interval: for a user that must see what was mapped since without an
 * address to miss (a library that may have been dlopen'd). Whether it read.
 */
bool process_maps__refresh(struct process_maps *pm);
/*
 * Reads the maps again whatever the age of the last read: for a user that
 * knows they changed since (once per process, not per sample).
 */
void process_maps__reread(struct process_maps *pm);
/*
 * User's slot for mapping m (an entry of the current read): NULL until the
 * user stores a pointer there; cleared by the next read. The cache never
 * frees what a slot points to. NULL when there are no maps.
 */
void **process_maps__slot(struct process_maps *pm, unsigned user, const struct proc_map *m);

#endif /* THREADTOP_MAPS_CACHE_H */
