// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LuaJIT part of the model (see lj_model.h). Samples are counted by
 * function identity (lj_funcs.h), not by name: the library announces a
 * function ("@x.lua:5") before its first sample and names it later, when a
 * caller does ("cmp @x.lua:5"), so a name known when a sample arrives may
 * not be its last. Names are looked up when asked (lj_model__frame_name,
 * lj_model__functions), so every view names all of a function's samples by
 * the best name known then; rows of one name (one function in several
 * processes) are merged there. Events replay in order, so a recording
 * replays to the same figures.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lj_funcs.h"
#include "lj_model.h"
#include "u64map.h"
#include "util.h"

enum { W_INTERVAL, W_LAST, W_SESSION, W_MAX };

/* One function counted in a thread: an identity (lj_funcs.h), or LJ_FN_OTHER. */
struct lj_func {
	uint64_t fn;
	uint64_t self[W_MAX], total[W_MAX], trace[W_MAX];
	uint64_t seen; /* sample number that last counted its total */
};

/* One distinct (host stack, Lua frames) pair of a thread, for stitched stacks. */
struct lj_stack {
	uint32_t ustack_id;
	uint32_t stitched_id; /* the model's stack id once stitched (model_luajit.c), else 0 */
	uint64_t count[W_MAX];
	uint64_t ns[W_MAX]; /* the CPU time its samples stand for: each its interval */
	uint32_t checked;   /* lj_funcs__late when its stitch was last known good */
	uint16_t nr;
	uint64_t frames[]; /* identities (lj_funcs.h), leaf first */
};

struct lj_thread {
	uint32_t pid, tid;
	uint64_t last_ns; /* its latest sample */
	uint8_t fidelity;
	bool agentless; /* its latest sample came from the eBPF unwinder, not the library */
	uint32_t weight_us;
	uint64_t counts[W_MAX][TT_LJ_VMSTATE_MAX];
	uint64_t samples[W_MAX];
	struct u64map *funcs; /* identity + 1 -> struct lj_func */
	size_t nfuncs;
	struct u64map *stacks; /* hash of the pair (probed) -> struct lj_stack */
	size_t nstacks;
};

struct lj_model {
	struct u64map *threads; /* tid -> struct lj_thread */
	struct lj_funcs *funcs; /* the frame tags' functions, named */
	uint64_t nsamples;
	uint64_t last_key; /* the stack pair the latest sample counted in, 0 = none */
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
	lm->funcs = lj_funcs__new();
	return lm;
}

static void thread_free(struct lj_thread *t)
{
	struct lj_func *f;
	size_t pos = 0;
	uint64_t key;

	while (u64map__next(t->funcs, &pos, &key, (void **)&f))
		free(f);
	u64map__free(t->funcs);
	pos = 0;
	while (u64map__next(t->stacks, &pos, &key, (void **)&f))
		free(f);
	u64map__free(t->stacks);
	free(t);
}

void lj_model__free(struct lj_model *lm)
{
	struct lj_thread *t;
	size_t pos = 0;
	uint64_t key;

	if (!lm)
		return;
	while (u64map__next(lm->threads, &pos, &key, (void **)&t))
		thread_free(t);
	u64map__free(lm->threads);
	lj_funcs__free(lm->funcs);
	free(lm);
}

void lj_model__set_budget(struct lj_model *lm, struct dict_budget *b)
{
	lj_funcs__set_budget(lm->funcs, b);
}

static struct lj_func *func_get(struct lj_thread *t, uint64_t fn)
{
	struct lj_func *f = u64map__get(t->funcs, fn + 1);

	if (f)
		return f;
	if (t->nfuncs >= LJ_MODEL_MAX_FUNCS) {
		fn = LJ_FN_OTHER;
		f = u64map__get(t->funcs, fn + 1);
		if (f)
			return f;
	}
	f = xcalloc(1, sizeof(*f));
	f->fn = fn;
	u64map__put(t->funcs, fn + 1, f);
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
			    unsigned nr, uint32_t late, uint64_t ns)
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
	st->checked = late;
	memcpy(st->frames, frames, nr * sizeof(*frames));
	u64map__put(t->stacks, h, st);
	t->nstacks++;
count:
	for (int w = 0; w < W_MAX; w++) {
		st->count[w]++;
		st->ns[w] += ns;
	}
	return h;
}

static void ingest_sample(struct lj_model *lm, const struct tt_luajit_sample *s)
{
	struct lj_thread *t = u64map__get(lm->threads, s->tid);
	uint64_t frames[TT_LJ_MAX_FRAMES];
	bool self_done = false;
	unsigned nframes = 0;

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
	t->fidelity = s->fidelity & TT_LJ_FIDELITY_MASK;
	t->agentless = s->fidelity & TT_LJ_FIDELITY_BPF;
	t->weight_us = s->weight_us;
	for (int w = 0; w < W_MAX; w++) {
		t->counts[w][s->vmstate]++;
		t->samples[w]++;
	}
	for (unsigned i = 0; i < s->nr && i < TT_LJ_MAX_FRAMES; i++) {
		uint64_t ref = lj_funcs__of(lm->funcs, s->pid, s->frames[i]);
		struct lj_func *f;

		frames[nframes++] = ref;
		if (lj_funcs__is_trace(lm->funcs, ref))
			continue; /* the trace pseudo-frame: the function under it is hot */
		f = func_get(t, ref);
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
	lm->last_key = count_stack(t, s->ustack_id, frames, nframes, lj_funcs__late(lm->funcs),
				   (uint64_t)s->weight_us * NSEC_PER_USEC);
}

bool lj_model__func_named(const struct lj_model *lm, uint32_t pid, uint64_t id)
{
	return lj_funcs__announced(lm->funcs, pid, id);
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
		lj_funcs__announce(lm->funcs, (const struct tt_luajit_func *)ev);
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
			st->ns[W_LAST] = st->ns[W_INTERVAL];
			st->count[W_INTERVAL] = st->ns[W_INTERVAL] = 0;
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
						 .agentless = t->agentless,
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
	/* One row per name as known now: a function's samples from before its
	 * name came, and one function in several processes, are one row. */
	while (u64map__next(lm->threads, &pos, &key, (void **)&t)) {
		if ((pid && t->pid != pid) || (tid && t->tid != tid))
			continue;
		fpos = 0;
		while (u64map__next(t->funcs, &fpos, &key, (void **)&f)) {
			uint32_t name_idx = lj_funcs__name(lm->funcs, f->fn);

			if (!f->total[w])
				continue;
			idx = (uint64_t)(uintptr_t)u64map__get(merged, (uint64_t)name_idx + 1);
			if (!idx) {
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					rows = xrealloc(rows, cap * sizeof(*rows));
				}
				rows[n] = (struct lj_func_row){
					.name = lj_funcs__text(lm->funcs, name_idx),
					.ip = lj_frame_ip(f->fn)};
				idx = ++n;
				u64map__put(merged, (uint64_t)name_idx + 1, (void *)(uintptr_t)idx);
			}
			r = &rows[idx - 1];
			/* The least tag of the name: the same row keeps its tag across refreshes. */
			if (lj_frame_ip(f->fn) < r->ip)
				r->ip = lj_frame_ip(f->fn);
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

uint64_t lj_model__thread_top(const struct lj_model *lm, enum model_window window, uint32_t pid,
			      uint32_t tid)
{
	const struct lj_thread *t = lm ? u64map__get(lm->threads, tid) : NULL;
	const struct lj_func *best = NULL;
	int w = win_index(window);
	struct lj_func *f;
	size_t pos = 0;
	uint64_t key;

	if (!t || t->pid != pid || !t->samples[w])
		return 0;
	while (u64map__next(t->funcs, &pos, &key, (void **)&f)) {
		if (!f->self[w])
			continue;
		if (!best || f->self[w] > best->self[w] ||
		    (f->self[w] == best->self[w] &&
		     (f->total[w] > best->total[w] ||
		      (f->total[w] == best->total[w] && f->fn < best->fn))))
			best = f;
	}
	return best ? lj_frame_ip(best->fn) : 0;
}

uint64_t lj_model__samples(const struct lj_model *lm)
{
	return lm->nsamples;
}

/* The identity of Lua frame tag ip (lj_funcs.h); LJ_FN_OTHER when ip is none. */
static uint64_t fn_of_ip(uint64_t ip)
{
	return lj_frame_is_lua(ip) ? ip & ~LJ_FRAME_TAG_MASK : LJ_FN_OTHER;
}

const char *lj_model__frame_name(const struct lj_model *lm, uint64_t ip)
{
	if (!lm || !lj_frame_is_lua(ip))
		return NULL;
	return lj_funcs__text(lm->funcs, lj_funcs__name(lm->funcs, fn_of_ip(ip)));
}

bool lj_model__frame_same(const struct lj_model *lm, uint64_t a, uint64_t b)
{
	if (!lm || !lj_frame_is_lua(a) || !lj_frame_is_lua(b))
		return false;
	return a == b ||
	       lj_funcs__name(lm->funcs, fn_of_ip(a)) == lj_funcs__name(lm->funcs, fn_of_ip(b));
}

bool lj_model__frame_cfunc(const struct lj_model *lm, uint64_t ip)
{
	return lm && lj_funcs__is_cfunc(lm->funcs, fn_of_ip(ip));
}

uint64_t lj_model__frame_addr(const struct lj_model *lm, uint64_t ip)
{
	uint64_t addr = lm ? lj_funcs__addr(lm->funcs, fn_of_ip(ip)) : 0;

	return lj_frame_is_lua(addr) ? 0 : addr;
}

bool lj_model__thread_ran(const struct lj_model *lm, uint32_t tid, uint64_t ip)
{
	const struct lj_thread *t = u64map__get(lm->threads, tid);
	const struct lj_func *f;
	uint32_t name_idx;
	size_t pos = 0;
	uint64_t key;

	if (!t || !lj_frame_is_lua(ip))
		return false;
	f = u64map__get(t->funcs, fn_of_ip(ip) + 1);
	if (f && f->total[W_SESSION])
		return true;
	/* Views merge functions by name (lj_model__functions, the call tree): so does this. */
	name_idx = lj_funcs__name(lm->funcs, fn_of_ip(ip));
	while (u64map__next(t->funcs, &pos, &key, (void **)&f))
		if (f->total[W_SESSION] && lj_funcs__name(lm->funcs, f->fn) == name_idx)
			return true;
	return false;
}

/*
 * Whether a stitched pair must be stitched again: one of its functions was
 * announced after a sample met it, so it was stitched as an address (a C
 * function the library could not name) and may be a Lua function.
 */
static bool stale_stitch(const struct lj_model *lm, struct lj_stack *st)
{
	uint32_t late = lj_funcs__late(lm->funcs);
	bool stale = false;

	if (st->checked == late)
		return false;
	for (unsigned i = 0; i < st->nr && !stale; i++)
		stale = lj_funcs__named_after(lm->funcs, st->frames[i], st->checked);
	st->checked = late;
	return stale;
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
			if (!st->stitched_id) /* stitched with the names of now */
				st->checked = lj_funcs__late(lm->funcs);
			else if (stale_stitch(lm, st))
				st->stitched_id = 0; /* the old stack ages out with the process */
			xgrow((void **)&rows, &cap, n + 1, sizeof(*rows));
			rows[n++] = (struct lj_stack_row){
				.pid = t->pid,
				.tid = t->tid,
				.weight_us = t->weight_us,
				.ustack_id = st->ustack_id,
				.frames = st->frames,
				.nr = st->nr,
				.samples = st->count[w],
				.ns = st->ns[w],
				.stitched_id = &st->stitched_id,
			};
		}
	}
	*ret = rows;
	return (int)n;
}

struct keep_procs {
	struct u64map *pids; /* of the threads left here */
	bool (*proc_alive)(void *arg, uint32_t pid);
	void *arg;
};

static bool keep_proc(void *arg, uint32_t pid)
{
	const struct keep_procs *k = arg;

	return u64map__get(k->pids, pid) || k->proc_alive(k->arg, pid);
}

void lj_model__forget(struct lj_model *lm, uint64_t before_ns,
		      bool (*proc_alive)(void *arg, uint32_t pid), void *arg)
{
	struct keep_procs k = {u64map__new(), proc_alive, arg};
	struct lj_thread *t;
	size_t pos = 0;
	uint64_t key;

	while (u64map__next(lm->threads, &pos, &key, (void **)&t)) {
		if (t->last_ns < before_ns) {
			u64map__remove_at(lm->threads, &pos);
			thread_free(t);
			continue;
		}
		u64map__put(k.pids, t->pid, (void *)1);
	}
	lj_funcs__forget(lm->funcs, keep_proc, &k);
	u64map__free(k.pids);
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
