// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LuaJIT part of the model (see lj_model.h). Function names are kept per
 * process by the library's id, which a new sysprof session may reuse, so
 * samples are resolved to names when they arrive and counted by name: a
 * recording replays to the same figures.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dict_budget.h"
#include "lj_model.h"
#include "u64map.h"
#include "util.h"

enum { W_INTERVAL, W_LAST, W_SESSION, W_MAX };

struct lj_func {
	char *name;
	uint32_t name_idx; /* index into lj_model.names: its frame tag */
	uint64_t self[W_MAX], total[W_MAX], trace[W_MAX];
	uint64_t seen; /* sample number that last counted its total */
};

/* One distinct (host stack, Lua frames) pair of a thread, for stitched stacks. */
struct lj_stack {
	uint32_t ustack_id;
	uint32_t stitched_id; /* the model's stack id once stitched (model_luajit.c), else 0 */
	uint64_t count[W_MAX];
	uint16_t nr;
	uint64_t frames[]; /* name index | LJ_STACK_CFUNC, leaf first */
};

struct lj_thread {
	uint32_t pid, tid;
	uint64_t last_ns; /* its latest sample */
	uint8_t fidelity;
	uint32_t weight_us;
	uint64_t counts[W_MAX][TT_LJ_VMSTATE_MAX];
	uint64_t samples[W_MAX];
	struct u64map *funcs; /* hash of name -> struct lj_func */
	size_t nfuncs;
	struct u64map *stacks; /* hash of the pair (probed) -> struct lj_stack */
	size_t nstacks;
};

struct lj_proc {
	struct u64map *names; /* function id -> struct lj_name */
	bool dropped;	      /* a name did not fit the budget */
};

struct lj_name {
	char *text;
	uint32_t flags;
};

struct lj_model {
	struct u64map *threads; /* tid -> struct lj_thread */
	struct u64map *procs;	/* pid -> struct lj_proc */
	uint64_t nsamples;
	uint64_t last_key; /* the stack pair the latest sample counted in, 0 = none */
	/* Every function name once, for frame tags: hash (probed) -> index + 1. */
	struct u64map *name_index;
	char **names;
	uint32_t *name_pids; /* the process each name was charged to */
	size_t nr_names, cap_names, cap_name_pids;
	struct dict_budget *budget; /* not owned, or NULL */
};

static const char *const vmstate_names[] = TT_LJ_VMSTATE_NAMES;

const char *lj_vmstate_name(unsigned vmstate)
{
	return vmstate < TT_LJ_VMSTATE_MAX ? vmstate_names[vmstate] : "?";
}

struct lj_model *lj_model__new(void)
{
	struct lj_model *lm = xcalloc(1, sizeof(*lm));

	lm->threads = u64map__new();
	lm->procs = u64map__new();
	lm->name_index = u64map__new();
	return lm;
}

static void thread_free(struct lj_thread *t)
{
	struct lj_func *f;
	size_t pos = 0;
	uint64_t key;

	while (u64map__next(t->funcs, &pos, &key, (void **)&f)) {
		free(f->name);
		free(f);
	}
	u64map__free(t->funcs);
	pos = 0;
	while (u64map__next(t->stacks, &pos, &key, (void **)&f))
		free(f);
	u64map__free(t->stacks);
	free(t);
}

static void proc_free(struct lj_model *lm, uint32_t pid, struct lj_proc *p)
{
	struct lj_name *n;
	size_t pos = 0;
	uint64_t key;

	while (u64map__next(p->names, &pos, &key, (void **)&n)) {
		dict_budget__give(lm->budget, pid, strlen(n->text));
		free(n->text);
		free(n);
	}
	u64map__free(p->names);
	free(p);
}

void lj_model__free(struct lj_model *lm)
{
	struct lj_thread *t;
	struct lj_proc *p;
	size_t pos = 0;
	uint64_t key;

	if (!lm)
		return;
	while (u64map__next(lm->threads, &pos, &key, (void **)&t))
		thread_free(t);
	pos = 0;
	while (u64map__next(lm->procs, &pos, &key, (void **)&p))
		proc_free(lm, (uint32_t)key, p);
	u64map__free(lm->threads);
	u64map__free(lm->procs);
	for (size_t i = 0; i < lm->nr_names; i++) {
		dict_budget__give(lm->budget, lm->name_pids[i], strlen(lm->names[i]));
		free(lm->names[i]);
	}
	free(lm->names);
	free(lm->name_pids);
	u64map__free(lm->name_index);
	free(lm);
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h ? h : 1;
}

void lj_model__set_budget(struct lj_model *lm, struct dict_budget *b)
{
	lm->budget = b;
}

/* The index of name in the model's name table, added when new (charged to pid). */
static uint32_t name_intern(struct lj_model *lm, uint32_t pid, const char *name)
{
	uint64_t h = name_hash(name);
	size_t idx;

	for (;; h++) {
		idx = (size_t)(uintptr_t)u64map__get(lm->name_index, h);
		if (!idx)
			break;
		if (!strcmp(lm->names[idx - 1], name))
			return (uint32_t)(idx - 1);
	}
	if (lm->nr_names > TT_LJ_FRAME_ID_LAST)
		return LJ_FRAME_IDX_MASK; /* out of tags (events.h): named "(other)" */
	if (!dict_budget__take(lm->budget, pid, strlen(name)))
		return LJ_FRAME_IDX_MASK; /* past the budget: named "(other)" too */
	xgrow((void **)&lm->names, &lm->cap_names, lm->nr_names + 1, sizeof(*lm->names));
	xgrow((void **)&lm->name_pids, &lm->cap_name_pids, lm->nr_names + 1,
	      sizeof(*lm->name_pids));
	lm->names[lm->nr_names] = xstrdup(name);
	lm->name_pids[lm->nr_names] = pid;
	u64map__put(lm->name_index, h, (void *)(uintptr_t)(lm->nr_names + 1));
	return (uint32_t)lm->nr_names++;
}

static struct lj_proc *proc_get(struct lj_model *lm, uint32_t pid)
{
	struct lj_proc *p = u64map__get(lm->procs, pid);

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->names = u64map__new();
		u64map__put(lm->procs, pid, p);
	}
	return p;
}

static void ingest_func(struct lj_model *lm, const struct tt_luajit_func *f)
{
	struct lj_proc *p = proc_get(lm, f->pid);
	struct lj_name *n, *old = u64map__remove(p->names, f->id);

	if (old) {
		dict_budget__give(lm->budget, f->pid, strlen(old->text));
		free(old->text);
		free(old);
	}
	/* A process naming fresh ids without end (the probe is theirs to call). */
	if (!dict_budget__take(lm->budget, f->pid, f->len)) {
		p->dropped = true;
		return;
	}
	n = xcalloc(1, sizeof(*n));
	n->text = xstrndup(f->data, f->len);
	n->flags = f->flags;
	u64map__put(p->names, f->id, n);
}

static struct lj_func *func_get(struct lj_model *lm, struct lj_thread *t, const char *name)
{
	uint64_t h = name_hash(name);
	struct lj_func *f = u64map__get(t->funcs, h);

	if (f)
		return f;
	if (t->nfuncs >= LJ_MODEL_MAX_FUNCS) {
		name = "(other)";
		h = name_hash(name);
		f = u64map__get(t->funcs, h);
		if (f)
			return f;
	}
	f = xcalloc(1, sizeof(*f));
	f->name = xstrdup(name);
	f->name_idx = name_intern(lm, t->pid, name);
	u64map__put(t->funcs, h, f);
	t->nfuncs++;
	return f;
}

static uint64_t stack_hash(uint32_t ustack_id, const uint64_t *frames, unsigned nr)
{
	uint64_t h = 1469598103934665603ull ^ ustack_id;

	for (unsigned i = 0; i < nr; i++)
		h = (h ^ frames[i]) * 1099511628211ull;
	return h ? h : 1;
}

/*
 * Counts the thread's (host stack, Lua frames) pair; beyond the cap, only
 * the counters count. Returns the pair's key in t->stacks, 0 past the cap.
 */
static uint64_t count_stack(struct lj_thread *t, uint32_t ustack_id, const uint64_t *frames,
			    unsigned nr)
{
	uint64_t h = stack_hash(ustack_id, frames, nr);
	struct lj_stack *st;

	for (;; h = h + 1 ? h + 1 : 1) {
		st = u64map__get(t->stacks, h);
		if (!st)
			break;
		if (st->ustack_id == ustack_id && st->nr == nr &&
		    !memcmp(st->frames, frames, nr * sizeof(*frames)))
			goto count;
	}
	if (t->nstacks >= LJ_MODEL_MAX_STACKS)
		return 0;
	st = xcalloc(1, sizeof(*st) + nr * sizeof(*frames));
	st->ustack_id = ustack_id;
	st->nr = (uint16_t)nr;
	memcpy(st->frames, frames, nr * sizeof(*frames));
	u64map__put(t->stacks, h, st);
	t->nstacks++;
count:
	for (int w = 0; w < W_MAX; w++)
		st->count[w]++;
	return h;
}

static void ingest_sample(struct lj_model *lm, const struct tt_luajit_sample *s)
{
	struct lj_thread *t = u64map__get(lm->threads, s->tid);
	struct lj_proc *p = proc_get(lm, s->pid);
	uint64_t frames[TT_LJ_MAX_FRAMES];
	bool self_done = false;
	unsigned nframes = 0;
	char unknown[40];

	if (t && t->pid != s->pid) { /* the tid was reused by another process */
		u64map__remove(lm->threads, s->tid);
		thread_free(t);
		t = NULL;
	}
	if (!t) {
		t = xcalloc(1, sizeof(*t));
		t->pid = s->pid;
		t->tid = s->tid;
		t->funcs = u64map__new();
		t->stacks = u64map__new();
		u64map__put(lm->threads, s->tid, t);
	}
	lm->nsamples++;
	if (s->hdr.time_ns > t->last_ns)
		t->last_ns = s->hdr.time_ns;
	t->fidelity = s->fidelity;
	t->weight_us = s->weight_us;
	for (int w = 0; w < W_MAX; w++) {
		t->counts[w][s->vmstate]++;
		t->samples[w]++;
	}
	for (unsigned i = 0; i < s->nr && i < TT_LJ_MAX_FRAMES; i++) {
		struct lj_name *n = u64map__get(p->names, s->frames[i]);
		const char *name = n ? n->text : unknown;
		struct lj_func *f;

		if (!n && p->dropped) /* maybe one of the names past the budget */
			snprintf(unknown, sizeof(unknown), "[dropped]");
		else if (!n)
			snprintf(unknown, sizeof(unknown), "lua:0x%llx",
				 (unsigned long long)s->frames[i]);
		/* An id the library never named is a C function it could not name (pmain). */
		frames[nframes++] = name_intern(lm, s->pid, name) |
				    (!n || (n->flags & TT_LJ_FUNC_C) ? LJ_STACK_CFUNC : 0);
		if (n && (n->flags & TT_LJ_FUNC_TRACE))
			continue; /* the trace pseudo-frame: the function under it is hot */
		f = func_get(lm, t, name);
		for (int w = 0; w < W_MAX; w++) {
			if (!self_done) {
				f->self[w]++;
				if (s->vmstate == TT_LJ_TRACE)
					f->trace[w]++;
			}
			if (f->seen != lm->nsamples)
				f->total[w]++;
		}
		f->seen = lm->nsamples;
		self_done = true;
	}
	lm->last_key = count_stack(t, s->ustack_id, frames, nframes);
}

bool lj_model__func_named(const struct lj_model *lm, uint32_t pid, uint64_t id)
{
	const struct lj_proc *p = u64map__get(lm->procs, pid);

	return p && (p->dropped || u64map__get(p->names, id));
}

uint64_t lj_model__last_stack(const struct lj_model *lm)
{
	return lm->last_key;
}

uint32_t lj_model__stitched_id(const struct lj_model *lm, uint32_t pid, uint32_t tid, uint64_t key)
{
	const struct lj_thread *t = u64map__get(lm->threads, tid);
	const struct lj_stack *st = t && t->pid == pid ? u64map__get(t->stacks, key) : NULL;

	return st ? st->stitched_id : 0;
}

void lj_model__ingest(struct lj_model *lm, const struct tt_event_header *ev)
{
	if (ev->type == TT_EV_LUAJIT_SAMPLE)
		ingest_sample(lm, (const struct tt_luajit_sample *)ev);
	else if (ev->type == TT_EV_LUAJIT_FUNC)
		ingest_func(lm, (const struct tt_luajit_func *)ev);
}

void lj_model__end_interval(struct lj_model *lm)
{
	struct lj_stack *st;
	struct lj_thread *t;
	struct lj_func *f;
	size_t pos = 0, fpos;
	uint64_t key;

	while (u64map__next(lm->threads, &pos, &key, (void **)&t)) {
		memcpy(t->counts[W_LAST], t->counts[W_INTERVAL], sizeof(t->counts[W_LAST]));
		memset(t->counts[W_INTERVAL], 0, sizeof(t->counts[W_INTERVAL]));
		t->samples[W_LAST] = t->samples[W_INTERVAL];
		t->samples[W_INTERVAL] = 0;
		fpos = 0;
		while (u64map__next(t->stacks, &fpos, &key, (void **)&st)) {
			st->count[W_LAST] = st->count[W_INTERVAL];
			st->count[W_INTERVAL] = 0;
		}
		fpos = 0;
		while (u64map__next(t->funcs, &fpos, &key, (void **)&f)) {
			f->self[W_LAST] = f->self[W_INTERVAL];
			f->total[W_LAST] = f->total[W_INTERVAL];
			f->trace[W_LAST] = f->trace[W_INTERVAL];
			f->self[W_INTERVAL] = f->total[W_INTERVAL] = f->trace[W_INTERVAL] = 0;
		}
	}
}

static int win_index(enum model_window window)
{
	switch (window) {
	case WIN_INTERVAL:
		return W_INTERVAL;
	case WIN_LAST:
		return W_LAST;
	default:
		return W_SESSION;
	}
}

static int thread_cmp(const void *a, const void *b)
{
	const struct lj_thread_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int lj_model__threads(const struct lj_model *lm, enum model_window window, uint32_t pid,
		      struct lj_thread_row **ret)
{
	int w = win_index(window);
	struct lj_thread_row *rows;
	struct lj_thread *t;
	size_t pos = 0, n = 0;
	uint64_t key;

	rows = xcalloc(u64map__count(lm->threads) + 1, sizeof(*rows));
	while (u64map__next(lm->threads, &pos, &key, (void **)&t)) {
		if (!t->samples[w] || (pid && t->pid != pid))
			continue;
		rows[n] = (struct lj_thread_row){.pid = t->pid,
						 .tid = t->tid,
						 .fidelity = t->fidelity,
						 .weight_us = t->weight_us};
		memcpy(rows[n].counts, t->counts[w], sizeof(rows[n].counts));
		rows[n].samples = t->samples[w];
		n++;
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), thread_cmp);
	*ret = rows;
	return (int)n;
}

static int func_cmp(const void *a, const void *b)
{
	const struct lj_func_row *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

int lj_model__functions(const struct lj_model *lm, enum model_window window, uint32_t pid,
			uint32_t tid, size_t limit, struct lj_func_row **ret)
{
	int w = win_index(window);
	struct u64map *merged = u64map__new();
	struct lj_func_row *rows, *r;
	struct lj_thread *t;
	struct lj_func *f;
	size_t pos = 0, fpos, n = 0, cap = 0;
	uint64_t key, idx;

	rows = NULL;
	while (u64map__next(lm->threads, &pos, &key, (void **)&t)) {
		if ((pid && t->pid != pid) || (tid && t->tid != tid))
			continue;
		fpos = 0;
		while (u64map__next(t->funcs, &fpos, &key, (void **)&f)) {
			if (!f->total[w])
				continue;
			idx = (uint64_t)(uintptr_t)u64map__get(merged, key);
			if (!idx) {
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					rows = xrealloc(rows, cap * sizeof(*rows));
				}
				rows[n] = (struct lj_func_row){.name = f->name,
							       .ip = lj_frame_ip(f->name_idx)};
				idx = ++n;
				u64map__put(merged, key, (void *)(uintptr_t)idx);
			}
			r = &rows[idx - 1];
			r->self += f->self[w];
			r->total += f->total[w];
			r->trace += f->trace[w];
		}
	}
	u64map__free(merged);
	if (n > 1)
		qsort(rows, n, sizeof(*rows), func_cmp);
	if (limit && n > limit)
		n = limit;
	*ret = rows;
	return (int)n;
}

uint64_t lj_model__samples(const struct lj_model *lm)
{
	return lm->nsamples;
}

const char *lj_model__frame_name(const struct lj_model *lm, uint64_t ip)
{
	uint64_t idx = ip & LJ_FRAME_IDX_MASK;

	if (!lm || !lj_frame_is_lua(ip))
		return NULL;
	return idx < lm->nr_names ? lm->names[idx] : "(other)";
}

bool lj_model__thread_ran(const struct lj_model *lm, uint32_t tid, uint64_t ip)
{
	const char *name = lj_model__frame_name(lm, ip);
	const struct lj_thread *t = u64map__get(lm->threads, tid);
	const struct lj_func *f;

	if (!t || !name)
		return false;
	f = u64map__get(t->funcs, name_hash(name));
	return f && f->total[W_SESSION];
}

int lj_model__stacks(struct lj_model *lm, enum model_window window, struct lj_stack_row **ret)
{
	int w = win_index(window);
	struct lj_stack_row *rows = NULL;
	size_t pos = 0, spos, n = 0, cap = 0;
	struct lj_thread *t;
	struct lj_stack *st;
	uint64_t key;

	while (u64map__next(lm->threads, &pos, &key, (void **)&t)) {
		if (!t->samples[w])
			continue;
		spos = 0;
		while (u64map__next(t->stacks, &spos, &key, (void **)&st)) {
			if (!st->count[w])
				continue;
			xgrow((void **)&rows, &cap, n + 1, sizeof(*rows));
			rows[n++] = (struct lj_stack_row){
				.pid = t->pid,
				.tid = t->tid,
				.weight_us = t->weight_us,
				.ustack_id = st->ustack_id,
				.frames = st->frames,
				.nr = st->nr,
				.samples = st->count[w],
				.stitched_id = &st->stitched_id,
			};
		}
	}
	*ret = rows;
	return (int)n;
}

void lj_model__forget(struct lj_model *lm, uint64_t before_ns,
		      bool (*proc_alive)(void *arg, uint32_t pid), void *arg)
{
	struct u64map *pids = u64map__new();
	struct lj_thread *t;
	struct lj_proc *p;
	size_t pos = 0;
	uint64_t key;

	while (u64map__next(lm->threads, &pos, &key, (void **)&t)) {
		if (t->last_ns < before_ns) {
			u64map__remove_at(lm->threads, &pos);
			thread_free(t);
			continue;
		}
		u64map__put(pids, t->pid, (void *)1);
	}
	pos = 0;
	while (u64map__next(lm->procs, &pos, &key, (void **)&p)) {
		if (!u64map__get(pids, key) && !proc_alive(arg, (uint32_t)key)) {
			u64map__remove_at(lm->procs, &pos);
			proc_free(lm, (uint32_t)key, p);
		}
	}
	u64map__free(pids);
}

void lj_model__ustacks(const struct lj_model *lm, void (*fn)(void *arg, uint32_t ustack_id),
		       void *arg)
{
	const struct lj_thread *t;
	const struct lj_stack *st;
	size_t pos = 0, spos;
	uint64_t key;

	while (u64map__next(lm->threads, &pos, &key, (void **)&t)) {
		spos = 0;
		while (u64map__next(t->stacks, &spos, &key, (void **)&st)) {
			if (st->ustack_id)
				fn(arg, st->ustack_id);
			if (st->stitched_id)
				fn(arg, st->stitched_id);
		}
	}
}
