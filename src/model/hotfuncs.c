// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hot functions (see hotfuncs.h): one pass over the stack pairs, every
 * frame (and every function inlined at it) mapped to its function through
 * a cache per (process, address), so the namer is asked once per address.
 * A function's total counts a pair once: the entry remembers the last pair
 * that counted it (recursion puts a function on a stack more than once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotfuncs.h"
#include "lj_model.h"
#include "threadtop/frame_namer.h"
#include "u64map.h"
#include "util.h"

#define NO_FUNC UINT32_MAX
/* Frames to size the address table for at once (it grows past them). */
#define HOTFUNCS_TABLE_HINT (1u << 20)

/* A slot of the address table: (process, address) -> its functions. */
struct hotfuncs_slot {
	uint64_t key;	/* 0 = free */
	uint32_t first; /* n == 1: the function's index (NO_FUNC: none); else where in inl */
	uint8_t n;	/* functions: the frame's own, then those inlined there */
};

/* What counting touches per frame, apart from the entries' names. */
struct hotfuncs_count {
	uint64_t self, total;
	uint32_t stamp;	 /* the last pair that counted it in total */
	uint32_t pid;	 /* the last process counted (pids: the entry's) */
	bool total_seen; /* pid is set */
};

static uint64_t mix(uint64_t h)
{
	/* splitmix64 finalizer */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/* FNV-1a of a string, folded into h, the terminator included. */
static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h * 0x100000001b3ull;
}

static const char *keep(struct hotfuncs *h, const char *s)
{
	char *c = xstrdup(s);

	xgrow((void **)&h->strings, &h->cap_strings, h->nr_strings + 1, sizeof(*h->strings));
	h->strings[h->nr_strings++] = c;
	return c;
}

static struct hotfunc *new_func(struct hotfuncs *h)
{
	struct hotfunc *f;

	size_t cap = h->cap;

	xgrow((void **)&h->store, &h->cap, h->nr + 1, sizeof(*h->store));
	xgrow((void **)&h->counts, &cap, h->nr + 1, sizeof(*h->counts));
	f = &h->store[h->nr];
	memset(f, 0, sizeof(*f));
	h->counts[h->nr] = (struct hotfuncs_count){.stamp = UINT32_MAX};
	return f;
}

/* The entry of function (name, module, kernel), made when new; NO_FUNC when full. */
static uint32_t func_of(struct hotfuncs *h, const char *name, const char *module, bool kernel,
			uint64_t ip, uint32_t pid, uint8_t level)
{
	uint64_t id =
		str_hash(str_hash(kernel ? 0x6b65726eull : 0xcbf29ce484222325ull, name), module);
	size_t idx;
	struct hotfunc *f;

	id = id ? id : 1;
	idx = (size_t)(uintptr_t)u64map__get(h->by_id, id);
	if (idx)
		return (uint32_t)(idx - 1);
	if (h->nr >= HOTFUNCS_MAX)
		return NO_FUNC;
	f = new_func(h);
	f->name = keep(h, name);
	f->module = module ? keep(h, module) : NULL;
	f->kernel = kernel;
	f->ip = ip;
	f->pid = kernel ? 0 : pid;
	f->level = level;
	u64map__put(h->by_id, id, (void *)(uintptr_t)(h->nr + 1));
	return (uint32_t)h->nr++;
}

/* Slots of the address table: a power of two, at most half full. */
static void table_grow(struct hotfuncs *h, size_t want)
{
	size_t cap = h->cap_slots ? h->cap_slots : 1024;
	struct hotfuncs_slot *old = h->slots;
	size_t old_cap = h->cap_slots;

	while (cap < 2 * want)
		cap *= 2;
	if (cap <= h->cap_slots)
		return;
	h->slots = xcalloc(cap, sizeof(*h->slots));
	h->cap_slots = cap;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		for (j = old[i].key & (cap - 1); h->slots[j].key; j = (j + 1) & (cap - 1))
			;
		h->slots[j] = old[i];
	}
	free(old);
}

/* The function indexes of slot a: its own, or its run in h->inl. */
static const uint32_t *slot_funcs(const struct hotfuncs *h, const struct hotfuncs_slot *a)
{
	return a->n == 1 ? &a->first : &h->inl[a->first];
}

/* The functions at ip (a frame of process pid, or of the kernel), named once. */
static const struct hotfuncs_slot *addr_of(struct hotfuncs *h, const struct model *m, uint32_t pid,
					   uint64_t ip, bool kernel)
{
	uint64_t key = mix(ip ^ mix(kernel ? 0x51ed27ull : (uint64_t)pid + 1)) | 1;
	struct hotfuncs_slot *a;
	struct frame_name fn;
	const char *module;
	uint32_t funcs[HOTFUNCS_INLINE_MAX];
	size_t j;
	unsigned n;

	for (j = key & (h->cap_slots - 1); h->slots[j].key; j = (j + 1) & (h->cap_slots - 1))
		if (h->slots[j].key == key)
			return &h->slots[j];
	if (2 * (h->nr_slots + 1) > h->cap_slots) {
		table_grow(h, h->nr_slots + 1);
		for (j = key & (h->cap_slots - 1); h->slots[j].key;
		     j = (j + 1) & (h->cap_slots - 1))
			;
	}
	a = &h->slots[j];
	h->nr_slots++;
	a->key = key;
	a->n = 1;
	a->first = NO_FUNC;
	if (!h->namer && !lj_frame_is_lua(ip)) {
		/* Frames are addresses (a replay without names): no name to ask for. */
		if (h->nr < HOTFUNCS_MAX) {
			struct hotfunc *f = new_func(h);

			f->module = kernel ? "[kernel]" : NULL;
			f->kernel = kernel;
			f->ip = ip;
			f->pid = kernel ? 0 : pid;
			a->first = (uint32_t)h->nr++;
		}
		return a;
	}
	model__frame_name(m, kernel ? 0 : pid, ip, kernel, &fn);
	n = fn.inlined ? fn.nr_inlined : 0;
	if (n > HOTFUNCS_INLINE_MAX - 1)
		n = HOTFUNCS_INLINE_MAX - 1;
	/* fn's strings live until the next naming: take what the levels need first. */
	module = fn.module;
	funcs[0] = func_of(h, fn.name, module, kernel, ip, pid, 0);
	for (unsigned l = 1; l <= n; l++)
		funcs[l] = func_of(h, fn.inlined[l - 1], module, kernel, ip, pid, (uint8_t)l);
	/* func_of never names, but the table may not move under a: it does not grow here. */
	a->n = (uint8_t)(n + 1);
	if (!n) {
		a->first = funcs[0];
		return a;
	}
	xgrow((void **)&h->inl, &h->cap_inl, h->nr_inl + n + 1, sizeof(*h->inl));
	a->first = (uint32_t)h->nr_inl;
	memcpy(&h->inl[h->nr_inl], funcs, (n + 1) * sizeof(*funcs));
	h->nr_inl += n + 1;
	return a;
}

static void add_pid(struct hotfunc *f, uint32_t pid, const char *comm)
{
	if (!f->nr_pids) { /* comm: a model_stack_count's, TT_COMM_LEN long */
		memcpy(f->comm, comm, sizeof(f->comm));
		f->comm[sizeof(f->comm) - 1] = '\0';
	}
	for (unsigned i = 0; i < f->nr_pids; i++)
		if (f->pids[i] == pid)
			return;
	if (f->nr_pids < HOTFUNC_PIDS)
		f->pids[f->nr_pids++] = pid;
	else
		f->more_pids = true;
}

/* Counts frame (ip, kernel) of pair `stamp` in its functions' totals; the leaf also in self. */
static void count_frame(struct hotfuncs *h, const struct model *m,
			const struct model_stack_count *c, uint32_t pid, uint64_t ip, bool kernel,
			bool leaf, uint32_t stamp)
{
	uint64_t samples = c->samples;
	const struct hotfuncs_slot *a = addr_of(h, m, pid, ip, kernel);
	const uint32_t *funcs = slot_funcs(h, a);

	for (unsigned l = 0; l < a->n; l++) {
		struct hotfuncs_count *k;

		if (funcs[l] == NO_FUNC) {
			if (leaf && l + 1 == a->n)
				h->dropped += samples;
			continue;
		}
		k = &h->counts[funcs[l]];
		if (leaf && l + 1 == a->n)
			k->self += samples; /* the innermost function at the leaf */
		if (k->stamp == stamp)
			continue; /* already on this stack: recursion */
		k->stamp = stamp;
		k->total += samples;
		if (k->pid != c->pid || !k->total_seen) {
			k->pid = c->pid;
			k->total_seen = true;
			add_pid(&h->store[funcs[l]], c->pid, c->comm);
		}
	}
}

/* Whether kernel frame ip is threadtop's own tracing (cut off kernel leaves). */
static bool is_tracer(const struct model *m, uint64_t ip)
{
	struct frame_name fn;

	model__frame_name(m, 0, ip, true, &fn);
	return model__frame_is_tracer(fn.name);
}

static void add_pair(struct hotfuncs *h, const struct model *m, const struct model_stack_count *c,
		     uint32_t stamp)
{
	const struct tt_stack *us = model__stack(m, c->ustack_id);
	const struct tt_stack *ks = model__stack(m, c->kstack_id);
	unsigned un = us ? us->nr : 0, kn = ks ? ks->nr : 0, k0 = 0;
	bool namer = h->namer;
	uint32_t upid = us && us->pid ? us->pid : c->pid;

	h->total += c->samples;
	/* As the call tree does: no frames of our own tracer at the kernel leaf. */
	while (namer && kn > 1 && is_tracer(m, ks->ips[k0])) {
		k0++;
		kn--;
	}
	for (unsigned i = 0; i < un; i++)
		count_frame(h, m, c, upid, us->ips[i], us->flags & TT_STACK_KERNEL, !kn && !i,
			    stamp);
	for (unsigned i = 0; i < kn; i++)
		count_frame(h, m, c, c->pid, ks->ips[k0 + i], ks->flags & TT_STACK_KERNEL, !i,
			    stamp);
}

static struct hotfuncs *make(const struct model *m)
{
	struct hotfuncs *h = xcalloc(1, sizeof(*h));

	h->namer = model__frame_namer(m) != NULL;
	table_grow(h, 512);
	h->by_id = u64map__new();
	return h;
}

/* The caches are of no use once built: a set is read, sorted and freed. */
static struct hotfuncs *done(struct hotfuncs *h)
{
	u64map__free(h->by_id); /* its indexes do not survive the sort */
	h->by_id = NULL;
	free(h->slots);
	h->slots = NULL;
	h->nr_slots = h->cap_slots = 0;
	free(h->inl);
	h->inl = NULL;
	for (size_t i = 0; i < h->nr; i++) {
		h->store[i].self = h->counts[i].self;
		h->store[i].total = h->counts[i].total;
	}
	free(h->counts);
	h->counts = NULL;
	h->funcs = xmalloc((h->nr ? h->nr : 1) * sizeof(*h->funcs));
	for (size_t i = 0; i < h->nr; i++)
		h->funcs[i] = &h->store[i];
	hotfuncs__sort_first(h, HOTFUNCS_BY_SELF, false, HOTFUNCS_SORT_FIRST);
	return h;
}

struct hotfuncs *hotfuncs__new(const struct model *m, const struct model_stack_count *pairs,
			       size_t nr)
{
	struct hotfuncs *h = make(m);
	size_t frames = 0;

	/* The table at its size at once: at most one slot per frame. */
	for (size_t i = 0; i < nr && frames < HOTFUNCS_TABLE_HINT; i++) {
		const struct tt_stack *us = model__stack(m, pairs[i].ustack_id);
		const struct tt_stack *ks = model__stack(m, pairs[i].kstack_id);

		frames += (us ? us->nr : 0) + (ks ? ks->nr : 0);
	}
	table_grow(h, frames < HOTFUNCS_TABLE_HINT ? frames : HOTFUNCS_TABLE_HINT);
	for (size_t i = 0; i < nr; i++)
		add_pair(h, m, &pairs[i], (uint32_t)i);
	return done(h);
}

struct hotfuncs *hotfuncs__from_profile(const struct model *m, const struct profile *p,
					enum profile_kind kind, uint32_t state_mask)
{
	struct hotfuncs *h = make(m);

	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];
		struct model_stack_count c = {
			.kstack_id = s->kstack_id,
			.ustack_id = s->ustack_id,
			.pid = s->pid,
			.samples = kind == PROFILE_OFFCPU ? s->ns : s->count,
		};
		const char *comm = s->pcomm ? s->pcomm : s->comm;

		if (s->kind != kind)
			continue;
		if (kind == PROFILE_THREADS && state_mask &&
		    (s->state >= 32 || !(state_mask & (1u << s->state))))
			continue;
		if (comm)
			snprintf(c.comm, sizeof(c.comm), "%s", comm);
		add_pair(h, m, &c, (uint32_t)i);
	}
	return done(h);
}

static int str_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int u64_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static _Thread_local enum hotfuncs_sort sort_by;

static int u64_asc(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* By name (frames named by address: by address), then module and kernel bit. */
static int name_cmp(const struct hotfunc *a, const struct hotfunc *b)
{
	int c;

	if (!a->name || !b->name)
		c = a->name || b->name ? (a->name ? 1 : -1) : u64_asc(a->ip, b->ip);
	else
		c = strcmp(a->name, b->name);
	if (!c)
		c = str_cmp(a->module, b->module);
	if (!c)
		c = (int)a->kernel - (int)b->kernel;
	return c;
}

static int cmp_func(const void *pa, const void *pb)
{
	const struct hotfunc *a = *(const struct hotfunc *const *)pa;
	const struct hotfunc *b = *(const struct hotfunc *const *)pb;
	int c = 0;

	switch (sort_by) {
	case HOTFUNCS_BY_TOTAL:
		c = u64_desc(a->total, b->total);
		if (!c)
			c = u64_desc(a->self, b->self);
		break;
	case HOTFUNCS_BY_NAME:
		break;
	case HOTFUNCS_BY_MODULE:
		c = str_cmp(a->module, b->module);
		if (!c)
			c = u64_desc(a->self, b->self);
		break;
	default:
		c = u64_desc(a->self, b->self);
		if (!c)
			c = u64_desc(a->total, b->total);
		break;
	}
	return c ? c : name_cmp(a, b);
}

static _Thread_local bool sort_reverse;

static int cmp_order(const void *pa, const void *pb)
{
	int c = cmp_func(pa, pb);

	return sort_reverse ? -c : c;
}

static void swap(struct hotfunc **v, size_t i, size_t j)
{
	struct hotfunc *tmp = v[i];

	v[i] = v[j];
	v[j] = tmp;
}

/*
 * Puts the k entries of v[0, n) that come first in the order at v[0, k),
 * in any order (quickselect, median-of-three pivots): linear on average,
 * where sorting 100,000 functions to show the top 50 is not.
 */
static void select_first(struct hotfunc **v, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* the boundary k lies in [lo, hi) */

	while (hi - lo > 16 && k > lo && k < hi) {
		size_t mid = lo + (hi - lo) / 2, store = lo;

		/* median of three to v[hi - 1] as the pivot */
		if (cmp_order(&v[mid], &v[lo]) < 0)
			swap(v, mid, lo);
		if (cmp_order(&v[hi - 1], &v[lo]) < 0)
			swap(v, hi - 1, lo);
		if (cmp_order(&v[mid], &v[hi - 1]) < 0)
			swap(v, mid, hi - 1);
		for (size_t i = lo; i < hi - 1; i++)
			if (cmp_order(&v[i], &v[hi - 1]) < 0)
				swap(v, i, store++);
		swap(v, store, hi - 1);
		if (store == k)
			return;
		if (store < k)
			lo = store + 1;
		else
			hi = store;
	}
	if (k > lo && k < hi)
		qsort(&v[lo], hi - lo, sizeof(*v), cmp_order);
}

void hotfuncs__sort(struct hotfuncs *h, enum hotfuncs_sort by, bool reverse)
{
	hotfuncs__sort_first(h, by, reverse, SIZE_MAX);
}

void hotfuncs__sort_first(struct hotfuncs *h, enum hotfuncs_sort by, bool reverse, size_t k)
{
	sort_by = by < HOTFUNCS_SORT_MAX ? by : HOTFUNCS_BY_SELF;
	sort_reverse = reverse;
	h->sort_by_ = sort_by;
	h->reverse_ = reverse;
	if (k < h->nr) {
		select_first(h->funcs, h->nr, k);
		qsort(h->funcs, k, sizeof(*h->funcs), cmp_order);
		h->sorted = k;
		return;
	}
	qsort(h->funcs, h->nr, sizeof(*h->funcs), cmp_order);
	h->sorted = h->nr;
}

size_t hotfuncs__sort_more(struct hotfuncs *h, size_t want)
{
	if (want <= h->sorted || h->sorted >= h->nr)
		return h->sorted;
	/* The rest, sorted after the first ones (all of them come after those). */
	sort_by = h->sort_by_;
	sort_reverse = h->reverse_;
	qsort(h->funcs + h->sorted, h->nr - h->sorted, sizeof(*h->funcs), cmp_order);
	h->sorted = h->nr;
	return h->sorted;
}

const struct hotfunc *hotfuncs__find(const struct hotfuncs *h, const char *name, const char *module)
{
	for (size_t i = 0; i < h->nr; i++) {
		const struct hotfunc *f = h->funcs[i];
		char buf[HOTFUNC_NAME_LEN];

		if (!strcmp(hotfunc_name(f, buf), name) &&
		    (!module || (f->module && !strcmp(f->module, module))))
			return f;
	}
	return NULL;
}

const char *hotfunc_name(const struct hotfunc *f, char *buf)
{
	if (f->name)
		return f->name;
	snprintf(buf, HOTFUNC_NAME_LEN, "0x%llx", (unsigned long long)f->ip);
	return buf;
}

void hotfuncs__free(struct hotfuncs *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nr_strings; i++)
		free(h->strings[i]);
	free(h->strings);
	u64map__free(h->by_id);
	free(h->slots);
	free(h->inl);
	free(h->counts);
	free(h->funcs);
	free(h->store);
	free(h);
}
