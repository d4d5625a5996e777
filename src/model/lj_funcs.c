// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Lua functions of the LuaJIT model and their names (see lj_funcs.h):
 * identities in slots, reused once their process is forgotten; per
 * process, the library's ids to their current identity; every name once,
 * interned, for as long as the model lives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dict_budget.h"
#include "lj_funcs.h"
#include "u64map.h"
#include "util.h"

#define GEN_SHIFT 32

/* A function identity, in a slot of lj_funcs.fns. */
struct lj_fn {
	uint64_t id;	   /* the library's id; a C function's address when never named */
	uint32_t pid;	   /* charged to it */
	uint32_t name_idx; /* its best name so far, in lj_funcs.names; LJ_FN_NO_NAME: none */
	uint32_t flags;	   /* TT_LJ_FUNC_*, as announced */
	uint32_t named_at; /* lj_funcs.late when a sample came before its announcement */
	uint8_t gen;	   /* of the slot: one more each time it is freed */
	bool live;	   /* else free, in lj_funcs.free_slots */
	bool announced;	   /* else named "lua:0x..." or "[dropped]" until it is */
	bool dropped;	   /* unannounced in a process whose names passed the budget */
};

struct lj_proc {
	struct u64map *ids; /* function id -> its current identity (ref) + 1 */
	uint32_t *slots;    /* every identity of the process, for lj_funcs__forget */
	size_t nr_slots, cap_slots;
	bool dropped; /* a name or an identity did not fit the budget */
};

struct lj_funcs {
	struct u64map *procs; /* pid -> struct lj_proc */
	struct lj_fn *fns;
	size_t nr_fns, cap_fns;
	uint32_t *free_slots; /* of forgotten processes' identities, to reuse */
	size_t nr_free, cap_free;
	uint32_t late; /* announcements of identities met in samples first */
	/* Every name once: hash (probed) -> index + 1. */
	struct u64map *name_index;
	char **names;
	uint32_t *name_pids; /* the process each name was charged to */
	size_t nr_names, cap_names, cap_name_pids;
	struct dict_budget *budget; /* not owned, or NULL */
};

struct lj_funcs *lj_funcs__new(void)
{
	struct lj_funcs *fs = xcalloc(1, sizeof(*fs));

	fs->procs = u64map__new();
	fs->name_index = u64map__new();
	return fs;
}

/* Frees p and its identities' slots (no thread of it is left to name them). */
static void proc_free(struct lj_funcs *fs, struct lj_proc *p)
{
	for (size_t i = 0; i < p->nr_slots; i++) {
		struct lj_fn *fn = &fs->fns[p->slots[i]];

		dict_budget__give(fs->budget, fn->pid, sizeof(*fn));
		fn->live = false;
		fn->gen++;
		xgrow((void **)&fs->free_slots, &fs->cap_free, fs->nr_free + 1,
		      sizeof(*fs->free_slots));
		fs->free_slots[fs->nr_free++] = p->slots[i];
	}
	free(p->slots);
	u64map__free(p->ids);
	free(p);
}

void lj_funcs__free(struct lj_funcs *fs)
{
	struct lj_proc *p;
	size_t pos = 0;
	uint64_t key;

	if (!fs)
		return;
	while (u64map__next(fs->procs, &pos, &key, (void **)&p))
		proc_free(fs, p);
	u64map__free(fs->procs);
	for (size_t i = 0; i < fs->nr_names; i++) {
		dict_budget__give(fs->budget, fs->name_pids[i], strlen(fs->names[i]));
		free(fs->names[i]);
	}
	free(fs->fns); /* every identity was its process's: given back there */
	free(fs->free_slots);
	free(fs->names);
	free(fs->name_pids);
	u64map__free(fs->name_index);
	free(fs);
}

void lj_funcs__set_budget(struct lj_funcs *fs, struct dict_budget *b)
{
	fs->budget = b;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h ? h : 1;
}

/* The index of name in the name table, added when new (charged to pid). */
static uint32_t name_intern(struct lj_funcs *fs, uint32_t pid, const char *name)
{
	uint64_t h = name_hash(name);
	size_t idx;

	for (;; h++) {
		idx = (size_t)(uintptr_t)u64map__get(fs->name_index, h);
		if (!idx)
			break;
		if (!strcmp(fs->names[idx - 1], name))
			return (uint32_t)(idx - 1);
	}
	if (fs->nr_names > TT_LJ_FRAME_ID_LAST)
		return LJ_FN_NO_NAME; /* out of indices: named "(other)" */
	if (!dict_budget__take(fs->budget, pid, strlen(name)))
		return LJ_FN_NO_NAME; /* past the budget: named "(other)" too */
	xgrow((void **)&fs->names, &fs->cap_names, fs->nr_names + 1, sizeof(*fs->names));
	xgrow((void **)&fs->name_pids, &fs->cap_name_pids, fs->nr_names + 1,
	      sizeof(*fs->name_pids));
	fs->names[fs->nr_names] = xstrdup(name);
	fs->name_pids[fs->nr_names] = pid;
	u64map__put(fs->name_index, h, (void *)(uintptr_t)(fs->nr_names + 1));
	return (uint32_t)fs->nr_names++;
}

const char *lj_funcs__text(const struct lj_funcs *fs, uint32_t name_idx)
{
	return name_idx < fs->nr_names ? fs->names[name_idx] : "(other)";
}

static struct lj_proc *proc_get(struct lj_funcs *fs, uint32_t pid)
{
	struct lj_proc *p = u64map__get(fs->procs, pid);

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->ids = u64map__new();
		u64map__put(fs->procs, pid, p);
	}
	return p;
}

/* The identity ref stands for, or NULL (LJ_FN_OTHER, or its slot was freed since). */
static const struct lj_fn *fn_at(const struct lj_funcs *fs, uint64_t ref)
{
	uint64_t slot = ref & LJ_FN_OTHER;

	if (slot >= fs->nr_fns || !fs->fns[slot].live ||
	    fs->fns[slot].gen != (uint8_t)(ref >> GEN_SHIFT))
		return NULL;
	return &fs->fns[slot];
}

/* The current identity of id in p, or NULL. */
static struct lj_fn *fn_current(struct lj_funcs *fs, const struct lj_proc *p, uint64_t id)
{
	uint64_t cur = (uint64_t)(uintptr_t)u64map__get(p->ids, id);

	return cur ? &fs->fns[(cur - 1) & LJ_FN_OTHER] : NULL; /* the process's own: live */
}

/*
 * A new identity of function id of process p (pid), named name_idx; its
 * ref, or LJ_FN_OTHER when out of slots (events.h) or past the budget.
 */
static uint64_t fn_new(struct lj_funcs *fs, struct lj_proc *p, uint32_t pid, uint64_t id,
		       uint32_t name_idx)
{
	struct lj_fn *fn;
	uint32_t slot;

	if ((!fs->nr_free && fs->nr_fns > TT_LJ_FRAME_ID_LAST) ||
	    !dict_budget__take(fs->budget, pid, sizeof(*fn)))
		return LJ_FN_OTHER;
	if (fs->nr_free) {
		slot = fs->free_slots[--fs->nr_free];
	} else {
		xgrow((void **)&fs->fns, &fs->cap_fns, fs->nr_fns + 1, sizeof(*fs->fns));
		slot = (uint32_t)fs->nr_fns++;
		fs->fns[slot].gen = 0;
	}
	xgrow((void **)&p->slots, &p->cap_slots, p->nr_slots + 1, sizeof(*p->slots));
	p->slots[p->nr_slots++] = slot;
	fn = &fs->fns[slot];
	*fn = (struct lj_fn){
		.id = id, .pid = pid, .name_idx = name_idx, .gen = fn->gen, .live = true};
	u64map__put(p->ids, id, (void *)(uintptr_t)(((uint64_t)fn->gen << GEN_SHIFT | slot) + 1));
	return (uint64_t)fn->gen << GEN_SHIFT | slot;
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

void lj_funcs__announce(struct lj_funcs *fs, const struct tt_luajit_func *f)
{
	struct lj_proc *p = proc_get(fs, f->pid);
	struct lj_fn *fn = fn_current(fs, p, f->id);
	char text[TT_MAX_STRING_LEN + 1];
	uint32_t name_idx;
	uint64_t ref;

	snprintf(text, sizeof(text), "%.*s", (int)f->len, f->data);
	/* The library announces every name again each second: nothing new. */
	if (fn && fn->announced && fn->flags == f->flags &&
	    !strcmp(lj_funcs__text(fs, fn->name_idx), text))
		return;
	/* A process naming fresh ids without end (the probe is theirs to call). */
	name_idx = name_intern(fs, f->pid, text);
	if (name_idx == LJ_FN_NO_NAME) {
		p->dropped = true;
		if (fn && fn->announced)
			u64map__remove(p->ids, f->id); /* not the old function's any more */
		return;
	}
	if (fn && !fn->announced) { /* met in samples first: their function */
		fn->named_at = ++fs->late;
	} else if (!fn ||
		   !same_function(lj_funcs__text(fs, fn->name_idx), fn->flags, text, f->flags)) {
		ref = fn_new(fs, p, f->pid, f->id, name_idx);
		if (ref == LJ_FN_OTHER) {
			p->dropped = true;
			u64map__remove(p->ids, f->id);
			return;
		}
		fn = &fs->fns[ref & LJ_FN_OTHER];
	}
	fn->name_idx = name_idx;
	fn->flags = f->flags;
	fn->announced = true;
	fn->dropped = false;
}

uint64_t lj_funcs__of(struct lj_funcs *fs, uint32_t pid, uint64_t id)
{
	struct lj_proc *p = proc_get(fs, pid);
	uint64_t cur = (uint64_t)(uintptr_t)u64map__get(p->ids, id), ref;
	char unknown[40];

	if (cur)
		return cur - 1;
	if (p->dropped) /* maybe one of the names past the budget */
		snprintf(unknown, sizeof(unknown), "[dropped]");
	else
		snprintf(unknown, sizeof(unknown), "lua:0x%llx", (unsigned long long)id);
	ref = fn_new(fs, p, pid, id, name_intern(fs, pid, unknown));
	if (ref != LJ_FN_OTHER)
		fs->fns[ref & LJ_FN_OTHER].dropped = p->dropped;
	return ref;
}

uint32_t lj_funcs__name(const struct lj_funcs *fs, uint64_t ref)
{
	const struct lj_fn *fn = fn_at(fs, ref);

	return fn ? fn->name_idx : LJ_FN_NO_NAME;
}

bool lj_funcs__is_trace(const struct lj_funcs *fs, uint64_t ref)
{
	const struct lj_fn *fn = fn_at(fs, ref);

	return fn && fn->announced && (fn->flags & TT_LJ_FUNC_TRACE);
}

bool lj_funcs__is_cfunc(const struct lj_funcs *fs, uint64_t ref)
{
	const struct lj_fn *fn = fn_at(fs, ref);

	/* An id the library never named is a C function it could not name (pmain). */
	return fn && (!fn->announced || (fn->flags & TT_LJ_FUNC_C));
}

uint64_t lj_funcs__addr(const struct lj_funcs *fs, uint64_t ref)
{
	const struct lj_fn *fn = fn_at(fs, ref);

	return fn && !fn->announced && !fn->dropped ? fn->id : 0;
}

bool lj_funcs__announced(const struct lj_funcs *fs, uint32_t pid, uint64_t id)
{
	const struct lj_proc *p = u64map__get(fs->procs, pid);
	uint64_t cur = p ? (uint64_t)(uintptr_t)u64map__get(p->ids, id) : 0;
	const struct lj_fn *fn = cur ? fn_at(fs, cur - 1) : NULL;

	return p && (p->dropped || (fn && fn->announced));
}

uint32_t lj_funcs__late(const struct lj_funcs *fs)
{
	return fs->late;
}

bool lj_funcs__named_after(const struct lj_funcs *fs, uint64_t ref, uint32_t seq)
{
	const struct lj_fn *fn = fn_at(fs, ref);

	return fn && fn->named_at > seq;
}

void lj_funcs__forget(struct lj_funcs *fs, bool (*keep)(void *arg, uint32_t pid), void *arg)
{
	struct lj_proc *p;
	size_t pos = 0;
	uint64_t key;

	while (u64map__next(fs->procs, &pos, &key, (void **)&p)) {
		if (!keep(arg, (uint32_t)key)) {
			u64map__remove_at(fs->procs, &pos);
			proc_free(fs, p);
		}
	}
}
