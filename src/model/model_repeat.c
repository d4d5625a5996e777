// SPDX-License-Identifier: GPL-2.0-only
/*
 * TT_EV_THREAD_REPEAT in the model: threads unchanged since their last
 * sample count as that sample again (its key, labels as they are now; a tid
 * with no sample yet is skipped).
 *
 * On an idle box nearly every thread is repeated on every tick, and the
 * kernel goes through them in the same order each time, in blocks (see
 * struct tt_thread_repeat), so a block's record usually lists exactly the
 * tids of its record of the pass before. Such a record only bumps the count
 * of its block's run; the threads take the run's count (into t->pending,
 * then their key, see model_settle) when the list changes, the second
 * changes, or a reader flushes. Touching 1,000 threads all over the heap 20
 * times a second cost more than the rest of the tick's user-space work; a
 * thread that changes costs the lookups of its block only.
 */
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "util.h"

/*
 * Blocks kept as runs: 4,194,304 threads (Linux's PID_MAX_LIMIT), allocated
 * as blocks come; records of later blocks count at once.
 */
#define MAX_RUNS 32768

struct repeat_run {
	uint32_t *tids;
	uint32_t nr, cap;
	uint32_t pass;	  /* 1 + the pass (m->repeat_pass) that last confirmed the run */
	uint32_t count;	  /* passes that repeated this list, not yet counted */
	uint32_t sec;	  /* the second of those passes (model_sec) */
	uint64_t time_ns; /* the latest of them */
};

static void repeat_thread(struct model *m, struct thread *t, uint32_t n, uint32_t sec,
			  uint64_t time_ns)
{
	/* cur is set with cur_key (model_count_sample): a sample exists. */
	if (!t || t->cur.state == TT_ST_UNKNOWN || !n)
		return;
	t->last_seen_ns = time_ns;
	if (t->cur.labels_id != t->labels_id) { /* labels changed: a new key */
		struct sample_key key = t->cur;

		model_count_sample(m, t, &key, time_ns);
		if (!--n)
			return;
	}
	if (t->pending && t->pending_sec != sec)
		model_settle(t);
	t->pending += n;
	t->pending_sec = sec;
}

/* Counts n repeats of each of the tids; lookups first, so cache misses overlap. */
static void repeat_tids(struct model *m, const uint32_t *tids, uint32_t nr, uint32_t n,
			uint32_t sec, uint64_t time_ns)
{
	enum { CHUNK = 64 };
	struct thread *ts[CHUNK];

	for (uint32_t base = 0; base < nr; base += CHUNK) {
		uint32_t k = nr - base < CHUNK ? nr - base : CHUNK;

		for (uint32_t i = 0; i < k; i++) {
			ts[i] = u64map__get(m->threads, tids[base + i]);
			if (ts[i])
				__builtin_prefetch(ts[i], 1);
		}
		for (uint32_t i = 0; i < k; i++)
			repeat_thread(m, ts[i], n, sec, time_ns);
	}
}

static void flush_run(struct model *m, struct repeat_run *run)
{
	if (run->count)
		repeat_tids(m, run->tids, run->nr, run->count, run->sec, run->time_ns);
	run->count = 0;
}

void model_repeat_ingest(struct model *m, const struct tt_thread_repeat *r)
{
	uint32_t sec = model_sec(m, r->hdr.time_ns);
	struct repeat_run *run;

	if (r->block < MAX_RUNS && r->block >= m->cap_runs) {
		uint32_t n = m->cap_runs ? m->cap_runs : 64;

		while (n <= r->block)
			n *= 2;
		m->runs = xrealloc(m->runs, n * sizeof(*m->runs));
		memset(m->runs + m->cap_runs, 0, (n - m->cap_runs) * sizeof(*m->runs));
		m->cap_runs = n;
	}
	run = r->block < MAX_RUNS ? &m->runs[r->block] : NULL;
	/* Past the runs, or a second record of the block in this pass: counted at once. */
	if (!run || run->pass == m->repeat_pass + 1) {
		repeat_tids(m, r->tids, r->nr, 1, sec, r->hdr.time_ns);
		return;
	}
	run->pass = m->repeat_pass + 1;
	m->stale_flushed = false;
	if (r->block >= m->nr_runs)
		m->nr_runs = r->block + 1;
	if (run->count && run->sec == sec && run->nr == r->nr &&
	    !memcmp(run->tids, r->tids, r->nr * sizeof(*r->tids))) {
		run->count++;
		run->time_ns = r->hdr.time_ns;
		return;
	}
	flush_run(m, run);
	if (r->nr > run->cap) {
		run->cap = r->nr;
		run->tids = xrealloc(run->tids, run->cap * sizeof(*run->tids));
	}
	memcpy(run->tids, r->tids, r->nr * sizeof(*r->tids));
	run->nr = r->nr;
	run->count = 1;
	run->sec = sec;
	run->time_ns = r->hdr.time_ns;
}

/* Runs this pass has not confirmed (so far) are lists of older passes. */
static void flush_stale(struct model *m)
{
	for (uint32_t i = 0; i < m->nr_runs; i++)
		if (m->runs[i].pass != m->repeat_pass + 1)
			flush_run(m, &m->runs[i]);
	m->stale_flushed = true;
}

/*
 * A full sample of a thread: the kernel sends a pass's repeat records before
 * its full samples, and a thread changed in this pass is in none of them, so
 * only the runs this pass has not confirmed can hold it: they are counted
 * before its key changes.
 */
void model_repeat_before_sample(struct model *m)
{
	if (!m->stale_flushed)
		flush_stale(m);
}

/* A pass ended (TT_EV_TICK): the next repeat record is the next pass's first. */
void model_repeat_tick(struct model *m)
{
	flush_stale(m);
	m->repeat_pass++;
	m->stale_flushed = false;
}

void model_repeat_flush(struct model *m)
{
	for (uint32_t i = 0; i < m->nr_runs; i++)
		flush_run(m, &m->runs[i]);
}

void model_repeat_free(struct model *m)
{
	for (uint32_t i = 0; i < m->nr_runs; i++)
		free(m->runs[i].tids);
	free(m->runs);
	m->runs = NULL;
	m->nr_runs = 0;
	m->cap_runs = 0;
}
