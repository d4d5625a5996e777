// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LuaJIT part of the model (see lj_model.h). Samples are counted by
 * function identity, not by name: the library announces a function
 * ("@x.lua:5") before its first sample and names it later, when a caller
 * does ("cmp @x.lua:5"), so a name known when a sample arrives may not be
 * its last. An identity is one function of one process: the library's id
 * for it, from the announcement that opened it. A later announcement of the
 * id either names the same function better (the rename rule, same_function)
 * or opens a new identity: the id was reused (the function was collected, a
 * new session numbers from the start, the pid is another process's), and
 * the old identity keeps its counts and its last name. Names are resolved
 * when asked (lj_model__frame_name, lj_model__functions), so every view
 * names all of a function's samples by the best name known then; rows of
 * one name (one function in several processes) are merged there. Events
 * replay in order, so a recording replays to the same figures.
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

/* One function counted in a thread: an identity, or FN_OTHER. */
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
	uint32_t checked; /* lj_model.named_seq when its stitch was last known good */
	uint16_t nr;
	uint64_t frames[]; /* identities (fn_ref), leaf first */
};

struct lj_thread {
	uint32_t pid, tid;
	uint64_t last_ns; /* its latest sample */
	uint8_t fidelity;
	uint32_t weight_us;
	uint64_t counts[W_MAX][TT_LJ_VMSTATE_MAX];
	uint64_t samples[W_MAX];
	struct u64map *funcs; /* identity + 1 -> struct lj_func */
	size_t nfuncs;
	struct u64map *stacks; /* hash of the pair (probed) -> struct lj_stack */
	size_t nstacks;
};

struct lj_proc {
	struct u64map *names; /* function id -> its current identity (fn_ref) + 1 */
	uint32_t *slots;      /* every identity of the process, for lj_model__forget */
	size_t nr_slots, cap_slots;
	bool dropped; /* a name or an identity did not fit the budget */
};

/*
 * A function identity, in a slot of lj_model.fns. Frame tags, stack pairs
 * and rows hold it as fn_ref: the slot and its generation, so that a slot
 * freed with its process (lj_model__forget) and given to another function
 * does not rename a tag that outlived them ("(other)" then). Bounded by
 * the budget and the tag space.
 */
struct lj_fn {
	uint64_t id;	   /* the library's id; a C function's address when never named */
	uint32_t pid;	   /* charged to it */
	uint32_t name_idx; /* its best name so far, in lj_model.names; LJ_FRAME_IDX_MASK: none */
	uint32_t flags;	   /* TT_LJ_FUNC_*, as announced */
	uint32_t named_at; /* lj_model.named_seq when a sample came before its announcement */
	uint8_t gen;	   /* of the slot: one more each time it is freed */
	bool live;	   /* else free, in lj_model.free_fns */
	bool announced;	   /* else named "lua:0x..." or "[dropped]" until it is */
	bool dropped;	   /* unannounced in a process whose names passed the budget */
};

/* fn_ref of "(other)": no identity (past the budget, out of tags, past the thread's cap). */
#define FN_OTHER ((uint64_t)LJ_FRAME_IDX_MASK)
#define FN_GEN_SHIFT 32

struct lj_model {
	struct u64map *threads; /* tid -> struct lj_thread */
	struct u64map *procs;	/* pid -> struct lj_proc */
	uint64_t nsamples;
	uint64_t last_key; /* the stack pair the latest sample counted in, 0 = none */
	struct lj_fn *fns; /* function identities: the frame tags */
	size_t nr_fns, cap_fns;
	uint32_t *free_fns; /* slots of forgotten processes' identities, to reuse */
	size_t nr_free_fns, cap_free_fns;
	uint32_t named_seq; /* announcements of identities first met in samples */
	/* Every function name once, names of identities: hash (probed) -> index + 1. */
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

	while (u64map__next(t->funcs, &pos, &key, (void **)&f))
		free(f);
	u64map__free(t->funcs);
	pos = 0;
	while (u64map__next(t->stacks, &pos, &key, (void **)&f))
		free(f);
	u64map__free(t->stacks);
	free(t);
}

/* Frees p and its identities' slots (no thread of it is left to name them). */
static void proc_free(struct lj_model *lm, struct lj_proc *p)
{
	for (size_t i = 0; i < p->nr_slots; i++) {
		struct lj_fn *fn = &lm->fns[p->slots[i]];

		dict_budget__give(lm->budget, fn->pid, sizeof(*fn));
		fn->live = false;
		fn->gen++;
		xgrow((void **)&lm->free_fns, &lm->cap_free_fns, lm->nr_free_fns + 1,
		      sizeof(*lm->free_fns));
		lm->free_fns[lm->nr_free_fns++] = p->slots[i];
	}
	free(p->slots);
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
		proc_free(lm, p);
	u64map__free(lm->threads);
	u64map__free(lm->procs);
	for (size_t i = 0; i < lm->nr_names; i++) {
		dict_budget__give(lm->budget, lm->name_pids[i], strlen(lm->names[i]));
		free(lm->names[i]);
	}
	free(lm->fns); /* every identity was its process's: given back there */
	free(lm->free_fns);
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

/* The name of an interned name index: LJ_FRAME_IDX_MASK (and past the table) is "(other)". */
static const char *name_text(const struct lj_model *lm, uint32_t name_idx)
{
	return name_idx < lm->nr_names ? lm->names[name_idx] : "(other)";
}

/* The identity fn_ref ref stands for, or NULL ("(other)", or its slot was freed since). */
static const struct lj_fn *fn_at(const struct lj_model *lm, uint64_t ref)
{
	uint64_t slot = ref & LJ_FRAME_IDX_MASK;

	if (slot >= lm->nr_fns || !lm->fns[slot].live ||
	    lm->fns[slot].gen != (uint8_t)(ref >> FN_GEN_SHIFT))
		return NULL;
	return &lm->fns[slot];
}

/* The name index an identity reads as now. */
static uint32_t fn_name(const struct lj_model *lm, uint64_t ref)
{
	const struct lj_fn *fn = fn_at(lm, ref);

	return fn ? fn->name_idx : LJ_FRAME_IDX_MASK;
}

static uint64_t fn_ref(const struct lj_model *lm, uint32_t slot)
{
	return (uint64_t)lm->fns[slot].gen << FN_GEN_SHIFT | slot;
}

/*
 * A new identity of (pid, id) of process p, named name_idx; its fn_ref, or
 * FN_OTHER when out of tags (events.h) or past the budget.
 */
static uint64_t fn_new(struct lj_model *lm, struct lj_proc *p, uint32_t pid, uint64_t id,
		       uint32_t name_idx)
{
	struct lj_fn *fn;
	uint32_t slot;

	if ((!lm->nr_free_fns && lm->nr_fns > TT_LJ_FRAME_ID_LAST) ||
	    !dict_budget__take(lm->budget, pid, sizeof(*fn)))
		return FN_OTHER;
	if (lm->nr_free_fns) {
		slot = lm->free_fns[--lm->nr_free_fns];
	} else {
		xgrow((void **)&lm->fns, &lm->cap_fns, lm->nr_fns + 1, sizeof(*lm->fns));
		slot = (uint32_t)lm->nr_fns++;
		lm->fns[slot].gen = 0;
	}
	xgrow((void **)&p->slots, &p->cap_slots, p->nr_slots + 1, sizeof(*p->slots));
	p->slots[p->nr_slots++] = slot;
	fn = &lm->fns[slot];
	*fn = (struct lj_fn){
		.id = id, .pid = pid, .name_idx = name_idx, .gen = fn->gen, .live = true};
	return fn_ref(lm, slot);
}

/* "#2 " at the start of s: how the library names the second unnamed function of a line. */
static size_t position_len(const char *s)
{
	size_t i = 1;

	if (s[0] != '#' || s[1] < '0' || s[1] > '9')
		return 0;
	while (s[i] >= '0' && s[i] <= '9')
		i++;
	return s[i] == ' ' ? i + 1 : 0;
}

/*
 * The rename rule: whether the library announcing to (flags to) for an id it
 * announced as from (flags from_flags) names the same function better. It
 * announces a Lua function by where it is ("@x.lua:5", or "#2 @x.lua:5" for
 * the second function starting on that line) and, once a caller names it,
 * with the name in front ("cmp @x.lua:5"); it never renames a named one. So
 * to is a rename when it is a name, a space and from's place. Anything else
 * (another place, another position on the line, another name, other flags)
 * is another function the id was reused for.
 */
static bool same_function(const char *from, uint32_t from_flags, const char *to, uint32_t flags)
{
	const char *place = from + position_len(from);
	size_t n = strlen(to), k = strlen(place);

	if (from_flags != flags || position_len(to) || n < k + 2)
		return false;
	return to[n - k - 1] == ' ' && !strcmp(to + n - k, place);
}

static void ingest_func(struct lj_model *lm, const struct tt_luajit_func *f)
{
	struct lj_proc *p = proc_get(lm, f->pid);
	uint64_t cur = (uint64_t)(uintptr_t)u64map__get(p->names, f->id), ref;
	/* The process's own identities are live. */
	struct lj_fn *fn = cur ? &lm->fns[(cur - 1) & LJ_FRAME_IDX_MASK] : NULL;
	char text[TT_MAX_STRING_LEN + 1];
	uint32_t name_idx;

	snprintf(text, sizeof(text), "%.*s", (int)f->len, f->data);
	/* The library announces every name again each second: nothing new. */
	if (fn && fn->announced && fn->flags == f->flags &&
	    !strcmp(name_text(lm, fn->name_idx), text))
		return;
	/* A process naming fresh ids without end (the probe is theirs to call). */
	name_idx = name_intern(lm, f->pid, text);
	if (name_idx == LJ_FRAME_IDX_MASK) {
		p->dropped = true;
		if (fn && fn->announced)
			u64map__remove(p->names, f->id); /* not the old function's any more */
		return;
	}
	if (fn && !fn->announced) { /* met in samples first: their function */
		fn->named_at = ++lm->named_seq;
	} else if (!fn || !same_function(name_text(lm, fn->name_idx), fn->flags, text, f->flags)) {
		ref = fn_new(lm, p, f->pid, f->id, name_idx);
		if (ref == FN_OTHER) {
			p->dropped = true;
			u64map__remove(p->names, f->id);
			return;
		}
		u64map__put(p->names, f->id, (void *)(uintptr_t)(ref + 1));
		fn = &lm->fns[ref & LJ_FRAME_IDX_MASK];
	}
	fn->name_idx = name_idx;
	fn->flags = f->flags;
	fn->announced = true;
	fn->dropped = false;
}

/*
 * The identity of function id of process p (pid) in a sample: the current
 * one, or a new one read "lua:0x..." ("[dropped]" after names past the
 * budget) until announced. FN_OTHER when none fits.
 */
static uint64_t fn_of(struct lj_model *lm, struct lj_proc *p, uint32_t pid, uint64_t id)
{
	uint64_t cur = (uint64_t)(uintptr_t)u64map__get(p->names, id), ref;
	char unknown[40];

	if (cur)
		return cur - 1;
	if (p->dropped) /* maybe one of the names past the budget */
		snprintf(unknown, sizeof(unknown), "[dropped]");
	else
		snprintf(unknown, sizeof(unknown), "lua:0x%llx", (unsigned long long)id);
	ref = fn_new(lm, p, pid, id, name_intern(lm, pid, unknown));
	if (ref == FN_OTHER)
		return ref;
	lm->fns[ref & LJ_FRAME_IDX_MASK].dropped = p->dropped;
	u64map__put(p->names, id, (void *)(uintptr_t)(ref + 1));
	return ref;
}

static struct lj_func *func_get(struct lj_thread *t, uint64_t fn)
{
	struct lj_func *f = u64map__get(t->funcs, fn + 1);

	if (f)
		return f;
	if (t->nfuncs >= LJ_MODEL_MAX_FUNCS) {
		fn = FN_OTHER;
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
			    unsigned nr, uint32_t named_seq)
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
	st->checked = named_seq;
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
		uint64_t ref = fn_of(lm, p, s->pid, s->frames[i]);
		const struct lj_fn *fn = fn_at(lm, ref);
		struct lj_func *f;

		frames[nframes++] = ref;
		if (fn && fn->announced && (fn->flags & TT_LJ_FUNC_TRACE))
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
	lm->last_key = count_stack(t, s->ustack_id, frames, nframes, lm->named_seq);
}

bool lj_model__func_named(const struct lj_model *lm, uint32_t pid, uint64_t id)
{
	const struct lj_proc *p = u64map__get(lm->procs, pid);
	uint64_t cur = p ? (uint64_t)(uintptr_t)u64map__get(p->names, id) : 0;

	const struct lj_fn *fn = cur ? fn_at(lm, cur - 1) : NULL;

	return p && (p->dropped || (fn && fn->announced));
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
	/* One row per name as known now: a function's samples from before its
	 * name came, and one function in several processes, are one row. */
	while (u64map__next(lm->threads, &pos, &key, (void **)&t)) {
		if ((pid && t->pid != pid) || (tid && t->tid != tid))
			continue;
		fpos = 0;
		while (u64map__next(t->funcs, &fpos, &key, (void **)&f)) {
			uint32_t name_idx = fn_name(lm, f->fn);

			if (!f->total[w])
				continue;
			idx = (uint64_t)(uintptr_t)u64map__get(merged, (uint64_t)name_idx + 1);
			if (!idx) {
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					rows = xrealloc(rows, cap * sizeof(*rows));
				}
				rows[n] = (struct lj_func_row){.name = name_text(lm, name_idx),
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

uint64_t lj_model__samples(const struct lj_model *lm)
{
	return lm->nsamples;
}

const char *lj_model__frame_name(const struct lj_model *lm, uint64_t ip)
{
	if (!lm || !lj_frame_is_lua(ip))
		return NULL;
	return name_text(lm, fn_name(lm, ip & ~LJ_FRAME_TAG_MASK));
}

bool lj_model__frame_same(const struct lj_model *lm, uint64_t a, uint64_t b)
{
	if (!lm || !lj_frame_is_lua(a) || !lj_frame_is_lua(b))
		return false;
	return a == b || fn_name(lm, a & ~LJ_FRAME_TAG_MASK) == fn_name(lm, b & ~LJ_FRAME_TAG_MASK);
}

/* The identity of Lua frame tag ip, or NULL ("(other)", no Lua frame). */
static const struct lj_fn *fn_of_ip(const struct lj_model *lm, uint64_t ip)
{
	return lm && lj_frame_is_lua(ip) ? fn_at(lm, ip & ~LJ_FRAME_TAG_MASK) : NULL;
}

bool lj_model__frame_cfunc(const struct lj_model *lm, uint64_t ip)
{
	const struct lj_fn *fn = fn_of_ip(lm, ip);

	/* An id the library never named is a C function it could not name (pmain). */
	return fn && (!fn->announced || (fn->flags & TT_LJ_FUNC_C));
}

uint64_t lj_model__frame_addr(const struct lj_model *lm, uint64_t ip)
{
	const struct lj_fn *fn = fn_of_ip(lm, ip);

	return fn && !fn->announced && !fn->dropped && !lj_frame_is_lua(fn->id) ? fn->id : 0;
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
	f = u64map__get(t->funcs, (ip & ~LJ_FRAME_TAG_MASK) + 1);
	if (f && f->total[W_SESSION])
		return true;
	/* Views merge functions by name (lj_model__functions, the call tree): so does this. */
	name_idx = fn_name(lm, ip & ~LJ_FRAME_TAG_MASK);
	while (u64map__next(t->funcs, &pos, &key, (void **)&f))
		if (f->total[W_SESSION] && fn_name(lm, f->fn) == name_idx)
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
	bool stale = false;

	if (st->checked == lm->named_seq)
		return false;
	for (unsigned i = 0; i < st->nr && !stale; i++) {
		const struct lj_fn *fn = fn_at(lm, st->frames[i]);

		stale = fn && fn->named_at > st->checked;
	}
	st->checked = lm->named_seq;
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
			if (!st->stitched_id)
				st->checked = lm->named_seq; /* stitched with the names of now */
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
			proc_free(lm, p);
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
