// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-process maps shared by their users (see maps_cache.h): one read of
 * /proc/PID/maps per process and per re-read, whoever asks first.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "maps_cache.h"
#include "u64map.h"
#include "util.h"

struct process_maps {
	struct maps_cache *cache;
	uint32_t pid;
	unsigned holders;	/* bit per user */
	struct proc_maps *maps; /* NULL when unreadable */
	bool gone;		/* the last read found the process exited (see maps_cache.h) */
	uint64_t generation;
	uint64_t read_ns;
	/* The executable (/proc/PID/exe) when the maps were read; 0, 0 when
	 * unreadable. Another one since means the process exec'd: its maps
	 * are read again at once, whatever the re-read interval. */
	uint64_t exe_dev, exe_ino;
	uint64_t images; /* reads that found another executable than the read before */
	void **slots[MAPS_CACHE_MAX_USERS]; /* per user, per maps entry; allocated on first use */
};

struct maps_cache {
	char *proc_root;
	uint64_t reread_ns;
	unsigned nr_users;
	struct u64map *procs; /* pid -> struct process_maps */
	uint64_t reads;
};

struct maps_cache *maps_cache__new(const struct maps_cache_opts *opts)
{
	struct maps_cache *c = xcalloc(1, sizeof(*c));

	c->proc_root = xstrdup(opts && opts->proc_root ? opts->proc_root : "/proc");
	c->reread_ns = opts && opts->reread_ns ? opts->reread_ns : MAPS_CACHE_REREAD_NS;
	c->procs = u64map__new();
	return c;
}

static void clear_slots(struct process_maps *pm)
{
	for (unsigned i = 0; i < MAPS_CACHE_MAX_USERS; i++) {
		free(pm->slots[i]);
		pm->slots[i] = NULL;
	}
}

static void process_maps_free(void *value)
{
	struct process_maps *pm = value;

	clear_slots(pm);
	proc_maps__free(pm->maps);
	free(pm);
}

void maps_cache__free(struct maps_cache *c)
{
	if (!c)
		return;
	u64map__free_all(c->procs, process_maps_free);
	free(c->proc_root);
	free(c);
}

int maps_cache__add_user(struct maps_cache *c)
{
	if (c->nr_users >= MAPS_CACHE_MAX_USERS)
		return -ENOSPC;
	return (int)c->nr_users++;
}

uint64_t maps_cache__reread_ns(const struct maps_cache *c)
{
	return c->reread_ns;
}

const char *maps_cache__proc_root(const struct maps_cache *c)
{
	return c->proc_root;
}

size_t maps_cache__count(const struct maps_cache *c)
{
	return u64map__count(c->procs);
}

uint64_t maps_cache__reads(const struct maps_cache *c)
{
	return c->reads;
}

/* The device and inode of the process's executable; 0, 0 when it is gone or unreadable. */
static void exe_id(const struct process_maps *pm, uint64_t *ret_dev, uint64_t *ret_ino)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%u/exe", pm->cache->proc_root, pm->pid);
	if (stat(path, &st)) {
		*ret_dev = *ret_ino = 0;
		return;
	}
	*ret_dev = (uint64_t)st.st_dev;
	*ret_ino = (uint64_t)st.st_ino;
}

/*
 * A new generation: what users derived from the previous one is cleared.
 * Except when the process has exited since the last read: what it mapped
 * then is what its stacks still to be named hold, so those maps stay.
 */
static void read_maps(struct process_maps *pm)
{
	struct proc_maps *maps;
	uint64_t dev, ino;
	bool gone;

	exe_id(pm, &dev, &ino); /* before the maps: an exec between them costs a re-read */
	maps = proc_maps__read(pm->cache->proc_root, pm->pid);
	/* No /proc/PID, or a zombie's empty maps: a live process maps its executable. */
	gone = maps ? !proc_maps__count(maps) : errno == ENOENT || errno == ESRCH;
	pm->read_ns = monotonic_ns();
	pm->cache->reads++;
	pm->gone = gone;
	if (gone && proc_maps__count(pm->maps)) {
		proc_maps__free(maps);
		return;
	}
	clear_slots(pm);
	proc_maps__free(pm->maps);
	pm->maps = maps;
	if (pm->generation && (dev != pm->exe_dev || ino != pm->exe_ino))
		pm->images++;
	pm->exe_dev = dev;
	pm->exe_ino = ino;
	pm->generation++;
}

struct process_maps *maps_cache__hold(struct maps_cache *c, uint32_t pid, unsigned user)
{
	struct process_maps *pm = u64map__get(c->procs, pid);

	if (!pm) {
		pm = xcalloc(1, sizeof(*pm));
		pm->cache = c;
		pm->pid = pid;
		read_maps(pm);
		u64map__put(c->procs, pid, pm);
	}
	pm->holders |= 1u << user;
	return pm;
}

void maps_cache__release(struct process_maps *pm, unsigned user)
{
	if (!pm || user >= MAPS_CACHE_MAX_USERS)
		return;
	pm->holders &= ~(1u << user);
	free(pm->slots[user]);
	pm->slots[user] = NULL;
	if (!pm->holders)
		process_maps_free(u64map__remove(pm->cache->procs, pm->pid));
}

uint32_t process_maps__pid(const struct process_maps *pm)
{
	return pm->pid;
}

const struct proc_maps *process_maps__maps(const struct process_maps *pm)
{
	return pm->maps;
}

uint64_t process_maps__generation(const struct process_maps *pm)
{
	return pm->generation;
}

bool process_maps__gone(const struct process_maps *pm)
{
	return pm->gone;
}

uint64_t process_maps__images(const struct process_maps *pm)
{
	return pm->images;
}

/* Whether the process runs another executable than when its maps were read. */
static bool exec_since_read(const struct process_maps *pm)
{
	uint64_t dev, ino;

	exe_id(pm, &dev, &ino);
	return (dev || ino) && (dev != pm->exe_dev || ino != pm->exe_ino);
}

const struct proc_map *process_maps__find(struct process_maps *pm, uint64_t addr)
{
	const struct proc_map *m = proc_maps__find(pm->maps, addr);

	/* Mapped since the last read (dlopen, JIT), or read before an exec
	 * (a "threadtop run" child met before it ran its command)? */
	if (!m && (monotonic_ns() - pm->read_ns >= pm->cache->reread_ns || exec_since_read(pm))) {
		read_maps(pm);
		m = proc_maps__find(pm->maps, addr);
	}
	return m;
}

bool process_maps__refresh(struct process_maps *pm)
{
	if (monotonic_ns() - pm->read_ns < pm->cache->reread_ns)
		return false;
	read_maps(pm);
	return true;
}

void process_maps__reread(struct process_maps *pm)
{
	read_maps(pm);
}

void **process_maps__slot(struct process_maps *pm, unsigned user, const struct proc_map *m)
{
	size_t idx;

	if (!pm->maps || user >= MAPS_CACHE_MAX_USERS)
		return NULL;
	idx = (size_t)(m - proc_maps__get(pm->maps, 0));
	if (idx >= proc_maps__count(pm->maps))
		return NULL;
	if (!pm->slots[user])
		pm->slots[user] = xcalloc(proc_maps__count(pm->maps) + 1, sizeof(void *));
	return &pm->slots[user][idx];
}
