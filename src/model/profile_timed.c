// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timed samples of a profile (see profile_add_timed in profile.h): each
 * entry of the model's ring (model_timed.h) in the window is matched to the
 * profile sample of its thread and stacks, so a time-ordered view shows the
 * very frames, and adds up to the very totals, of the sampled one. An entry
 * that matches no sample (its thread aged out, or the filter left it out)
 * is left out.
 */
#include <stdlib.h>

#include "hash.h"
#include "model_internal.h"
#include "model_timed.h"
#include "profile.h"
#include "u64map.h"
#include "util.h"

/* What tells one on-CPU sample of a profile from another. */
struct timed_key {
	uint32_t pid, tid;
	uint32_t kstack_id, ustack_id;
	uint32_t labels_id;
	uint32_t labels_unknown;
};

static uint64_t key_hash(const struct timed_key *k)
{
	uint64_t h = hash_word(HASH_INIT, (uint64_t)k->pid << 32 | k->tid);

	h = hash_word(h, (uint64_t)k->kstack_id << 32 | k->ustack_id);
	h = hash_word(h, (uint64_t)k->labels_id << 32 | k->labels_unknown);
	return h ? h : 1;
}

static bool key_is(const struct profile_sample *s, const struct timed_key *k)
{
	return s->pid == k->pid && s->tid == k->tid && s->kstack_id == k->kstack_id &&
	       s->ustack_id == k->ustack_id && s->labels_id == k->labels_id &&
	       s->labels_unknown == (bool)k->labels_unknown;
}

/* The on-CPU samples of p by key: hash (probed) -> index + 1. */
static struct u64map *index_samples(const struct profile *p)
{
	struct u64map *idx = u64map__new();

	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];
		struct timed_key k = {s->pid,	    s->tid,	  s->kstack_id,
				      s->ustack_id, s->labels_id, s->labels_unknown};
		uint64_t h = key_hash(&k);

		if (s->kind != PROFILE_ONCPU || !s->count)
			continue;
		while (u64map__get(idx, h))
			h = h + 1 ? h + 1 : 1;
		u64map__put(idx, h, (void *)(uintptr_t)(i + 1));
	}
	return idx;
}

static size_t find_sample(const struct profile *p, const struct u64map *idx,
			  const struct timed_key *k)
{
	for (uint64_t h = key_hash(k);; h = h + 1 ? h + 1 : 1) {
		size_t i = (size_t)(uintptr_t)u64map__get(idx, h);

		if (!i)
			return SIZE_MAX;
		if (key_is(&p->samples[i - 1], k))
			return i - 1;
	}
}

/* A timed sample while sorting: its thread, then time, then arrival. */
struct sort_entry {
	uint32_t pid, tid;
	uint64_t time_ns, ns;
	size_t seq;
	uint32_t sample;
};

static int cmp_entries(const void *a, const void *b)
{
	const struct sort_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static uint64_t window_start(const struct model *m, enum model_window window)
{
	switch (window) {
	case WIN_INTERVAL:
		return m->interval_start_ns;
	case WIN_LAST:
		return m->last_start_ns;
	default:
		return m->session_start_ns;
	}
}

void profile_add_timed(struct model *m, struct profile *p, enum model_window window,
		       const struct u64map *lj_tids)
{
	const struct model_timed_ring *r = model__timed(m);
	struct sort_entry *out = NULL;
	uint64_t *given;
	struct u64map *idx;
	size_t nr = 0, cap = 0;

	p->timed_start_ns = window_start(m, window);
	p->timed_complete = model_timed__complete(r, window, m->intervals);
	if (!r->nr || !(p->kinds & (1u << PROFILE_ONCPU)))
		return;
	idx = index_samples(p);
	for (size_t i = 0; i < r->nr; i++) {
		const struct model_timed *e = model_timed__at(r, i);
		bool lj_thread = u64map__get(lj_tids, e->tid) != NULL;
		struct timed_key k = {e->pid,	    e->tid,	  e->kstack_id,
				      e->ustack_id, e->labels_id, !e->labels_known};
		size_t s;

		if (!model_timed__in_window(e, window, m->intervals))
			continue;
		/* A LuaJIT thread's samples are its sysprof ones, stitched (profile.c). */
		if (lj_thread != (e->lj_key != 0))
			continue;
		if (e->lj_key) {
			k.kstack_id = 0;
			k.ustack_id =
				lj_model__stitched_id(model__luajit(m), e->pid, e->tid, e->lj_key);
			k.labels_id = 0;
			k.labels_unknown = 1;
		}
		s = find_sample(p, idx, &k);
		if (s == SIZE_MAX)
			continue;
		xgrow((void **)&out, &cap, nr + 1, sizeof(*out));
		out[nr] = (struct sort_entry){
			e->pid,	    e->tid,
			e->time_ns, 0, /* its share of its stack's time, once in time order */
			i,	    (uint32_t)s,
		};
		nr++;
	}
	u64map__free(idx);
	if (nr)
		qsort(out, nr, sizeof(*out), cmp_entries);
	/*
	 * A sample stands for an equal share of its stack's time (a LuaJIT
	 * stack's time is on the CPU clock: model__oncpu_stacks), the first
	 * ns % taken of them a nanosecond more, so that a stack's samples add up
	 * to its time to the nanosecond.
	 */
	given = nr ? xcalloc(p->nr_samples, sizeof(*given)) : NULL;
	for (size_t i = 0; i < nr; i++) {
		const struct profile_sample *ps = &p->samples[out[i].sample];

		if (ps->taken)
			out[i].ns =
				ps->ns / ps->taken + (given[out[i].sample]++ < ps->ns % ps->taken);
	}
	free(given);
	p->timed = nr ? xmalloc(nr * sizeof(*p->timed)) : NULL;
	for (size_t i = 0; i < nr; i++)
		p->timed[i] = (struct profile_timed){out[i].time_ns, out[i].ns, out[i].sample};
	p->nr_timed = nr;
	free(out);
}
