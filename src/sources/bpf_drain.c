// SPDX-License-Identifier: GPL-2.0-only
/*
 * Deltas of BPF sum maps (see bpf_drain.h). Keys are remembered by a 64-bit
 * hash of their bytes with the bytes kept to tell collisions apart; a
 * colliding key simply starts again from zero.
 *
 * An entry leaves the map when its thread has exited, or when it has not
 * changed for IDLE_DRAINS drains: a live thread can block at ever new call
 * sites (coroutine stacks, recursion) and must not fill the map with the
 * ones it left. Entries are taken out with lookup-and-delete, so what the
 * kernel added since the walk read them is still handed over; a kernel add
 * racing with the delete itself (between its lookup and its add, a few
 * instructions) can be lost, and only for an entry idle that long.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpf_drain.h"
#include "hash.h"
#include "u64map.h"
#include "util.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's own, which bpf(2) may return */
#endif

#define MAX_KEY 64
#define MAX_VAL 4096
#define IDLE_DRAINS 16 /* unchanged this many drains: deleted though its thread lives */

struct bpf_drain {
	int map_fd;
	size_t key_size, val_size;
	struct u64map *prev; /* hash(key) -> struct entry */
	uint32_t generation;
	unsigned char *zero;
};

struct entry {
	uint32_t generation; /* the drain that last saw it in the map */
	uint32_t changed;    /* the drain that last saw its value change */
	/* key, then value at val_off: aligned, the callback reads u64 fields */
	_Alignas(8) unsigned char data[];
};

/* Where an entry's value starts: after the key, 8-byte aligned. */
static size_t val_off(const struct bpf_drain *d)
{
	return (d->key_size + 7) & ~(size_t)7;
}

struct bpf_drain *bpf_drain__new(int map_fd, size_t key_size, size_t val_size)
{
	struct bpf_drain *d;

	if (!key_size || key_size > MAX_KEY || !val_size || val_size > MAX_VAL) {
		errno = EINVAL;
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	d->map_fd = map_fd;
	d->key_size = key_size;
	d->val_size = val_size;
	d->prev = u64map__new();
	d->zero = xcalloc(1, val_size);
	return d;
}

void bpf_drain__free(struct bpf_drain *d)
{
	uint64_t h;
	void *e;
	size_t pos = 0;

	if (!d)
		return;
	while (u64map__next(d->prev, &pos, &h, &e))
		free(e);
	u64map__free(d->prev);
	free(d->zero);
	free(d);
}

static bool thread_gone(uint32_t pid, uint32_t tid)
{
	return syscall(SYS_tgkill, (pid_t)pid, (pid_t)tid, 0) < 0 && errno == ESRCH;
}

/*
 * Takes the entry at key out of the map; what the kernel added since the walk
 * read it (prev) is handed over first. Returns whether it was deleted.
 */
static bool take_out(struct bpf_drain *d, const void *key, const void *prev, void *val,
		     bpf_drain_fn fn, void *ctx)
{
	uint32_t pid, tid;

	if (bpf_map_lookup_and_delete_elem(d->map_fd, key, val) == 0) {
		if (memcmp(val, prev, d->val_size))
			fn(ctx, key, val, prev, &pid, &tid);
		return true;
	}
	/* Kernels before 5.14 cannot take a hash entry out: delete it. */
	return (errno == EINVAL || errno == ENOTSUPP || errno == EOPNOTSUPP) &&
	       bpf_map_delete_elem(d->map_fd, key) == 0;
}

int bpf_drain__run(struct bpf_drain *d, bpf_drain_fn fn, void *ctx)
{
	_Alignas(8) unsigned char key[MAX_KEY] = {0}, next[MAX_KEY];
	unsigned char *val = xmalloc(d->val_size);
	unsigned char *out = NULL;
	size_t nr_out = 0, cap_out = 0;
	bool first = true;
	int deleted = 0;
	uint64_t h;
	size_t pos = 0;
	void *p;

	d->generation++;
	while (bpf_map_get_next_key(d->map_fd, first ? NULL : key, next) == 0) {
		struct entry *e;
		const void *prev;
		uint32_t pid = 0, tid = 0;
		bool changed;

		first = false;
		memcpy(key, next, d->key_size);
		if (bpf_map_lookup_elem(d->map_fd, key, val) < 0)
			continue; /* deleted meanwhile */
		h = hash_bytes(HASH_INIT, key, d->key_size);
		e = u64map__get(d->prev, h);
		if (e && memcmp(e->data, key, d->key_size))
			e = NULL; /* a collision: this key starts from zero */
		prev = e ? e->data + val_off(d) : d->zero;
		changed = fn(ctx, key, val, prev, &pid, &tid);
		if (!e) {
			e = xmalloc(sizeof(*e) + val_off(d) + d->val_size);
			free(u64map__put(d->prev, h, e));
			e->changed = d->generation;
			memcpy(e->data, key, d->key_size);
			memcpy(e->data + val_off(d), val, d->val_size);
		}
		/*
		 * Unchanged, the previous value stays: the kernel adds a value's
		 * fields one by one while this reads them, so a read may catch a
		 * count before its time; that time goes with the next change
		 * rather than nowhere.
		 */
		if (changed)
			memcpy(e->data + val_off(d), val, d->val_size);
		e->generation = d->generation;
		if (changed)
			e->changed = d->generation;
		/* A dead thread's value is final now that it has been handed over; an idle one goes. */
		else if (pid &&
			 (d->generation - e->changed >= IDLE_DRAINS || thread_gone(pid, tid))) {
			xgrow((void **)&out, &cap_out, (nr_out + 1) * d->key_size, 1);
			memcpy(out + nr_out++ * d->key_size, key, d->key_size);
		}
	}
	/*
	 * Deleting while walking would restart the walk: delete afterwards. (A
	 * walk restarted by the kernel's deletions may list a key twice.)
	 */
	for (size_t i = 0; i < nr_out; i++) {
		const unsigned char *k = out + i * d->key_size;
		struct entry *e;

		h = hash_bytes(HASH_INIT, k, d->key_size);
		e = u64map__get(d->prev, h);
		if (!e || memcmp(e->data, k, d->key_size))
			continue;
		if (take_out(d, k, e->data + val_off(d), val, fn, ctx))
			deleted++;
		free(u64map__remove(d->prev, h));
	}
	/* Forget keys no longer in the map. */
	while (u64map__next(d->prev, &pos, &h, &p)) {
		if (((struct entry *)p)->generation != d->generation) {
			u64map__remove_at(d->prev, &pos);
			free(p);
		}
	}
	free(out);
	free(val);
	return deleted;
}
