// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hot functions (see hotfuncs.h): one pass over the stack pairs, each stack
 * taken as the functions on it (hotfuncs_cache.c derives them, once per
 * stack while the model's stacks and names hold), a function made an entry
 * of the set where the pairs first reach it. A set made once (no cache of
 * the caller's) walks the frames instead, each mapped to its functions
 * through the (process, address) table: deriving lists to keep would cost
 * it more than it saves. A function's total counts a
 * pair once: its state remembers the last pair that counted it (recursion
 * puts a function on a stack more than once, a kernel and a user stack too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotfuncs.h"
#include "hotfuncs_cache.h"
#include "util.h"

/* Bytes of the blocks the entries' names are copied to, at least. */
#define STRINGS_BLOCK 65536

/* A copy of s the set owns: 65,536 entries, a few blocks. */
static const char *keep(struct hotfuncs *h, const char *s)
{
	size_t len = strlen(s) + 1;
	char *c;

	if (len > h->block_left) {
		size_t size = len > STRINGS_BLOCK ? len : STRINGS_BLOCK;

		xgrow((void **)&h->strings, &h->cap_strings, h->nr_strings + 1,
		      sizeof(*h->strings));
		h->block_at = h->strings[h->nr_strings++] = xmalloc(size);
		h->block_left = size;
	}
	c = h->block_at;
	memcpy(c, s, len);
	h->block_at += len;
	h->block_left -= len;
	return c;
}

/* The set's copy of the cache's module name s: the one the previous entry took, mostly. */
static const char *keep_module(struct hotfuncs *h, const char *s)
{
	if (s != h->last_module) {
		h->last_module = s;
		h->last_module_copy = keep(h, s);
	}
	return h->last_module_copy;
}

/* The entry of cache function fn in h once counting has met it. */
static inline uint32_t out_met(const struct hotfuncs_cache *c, uint32_t fn)
{
	return c->met[fn / 64] & 1ull << (fn % 64) ? c->outs[fn] : HOTFUNCS_NO_FUNC;
}

/* The entry of cache function fn, not met yet, made (at o) unless the set is full. */
static __attribute__((noinline)) uint32_t new_out(struct hotfuncs *h, uint32_t fn,
						  const struct hotfuncs_origin *o)
{
	struct hotfuncs_cache *c = h->cache;
	const struct hotfuncs_fn *cf = &c->fns[fn];
	struct hotfunc *f;

	c->met[fn / 64] |= 1ull << (fn % 64);
	if (h->nr >= h->cap)
		xgrow((void **)&h->store, &h->cap, h->nr + 1, sizeof(*h->store));
	if (h->nr >= c->cap_counts) {
		xgrow((void **)&c->counts, &c->cap_counts, h->nr + 1, sizeof(*c->counts));
		h->counts = c->counts;
	}
	h->counts[h->nr] = (struct hotfuncs_count){.stamp = UINT32_MAX};
	f = &h->store[h->nr];
	*f = (struct hotfunc){
		.name = cf->name ? keep(h, cf->name) : NULL,
		.module = cf->module ? keep_module(h, cf->module) : NULL,
		.kernel = cf->kernel,
		.ip = o->ip,
		.pid = o->pid,
		.level = o->level,
	};
	c->outs[fn] = (uint32_t)h->nr;
	return (uint32_t)h->nr++;
}

/* The entry of cache function fn in h, made when the set first meets it (at o). */
static inline uint32_t out_of(struct hotfuncs *h, uint32_t fn, const struct hotfuncs_origin *o)
{
	const struct hotfuncs_cache *c = h->cache;

	if (c->met[fn / 64] & 1ull << (fn % 64))
		return c->outs[fn];
	if (h->nr >= HOTFUNCS_MAX)
		return HOTFUNCS_NO_FUNC; /* and stays so: not met, the set is full */
	return new_out(h, fn, o);
}

/* Adds the process of pair c to those of entry out (s its counts), first seen first. */
static void add_pid(struct hotfuncs *h, uint32_t out, struct hotfuncs_count *s,
		    const struct model_stack_count *c)
{
	struct hotfunc *f = &h->store[out];

	if (!s->nr_pids) { /* comm: a model_stack_count's, TT_COMM_LEN long */
		memcpy(f->comm, c->comm, sizeof(f->comm));
		f->comm[sizeof(f->comm) - 1] = '\0';
	}
	s->pid = c->pid;
	for (unsigned i = 0; i < s->nr_pids; i++)
		if (f->pids[i] == c->pid)
			return;
	if (s->nr_pids < HOTFUNC_PIDS)
		f->pids[s->nr_pids++] = c->pid;
	else
		s->more_pids = true;
}

/* Counts entry out in the total of pair `stamp` of c, once a pair (recursion). */
static inline void count_total(struct hotfuncs *h, uint32_t out, const struct model_stack_count *c,
			       uint32_t stamp)
{
	struct hotfuncs_count *s = &h->counts[out];

	if (s->stamp == stamp)
		return; /* already on this stack: recursion */
	s->stamp = stamp;
	s->total += c->samples;
	s->total_weight += model_stack_count_weight(c);
	/* The process of the last pair again, or as many as the entry can list. */
	if ((s->pid != c->pid || !s->nr_pids) && !s->more_pids)
		add_pid(h, out, s, c);
}

/* Counts pair c in the self of entry out (the innermost function at the leaf), or as dropped. */
static inline void count_self(struct hotfuncs *h, uint32_t out, const struct model_stack_count *c)
{
	if (out == HOTFUNCS_NO_FUNC) {
		h->dropped += c->samples;
		h->dropped_weight += model_stack_count_weight(c);
	} else {
		h->store[out].self += c->samples;
		h->store[out].self_weight += model_stack_count_weight(c);
	}
}

/* Functions of a list whose entries are found before any is counted. */
#define COUNT_AHEAD 32

/* Counts the functions of stack l of pair `stamp` in their totals; the leaf's also in self. */
static void count_list(struct hotfuncs *h, const struct hotfuncs_list *l,
		       const struct model_stack_count *c, bool leaf, uint32_t stamp)
{
	uint32_t outs[COUNT_AHEAD], out;

	for (uint32_t at = 0; at < l->n; at += COUNT_AHEAD) {
		uint32_t k = l->n - at < COUNT_AHEAD ? l->n - at : COUNT_AHEAD;

		/* The entries first, their counts fetched meanwhile: the misses overlap. */
		for (uint32_t i = 0; i < k; i++) {
			outs[i] = out_of(h, l->fns[at + i], &l->origin[at + i]);
			if (outs[i] != HOTFUNCS_NO_FUNC)
				__builtin_prefetch(&h->counts[outs[i]], 1);
		}
		for (uint32_t i = 0; i < k; i++)
			if (outs[i] != HOTFUNCS_NO_FUNC)
				count_total(h, outs[i], c, stamp);
	}
	if (!leaf || l->leaf == HOTFUNCS_NO_FUNC)
		return;
	/* The leaf's function is on l: out_of has seen it. */
	out = out_met(h->cache, l->leaf);
	count_self(h, out, c);
}

/* The same for frame ip of a set made once (no lists): its functions, the last the leaf's. */
static void count_frame(struct hotfuncs *h, const struct model *m,
			const struct model_stack_count *c, uint32_t pid, uint64_t ip, bool kernel,
			bool leaf, uint32_t stamp)
{
	struct hotfuncs_origin o = {.ip = ip, .pid = kernel ? 0 : pid};
	unsigned n;
	const uint32_t *funcs = hotfuncs_cache__frame(h->cache, m, pid, ip, kernel, &n);
	uint32_t out = HOTFUNCS_NO_FUNC;

	/* funcs lives until the next hotfuncs_cache__frame: out_of names nothing */
	for (unsigned l = 0; l < n; l++) {
		o.level = (uint8_t)l;
		out = funcs[l] == HOTFUNCS_NO_FUNC ? HOTFUNCS_NO_FUNC : out_of(h, funcs[l], &o);
		if (out != HOTFUNCS_NO_FUNC)
			count_total(h, out, c, stamp);
	}
	if (leaf)
		count_self(h, out, c);
}

/* Pair c of a set made once: its frames walked, user stack first, leaf first. */
static void add_pair_once(struct hotfuncs *h, const struct model *m,
			  const struct model_stack_count *c, uint32_t stamp)
{
	const struct tt_stack *us = model__stack(m, c->ustack_id);
	const struct tt_stack *ks = model__stack(m, c->kstack_id);
	unsigned un = us ? us->nr : 0, k0 = ks ? hotfuncs_cache__tracer_frames(h->cache, m, ks) : 0;
	unsigned kn = ks ? ks->nr - k0 : 0;
	uint32_t upid = us && us->pid ? us->pid : c->pid;

	h->total += c->samples;
	h->total_weight += model_stack_count_weight(c);
	/* The user leaf is the sample's leaf when the kernel stack has no frames. */
	for (unsigned i = 0; i < un; i++)
		count_frame(h, m, c, upid, us->ips[i], us->flags & TT_STACK_KERNEL, !kn && !i,
			    stamp);
	for (unsigned i = 0; i < kn; i++)
		count_frame(h, m, c, c->pid, ks->ips[k0 + i], ks->flags & TT_STACK_KERNEL, !i,
			    stamp);
}

static void add_pair(struct hotfuncs *h, const struct model *m, const struct model_stack_count *c,
		     uint32_t stamp)
{
	const struct hotfuncs_list *ul, *kl;

	if (h->cache->once) {
		add_pair_once(h, m, c, stamp);
		return;
	}
	hotfuncs_cache__pair(h->cache, m, c, &ul, &kl);
	h->total += c->samples;
	h->total_weight += model_stack_count_weight(c);
	/* The user leaf is the sample's leaf when the kernel stack has no frames. */
	if (ul)
		count_list(h, ul, c, !kl || kl->leaf == HOTFUNCS_NO_FUNC, stamp);
	if (kl)
		count_list(h, kl, c, true, stamp);
}

static struct hotfuncs *make(struct hotfuncs_cache *c, const struct model *m)
{
	struct hotfuncs *h = xcalloc(1, sizeof(*h));

	hotfuncs_cache__begin(c, m);
	h->cache = c;
	/* As many entries as the latest set's, at once (a refresh: the same, mostly). */
	xgrow((void **)&h->store, &h->cap, c->last_nr, sizeof(*h->store));
	h->counts = c->counts;
	return h;
}

/* The counts to the entries: they are of no use once there. */
static struct hotfuncs *done(struct hotfuncs *h)
{
	for (size_t i = 0; i < h->nr; i++) {
		const struct hotfuncs_count *s = &h->counts[i];
		struct hotfunc *f = &h->store[i];

		f->total = s->total;
		f->total_weight = s->total_weight;
		f->nr_pids = s->nr_pids;
		f->more_pids = s->more_pids;
	}
	h->cache->last_nr = h->nr;
	hotfuncs_cache__end(h->cache);
	h->cache = NULL;
	h->counts = NULL; /* the cache's, for the next set */
	h->funcs = xmalloc((h->nr ? h->nr : 1) * sizeof(*h->funcs));
	for (size_t i = 0; i < h->nr; i++)
		h->funcs[i] = &h->store[i];
	hotfuncs__sort_first(h, HOTFUNCS_BY_SELF, false, HOTFUNCS_SORT_FIRST);
	return h;
}

struct hotfuncs *hotfuncs__new_cached(struct hotfuncs_cache *cache, const struct model *m,
				      const struct model_stack_count *pairs, size_t nr)
{
	struct hotfuncs *h = make(cache, m);

	for (size_t i = 0; i < nr; i++)
		add_pair(h, m, &pairs[i], (uint32_t)i);
	return done(h);
}

struct hotfuncs *hotfuncs__new(const struct model *m, const struct model_stack_count *pairs,
			       size_t nr)
{
	struct hotfuncs_cache *c = hotfuncs_cache__new_once();
	struct hotfuncs *h = hotfuncs__new_cached(c, m, pairs, nr);

	hotfuncs_cache__free(c);
	return h;
}

struct hotfuncs *hotfuncs__from_profile(const struct model *m, const struct profile *p,
					enum profile_kind kind, uint32_t state_mask)
{
	struct hotfuncs_cache *cache = hotfuncs_cache__new_once();
	struct hotfuncs *h = make(cache, m);

	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];
		struct model_stack_count c = {
			.kstack_id = s->kstack_id,
			.ustack_id = s->ustack_id,
			.pid = s->pid,
			.samples = profile_sample_weight(s),
			.ns = s->ns,
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
	h = done(h);
	hotfuncs_cache__free(cache);
	return h;
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

/* Most self first: in time (shares), then in samples. */
static int self_desc(const struct hotfunc *a, const struct hotfunc *b)
{
	int c = u64_desc(a->self_weight, b->self_weight);

	return c ? c : u64_desc(a->self, b->self);
}

static int total_desc(const struct hotfunc *a, const struct hotfunc *b)
{
	int c = u64_desc(a->total_weight, b->total_weight);

	return c ? c : u64_desc(a->total, b->total);
}

static int cmp_func(const void *pa, const void *pb)
{
	const struct hotfunc *a = *(const struct hotfunc *const *)pa;
	const struct hotfunc *b = *(const struct hotfunc *const *)pb;
	int c = 0;

	switch (sort_by) {
	case HOTFUNCS_BY_TOTAL:
		c = total_desc(a, b);
		if (!c)
			c = self_desc(a, b);
		break;
	case HOTFUNCS_BY_NAME:
		break;
	case HOTFUNCS_BY_MODULE:
		c = str_cmp(a->module, b->module);
		if (!c)
			c = self_desc(a, b);
		break;
	default:
		c = self_desc(a, b);
		if (!c)
			c = total_desc(a, b);
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

/* Restores the heap of v[0, k) below i: each entry after (in the order) its children. */
static void sift_down(struct hotfunc **v, size_t k, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= k)
			return;
		if (c + 1 < k && cmp_order(&v[c + 1], &v[c]) > 0)
			c++;
		if (cmp_order(&v[c], &v[i]) <= 0)
			return;
		swap(v, i, c);
		i = c;
	}
}

/*
 * Puts the k entries of v[0, n) that come first in the order at v[0, k),
 * in any order, the others after them: a heap of the k first so far, the
 * last of them on top, and one pass over the rest, each entry compared
 * with that top (a few hundred rows of 100,000 functions: one look at each,
 * where a quickselect went over them two or three times at random).
 */
static void select_first(struct hotfunc **v, size_t n, size_t k)
{
	if (!k || k >= n)
		return;
	for (size_t i = k / 2; i-- > 0;)
		sift_down(v, k, i);
	for (size_t i = k; i < n; i++) {
		if (cmp_order(&v[i], &v[0]) >= 0)
			continue;
		swap(v, 0, i);
		sift_down(v, k, 0);
	}
}

void hotfuncs__sort(struct hotfuncs *h, enum hotfuncs_sort by, bool reverse)
{
	hotfuncs__sort_first(h, by, reverse, SIZE_MAX);
}

void hotfuncs__sort_first(struct hotfuncs *h, enum hotfuncs_sort by, bool reverse, size_t k)
{
	by = by < HOTFUNCS_SORT_MAX ? by : HOTFUNCS_BY_SELF;
	/* In that order already (the set as made, then the Hot pane's default order). */
	if (h->sort_by_ == by && h->reverse_ == reverse && h->sorted >= (k < h->nr ? k : h->nr))
		return;
	/* The reverse of the order they are in: backwards, the heap's best input, not its worst. */
	if (h->sort_by_ == by && h->reverse_ != reverse && h->sorted)
		for (size_t i = 0, j = h->nr - 1; i < j; i++, j--)
			swap(h->funcs, i, j);
	sort_by = by;
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
	free(h->counts);
	free(h->funcs);
	free(h->store);
	free(h);
}
