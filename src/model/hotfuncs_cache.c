// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stacks of the hot functions, derived once (see hotfuncs_cache.h):
 * every frame of a stack and every function inlined at it mapped to its
 * function, the namer asked once per (process, address) of a set, the
 * functions of the stack kept once each. Kept across sets while the model
 * says nothing changed: a names change (kallsyms in, another namer) drops
 * everything, a stack aged or replaced drops the lists of stacks that are
 * gone or hold other frames. Memory follows the stacks present: lists of
 * stacks gone go at the next set, the functions when they outnumber those
 * the lists still name, the pairs (each pair's two lists, looked up once)
 * with any list or when they outnumber the latest set's.
 */
#include <stdlib.h>
#include <string.h>

#include "hotfuncs_cache.h"
#include "lj_model.h"
#include "threadtop/frame_namer.h"
#include "u64map.h"
#include "util.h"

/* Functions kept past those the lists name before they are all dropped. */
#define STALE_FNS_SLACK 65536

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

/* What a list of st depends on: its frames, its process, its flags. */
static uint64_t stack_sum(const struct tt_stack *st)
{
	uint64_t h = mix(((uint64_t)st->nr << 48) ^ ((uint64_t)st->flags << 32) ^ st->pid);

	for (unsigned i = 0; i < st->nr; i++)
		h = mix(h ^ st->ips[i]);
	return h;
}

static void list_free(void *v)
{
	struct hotfuncs_list *l = v;

	if (!l)
		return;
	free(l->fns);
	free(l->origin);
	free(l);
}

/* The pairs point to lists: they go whenever lists do. */
static void drop_pairs(struct hotfuncs_cache *c)
{
	u64map__free_all(c->pairs, free);
	c->pairs = u64map__new();
	c->nr_order = 0;
}

static void drop_all(struct hotfuncs_cache *c)
{
	drop_pairs(c);
	u64map__free_all(c->lists, list_free);
	c->lists = u64map__new();
	c->refs = 0;
	c->frames = 0;
	free(c->addrs);
	c->addrs = NULL;
	c->nr_addrs = c->cap_addrs = 0;
	c->nr_runs = 0;
	for (size_t i = 0; i < c->nr_fns; i++)
		free(c->fns[i].name);
	c->nr_fns = 0;
	u64map__free(c->by_id);
	c->by_id = u64map__new();
	u64map__free_all(c->modules, free);
	c->modules = u64map__new();
}

struct hotfuncs_cache *hotfuncs_cache__new(void)
{
	struct hotfuncs_cache *c = xcalloc(1, sizeof(*c));

	c->lists = u64map__new();
	c->pairs = u64map__new();
	c->by_id = u64map__new();
	c->modules = u64map__new();
	return c;
}

struct hotfuncs_cache *hotfuncs_cache__new_once(void)
{
	struct hotfuncs_cache *c = hotfuncs_cache__new();

	c->once = true;
	return c;
}

void hotfuncs_cache__free(struct hotfuncs_cache *c)
{
	if (!c)
		return;
	u64map__free_all(c->pairs, free);
	u64map__free_all(c->lists, list_free);
	for (size_t i = 0; i < c->nr_fns; i++)
		free(c->fns[i].name);
	u64map__free(c->by_id);
	u64map__free_all(c->modules, free);
	free(c->addrs);
	free(c->order);
	free(c->runs);
	free(c->fns);
	free(c->met);
	free(c->counts);
	free(c->outs);
	free(c->lstamps);
	free(c);
}

/* Drops the lists of stacks gone, or holding other frames than when derived. */
static void drop_gone(struct hotfuncs_cache *c, const struct model *m)
{
	struct hotfuncs_list *l;
	uint64_t key;
	size_t pos = 0;

	drop_pairs(c);
	while (u64map__next(c->lists, &pos, &key, (void **)&l)) {
		const struct tt_stack *st = model__stack(m, (uint32_t)key);

		if (st && stack_sum(st) == l->sum)
			continue;
		u64map__remove_at(c->lists, &pos);
		c->refs -= l->n;
		c->frames -= l->frames;
		list_free(l);
	}
}

void hotfuncs_cache__begin(struct hotfuncs_cache *c, const struct model *m)
{
	if (c->model != m || c->namer != model__frame_namer(m) ||
	    c->names_gen != model__names_gen(m)) {
		drop_all(c);
		c->model = m;
		c->namer = model__frame_namer(m);
		c->names_gen = model__names_gen(m);
	} else if (c->stacks_gone != model__stacks_gone(m)) {
		drop_gone(c, m);
	}
	c->stacks_gone = model__stacks_gone(m);
	/* Every function a list names is one of refs: the rest are of stacks gone. */
	if (c->nr_fns > 2 * c->refs + STALE_FNS_SLACK ||
	    c->nr_addrs > 2 * c->frames + STALE_FNS_SLACK)
		drop_all(c);
	/* Pairs of earlier sets no longer asked for: at most as many as the latest set's. */
	if (u64map__count(c->pairs) > 2 * c->nr_set_pairs + STALE_FNS_SLACK)
		drop_pairs(c);
	c->nr_set_pairs = 0;
	c->gen = c->gen + 1 ? c->gen + 1 : 1; /* 0: a list of no set */
	if (c->nr_fns)
		memset(c->met, 0, (c->nr_fns + 63) / 64 * sizeof(*c->met));
}

void hotfuncs_cache__end(struct hotfuncs_cache *c)
{
	c->nr_order = c->nr_set_pairs;
}

/* Slots of the address table: a power of two, at most half full. */
static void addrs_grow(struct hotfuncs_cache *c)
{
	size_t cap = c->cap_addrs ? 2 * c->cap_addrs : 4096;
	struct hotfuncs_addr *old = c->addrs;

	c->addrs = xcalloc(cap, sizeof(*c->addrs));
	for (size_t i = 0; i < c->cap_addrs; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		for (j = (old[i].key >> 1) & (cap - 1); c->addrs[j].key; j = (j + 1) & (cap - 1))
			;
		c->addrs[j] = old[i];
	}
	c->cap_addrs = cap;
	free(old);
}

/* The cache's one copy of module name s (a few modules, a million functions). */
static char *module_of(struct hotfuncs_cache *c, const char *s)
{
	uint64_t k = str_hash(0xcbf29ce484222325ull, s);
	char *m;

	for (k = k ? k : 1;; k = k + 1 ? k + 1 : 1) {
		m = u64map__get(c->modules, k);
		if (!m) {
			m = xstrdup(s);
			u64map__put(c->modules, k, m);
			return m;
		}
		if (!strcmp(m, s))
			return m;
	}
}

static uint32_t new_fn(struct hotfuncs_cache *c, uint64_t id, const char *name, const char *module,
		       bool kernel);

/* The function (name, module, kernel) is, made when new. */
static uint32_t fn_of(struct hotfuncs_cache *c, uint64_t id, const char *name, const char *module,
		      bool kernel)
{
	size_t idx = (size_t)(uintptr_t)u64map__get(c->by_id, id);

	if (idx)
		return (uint32_t)(idx - 1);
	idx = new_fn(c, id, name, module ? module_of(c, module) : NULL, kernel);
	if (idx == HOTFUNCS_NO_FUNC)
		return HOTFUNCS_NO_FUNC; /* one set's, full */
	u64map__put(c->by_id, id, (void *)(uintptr_t)(idx + 1));
	return (uint32_t)idx;
}

/* A new function; module: one of c->modules, a literal or NULL. For one set,
 * functions are made as first seen: those past what it keeps are none. */
static uint32_t new_fn(struct hotfuncs_cache *c, uint64_t id, const char *name, const char *module,
		       bool kernel)
{
	struct hotfuncs_fn *f;
	/* outs and lstamps grow with fns: each its own capacity copy, as xgrow wants. */
	size_t cap = c->cap_fns;
	size_t lcap = cap;

	if (c->once && c->nr_fns >= HOTFUNCS_MAX)
		return HOTFUNCS_NO_FUNC;
	xgrow((void **)&c->fns, &c->cap_fns, c->nr_fns + 1, sizeof(*c->fns));
	xgrow((void **)&c->outs, &cap, c->nr_fns + 1, sizeof(*c->outs));
	xgrow((void **)&c->lstamps, &lcap, c->nr_fns + 1, sizeof(*c->lstamps));
	xgrow((void **)&c->met, &c->cap_met, c->nr_fns / 64 + 1, sizeof(*c->met));
	c->lstamps[c->nr_fns] = 0;
	c->met[c->nr_fns / 64] &= ~(1ull << (c->nr_fns % 64));
	f = &c->fns[c->nr_fns];
	*f = (struct hotfuncs_fn){
		.id = id,
		.name = name ? xstrdup(name) : NULL,
		.module = module,
		.kernel = kernel,
	};
	return (uint32_t)c->nr_fns++;
}

/* The functions at ip (of process pid, or of the kernel): *ret_n of them, named once. */
const uint32_t *hotfuncs_cache__frame(struct hotfuncs_cache *c, const struct model *m, uint32_t pid,
				      uint64_t ip, bool kernel, unsigned *ret_n)
{
	uint64_t key = mix(ip ^ mix(kernel ? 0x51ed27ull : (uint64_t)pid + 1)) | 1;
	uint32_t funcs[HOTFUNCS_INLINE_MAX];
	struct hotfuncs_addr *a;
	struct frame_name fn;
	size_t j;
	unsigned n;

	/* A Lua frame is named at each look-up: its function's name may come
	 * after its first samples (lj_model.h), and the name is the identity. */
	if (lj_frame_is_lua(ip)) {
		model__frame_name(m, pid, ip, false, &fn);
		c->lua_fn =
			fn_of(c, str_hash(str_hash(0xcbf29ce484222325ull, fn.name), fn.module) ?: 1,
			      fn.name, fn.module, false);
		*ret_n = 1;
		return &c->lua_fn;
	}
	if (2 * (c->nr_addrs + 1) > c->cap_addrs)
		addrs_grow(c);
	/* key >> 1: its low bit is always set (0 = a free slot) */
	for (j = (key >> 1) & (c->cap_addrs - 1); c->addrs[j].key;
	     j = (j + 1) & (c->cap_addrs - 1)) {
		a = &c->addrs[j];
		if (a->key == key) {
			*ret_n = a->n;
			return a->n == 1 ? &a->first : &c->runs[a->first];
		}
	}
	if (!c->namer && !lj_frame_is_lua(ip)) {
		static const uint32_t none = HOTFUNCS_NO_FUNC;

		/* A set made once and full: an address not seen is none of its functions,
		 * nor will be. Not kept, so the table stays that of the functions made. */
		if (c->once && c->nr_fns >= HOTFUNCS_MAX) {
			*ret_n = 1;
			return &none;
		}
		/* Frames are addresses (a replay without names): each its own function,
		 * made once as the address is (the table lives as long as the functions). */
		funcs[0] = new_fn(c, key, NULL, kernel ? "[kernel]" : NULL, kernel);
		n = 0;
	} else {
		model__frame_name(m, kernel ? 0 : pid, ip, kernel, &fn);
		n = fn.inlined ? fn.nr_inlined : 0;
		if (n > HOTFUNCS_INLINE_MAX - 1)
			n = HOTFUNCS_INLINE_MAX - 1;
		/* fn's strings live until the next naming: fn_of does not name. */
		for (unsigned l = 0; l <= n; l++) {
			const char *name = l ? fn.inlined[l - 1] : fn.name;
			uint64_t id = str_hash(
				str_hash(kernel ? 0x6b65726eull : 0xcbf29ce484222325ull, name),
				fn.module);

			funcs[l] = fn_of(c, id ? id : 1, name, fn.module, kernel);
		}
	}
	/* Naming and fn_of do not touch the table: slot j is still free. */
	a = &c->addrs[j];
	*a = (struct hotfuncs_addr){.key = key, .first = funcs[0], .n = n + 1};
	c->nr_addrs++;
	*ret_n = n + 1;
	if (!n)
		return &a->first;
	xgrow((void **)&c->runs, &c->cap_runs, c->nr_runs + n + 1, sizeof(*c->runs));
	a->first = (uint32_t)c->nr_runs;
	memcpy(&c->runs[c->nr_runs], funcs, (n + 1) * sizeof(*funcs));
	c->nr_runs += n + 1;
	return &c->runs[a->first];
}

/* Whether kernel frame ip is threadtop's own tracing (cut off kernel leaves). */
static bool is_tracer(const struct model *m, uint64_t ip)
{
	struct frame_name fn;

	model__frame_name(m, 0, ip, true, &fn);
	return model__frame_is_tracer(fn.name);
}

unsigned hotfuncs_cache__tracer_frames(const struct hotfuncs_cache *c, const struct model *m,
				       const struct tt_stack *st)
{
	unsigned k0 = 0;

	while (c->namer && st->nr - k0 > 1 && is_tracer(m, st->ips[k0]))
		k0++;
	return k0;
}

static void derive(struct hotfuncs_cache *c, const struct model *m, const struct tt_stack *st,
		   bool kpos, uint32_t pid, struct hotfuncs_list *l)
{
	bool kernel = st->flags & TT_STACK_KERNEL;
	/* As the call tree does: no frames of our own tracer at the kernel leaf. */
	unsigned k0 = kpos ? hotfuncs_cache__tracer_frames(c, m, st) : 0, nr = st->nr - k0;
	size_t cap = st->nr; /* fns and origin: each its own capacity for xgrow */
	size_t ocap = cap;

	l->n = 0;
	l->frames = st->nr;
	l->leaf = HOTFUNCS_NO_FUNC;
	l->always = false;
	l->fns = cap ? xmalloc(cap * sizeof(*l->fns)) : NULL; /* a function a frame, mostly */
	l->origin = ocap ? xmalloc(ocap * sizeof(*l->origin)) : NULL;
	if (!++c->lstamp) {
		for (size_t i = 0; i < c->nr_fns; i++)
			c->lstamps[i] = 0;
		c->lstamp = 1;
	}
	for (unsigned i = 0; i < nr; i++) {
		uint64_t ip = st->ips[k0 + i];
		unsigned n;
		const uint32_t *funcs = hotfuncs_cache__frame(c, m, pid, ip, kernel, &n);

		l->always |= lj_frame_is_lua(ip);
		/* funcs lives until the next hotfuncs_cache__frame: the loop names nothing */
		for (unsigned v = 0; v < n; v++) {
			uint32_t f = funcs[v];

			if (!i && v + 1 == n)
				l->leaf = f; /* the innermost function at the leaf */
			if (c->lstamps[f] == c->lstamp)
				continue; /* already on this stack: recursion */
			c->lstamps[f] = c->lstamp;
			xgrow((void **)&l->fns, &cap, l->n + 1, sizeof(*l->fns));
			xgrow((void **)&l->origin, &ocap, l->n + 1, sizeof(*l->origin));
			l->fns[l->n] = f;
			l->origin[l->n] = (struct hotfuncs_origin){
				.ip = ip,
				.pid = kernel ? 0 : pid,
				.level = (uint8_t)v,
			};
			l->n++;
		}
	}
}

const struct hotfuncs_list *hotfuncs_cache__list(struct hotfuncs_cache *c, const struct model *m,
						 const struct tt_stack *st, bool kpos, uint32_t pid)
{
	/* The process names the frames of a user stack; a kernel stack's are the kernel's. */
	bool by_pid;
	uint64_t key;
	struct hotfuncs_list *l;

	if (!st)
		return NULL;
	by_pid = !(st->flags & TT_STACK_KERNEL) && (kpos || !st->pid);
	key = st->id | (kpos ? 1ull << 63 : 0) | 1ull << 62 |
	      (by_pid ? (uint64_t)(pid & 0x3fffffff) << 32 : 0);
	l = u64map__get(c->lists, key);
	if (l && l->always && l->gen != c->gen) {
		c->refs -= l->n;
		c->frames -= l->frames;
		free(l->fns);
		free(l->origin);
		l->fns = NULL;
		l->origin = NULL;
		derive(c, m, st, kpos, pid, l);
		c->refs += l->n;
		c->frames += l->frames;
		l->gen = c->gen;
	}
	if (l)
		return l;
	l = xcalloc(1, sizeof(*l));
	l->key = key;
	l->sum = stack_sum(st);
	l->gen = c->gen;
	derive(c, m, st, kpos, pid, l);
	c->refs += l->n;
	c->frames += l->frames;
	u64map__put(c->lists, key, l);
	return l;
}

void hotfuncs_cache__pair(struct hotfuncs_cache *c, const struct model *m,
			  const struct model_stack_count *p, const struct hotfuncs_list **ret_ul,
			  const struct hotfuncs_list **ret_kl)
{
	size_t i = c->nr_set_pairs++;
	struct hotfuncs_pair *o = i < c->nr_order ? &c->order[i] : NULL;
	const struct tt_stack *us, *ks;
	struct hotfuncs_pair *hp;
	uint64_t key;
	uint32_t upid;

	/* The lists the pairs after this one had in the latest set, fetched ahead
	 * (their structs two pairs ahead, their functions one): a set over the
	 * same pairs counts them next. The lists of kept pairs live until
	 * hotfuncs_cache__begin. */
	if (i + 2 < c->nr_order && c->order[i + 2].kept) {
		__builtin_prefetch(c->order[i + 2].ul);
		__builtin_prefetch(c->order[i + 2].kl);
	}
	if (i + 1 < c->nr_order && c->order[i + 1].kept) {
		const struct hotfuncs_pair *n = &c->order[i + 1];

		if (n->ul)
			__builtin_prefetch(n->ul->fns);
		if (n->kl)
			__builtin_prefetch(n->kl->fns);
	}
	/* The pair the latest set had here (the same pairs in the same order: in turn). */
	if (o && o->kept && o->kstack_id == p->kstack_id && o->ustack_id == p->ustack_id &&
	    o->pid == p->pid && !(o->ul && o->ul->always) && !(o->kl && o->kl->always)) {
		*ret_ul = o->ul;
		*ret_kl = o->kl;
		return;
	}
	xgrow((void **)&c->order, &c->cap_order, i + 1, sizeof(*c->order));
	if (i >= c->nr_order)
		c->nr_order = i + 1; /* the latest set's beyond it are read no more */
	o = &c->order[i];
	o->kept = false;
	key = mix(((uint64_t)p->kstack_id << 32 | p->ustack_id) ^ mix(p->pid + 1ull));
	for (key = key ? key : 1;; key = key + 1 ? key + 1 : 1) {
		hp = u64map__get(c->pairs, key);
		if (!hp)
			break;
		if (hp->kstack_id != p->kstack_id || hp->ustack_id != p->ustack_id ||
		    hp->pid != p->pid)
			continue;
		/* Lists with LuaJIT frames are derived again for each set. */
		if ((hp->ul && hp->ul->always && hp->ul->gen != c->gen) ||
		    (hp->kl && hp->kl->always && hp->kl->gen != c->gen))
			break;
		*ret_ul = hp->ul;
		*ret_kl = hp->kl;
		*o = *hp;
		return;
	}
	us = model__stack(m, p->ustack_id);
	ks = model__stack(m, p->kstack_id);
	upid = us && us->pid ? us->pid : p->pid;
	*ret_ul = hotfuncs_cache__list(c, m, us, false, upid);
	*ret_kl = hotfuncs_cache__list(c, m, ks, true, p->pid);
	if (hp) { /* known, its LuaJIT lists derived again */
		*o = *hp;
		return;
	}
	if ((p->ustack_id && !us) || (p->kstack_id && !ks))
		return; /* a stack to come: not kept */
	hp = xmalloc(sizeof(*hp));
	*hp = (struct hotfuncs_pair){p->kstack_id, p->ustack_id, p->pid, true, *ret_ul, *ret_kl};
	u64map__put(c->pairs, key, hp);
	*o = *hp;
}
