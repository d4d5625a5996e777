// SPDX-License-Identifier: GPL-2.0-only
/*
 * What ages out of the model besides threads (model.c forgets those unseen
 * for the retention time): stacks. On a churning box every new process
 * brings new user stacks (their ids include the process) and the sources'
 * dedup sets, emptied from time to time, send live stacks again under new
 * ids; kept for the session, they were the model's one structure growing
 * without end (270 a second with a fork storm beside 2,000 threads).
 *
 * A stack goes when nothing can name it any more: no thread in the table
 * (sample keys, on- and off-CPU stacks) and no LuaJIT stack row names it, a
 * user stack's process has no thread left, and it is past the sources' id
 * horizon (events.h, TT_STACK_ID_HORIZON), so no record still to come can
 * carry its id. The LuaJIT model's threads go after the same retention,
 * the function names of a process when it has no thread left, and the
 * stacks stitched for them with them. Every window stays true: a thread is forgotten only after the
 * retention time, and its stacks only after it.
 *
 * Strings (command lines, wait channels, user names) go when their source
 * has retired them (events.h, struct tt_string: no record to come names
 * them) and no thread or process record in the model names them: on a
 * churning box every new command line is a new string.
 */
#include <stdlib.h>

#include "dict_budget.h"
#include "model_internal.h"
#include "util.h"

/* Model time between two passes: each walks every thread and stack. */
#define AGE_EVERY_NS (10 * NSEC_PER_SEC)

enum { SPACE_KERNEL, SPACE_USER, SPACE_NONE };

/* The id space of a stream stack id, and its offset in it (+1: 0 = none seen). */
static int space_of(uint32_t id, uint32_t *ret_off)
{
	if (id >= TT_KSTACK_ID_BASE && id <= TT_KSTACK_ID_LAST) {
		*ret_off = id - TT_KSTACK_ID_BASE + 1;
		return SPACE_KERNEL;
	}
	if (id >= TT_USER_STACK_ID_BASE && id <= TT_USER_STACK_ID_LAST) {
		*ret_off = id - TT_USER_STACK_ID_BASE + 1;
		return SPACE_USER;
	}
	return SPACE_NONE; /* the model's own (stitched LuaJIT stacks): not aged here */
}

void model_age_stack_seen(struct model *m, uint32_t id)
{
	uint32_t off;
	int sp = space_of(id, &off);

	if (sp != SPACE_NONE && off > m->stack_newest[sp])
		m->stack_newest[sp] = off;
}

static void mark(void *arg, uint32_t id)
{
	if (id)
		u64map__put(arg, id, (void *)1);
}

/*
 * Whether stack st may go: a stream stack past the horizon lim (the newest
 * ids one interval end ago); a stitched LuaJIT stack at once (only LuaJIT
 * rows keep its id, and refs has those).
 */
static bool past_horizon(const struct tt_stack *st, const uint32_t *lim)
{
	uint32_t off;
	int sp = space_of(st->id, &off);

	if (sp == SPACE_NONE)
		return st->id >= TT_LJ_STACK_ID_BASE;
	return lim[sp] >= TT_STACK_ID_HORIZON && off <= lim[sp] - TT_STACK_ID_HORIZON;
}

void model_age_string_retired(struct model *m, uint32_t id)
{
	if (!id || !u64map__get(m->strings, id))
		return;
	if (!m->strings_retired)
		m->strings_retired = u64map__new();
	u64map__put(m->strings_retired, id, (void *)1);
}

/* The strings thread t names: its command line, its samples' wait channels and fd targets. */
static void mark_strings(struct u64map *refs, const struct thread *t)
{
	mark(refs, t->cmdline_id);
	mark(refs, t->cur.wchan_id);
	mark(refs, t->cur.target_id);
	for (size_t i = 0; i < t->nr_keys; i++) {
		mark(refs, t->keys[i].key.wchan_id);
		mark(refs, t->keys[i].key.target_id);
	}
}

/* Forgets the retired strings nothing names (threads: srefs; processes: their users). */
static void age_strings(struct model *m, struct u64map *srefs)
{
	size_t pos = 0;
	uint64_t id;
	void *v;
	char *s;

	model_procs_strings(m, mark, srefs);
	while (u64map__next(m->strings_retired, &pos, &id, &v)) {
		if (u64map__get(srefs, id))
			continue;
		u64map__remove_at(m->strings_retired, &pos);
		s = u64map__remove(m->strings, id);
		if (!s)
			continue;
		dict_budget__give(m->budget, 0, strlen(s));
		free(s);
		m->strings_aged++;
	}
}

/* The LuaJIT model's question: has process pid a thread in the table (pids)? */
static bool proc_alive(void *arg, uint32_t pid)
{
	return u64map__get(arg, pid);
}

void model_age_end_interval(struct model *m, uint64_t now_ns)
{
	/* Ids newer than the horizon at the previous interval end may still come. */
	uint32_t lim[2] = {m->stack_horizon[0], m->stack_horizon[1]};
	struct u64map *refs, *pids, *srefs = NULL;
	struct thread *t;
	struct tt_stack *st;
	uint64_t key;
	size_t pos = 0;

	m->stack_horizon[0] = m->stack_newest[0];
	m->stack_horizon[1] = m->stack_newest[1];
	if (m->stacks_aged_at_ns && now_ns - m->stacks_aged_at_ns < AGE_EVERY_NS)
		return;
	m->stacks_aged_at_ns = now_ns;
	refs = u64map__new();
	pids = u64map__new();
	if (m->strings_retired && u64map__count(m->strings_retired))
		srefs = u64map__new();
	while (model_thread_next(m, &pos, &t)) {
		u64map__put(pids, t->pid, (void *)1);
		if (srefs)
			mark_strings(srefs, t);
		for (size_t i = 0; i < t->nr_keys; i++) {
			mark(refs, t->keys[i].key.kstack_id);
			mark(refs, t->keys[i].key.ustack_id);
		}
		trace_thread_stacks(t->trace, mark, refs);
	}
	/* LuaJIT threads and names go with the model's threads and processes. */
	lj_model__forget(m->lj, now_ns > m->opts.retain_ns ? now_ns - m->opts.retain_ns : 0,
			 proc_alive, pids);
	lj_model__ustacks(m->lj, mark, refs);
	pos = 0;
	while (u64map__next(m->stacks, &pos, &key, (void **)&st)) {
		if (!past_horizon(st, lim) || u64map__get(refs, st->id) ||
		    (st->pid && u64map__get(pids, st->pid)))
			continue;
		u64map__remove_at(m->stacks, &pos);
		dict_budget__give(m->budget, st->pid, st->hdr.size);
		free(st);
		m->stacks_aged++;
		m->stacks_gone++;
	}
	u64map__free(refs);
	u64map__free(pids);
	if (srefs)
		age_strings(m, srefs);
	u64map__free(srefs);
}
