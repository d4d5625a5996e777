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
 * then their key, see model_settle) when the list changes, a third second
 * begins, or a reader flushes (the interval's end). Touching 1,000 threads
 * all over the heap 20 times a second cost more than the rest of the tick's
 * user-space work; a thread that changes costs the lookups of its block
 * only.
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

/* Passes of a run in one second, not yet counted. */
struct run_part {
	uint32_t count;	  /* the passes */
	uint32_t sec;	  /* their second (model_sec) */
	uint64_t time_ns; /* the latest of them */
};

struct repeat_run {
	uint32_t *tids;
	/*
	 * The threads of tids, looked up once per list: on an idle box the
	 * lists stay, and a hash look-up per thread a second was a tenth of
	 * the TUI's CPU beside 100,000 threads. Valid while ts_freed is
	 * 1 + m->threads_freed (no thread freed since) and, if the list has
	 * tids with no thread (ts_nulls), ts_added is m->threads_added.
	 */
	struct thread **ts;
	uint64_t ts_freed, ts_added;
	uint32_t ts_nulls;
	uint32_t nr, cap;
	uint32_t pass; /* 1 + the pass (m->repeat_pass) that last confirmed the run */
	/*
	 * Passes that repeated this list, not yet counted, of two seconds at
	 * most: a new second does not make every thread take its run's count
	 * then, only the interval's end (or a reader) does, the one walk a
	 * second. prev.count is 0 unless cur.count is not.
	 */
	struct run_part prev, cur;
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
		model_settle(m, t);
	t->pending += n;
	t->pending_sec = sec;
}

/*
 * Counts the repeats of the parts (older first; a part of count 0 is none)
 * for each of the threads (NULL: no such thread), and with settle moves
 * them into the thread's key at once, while it is in the cache. The threads
 * are asked for ahead, the first line and, for a settle, the line of key0
 * and its ring's slot, so that the cache misses overlap.
 */
static void repeat_threads(struct model *m, struct thread *const *ts, uint32_t nr,
			   const struct run_part *older, const struct run_part *newer, bool settle)
{
	enum { AHEAD = 48 };

	for (uint32_t i = 0; i < nr; i++) {
		if (i + AHEAD < nr && ts[i + AHEAD]) {
			const struct thread *a = ts[i + AHEAD];

			__builtin_prefetch(a, 1);
			if (settle) {
				__builtin_prefetch(&a->key0, 1);
				__builtin_prefetch(&a->ring0[newer->sec % MINUTE_SLOTS], 1);
			}
		}
		if (older->count)
			repeat_thread(m, ts[i], older->count, older->sec, older->time_ns);
		repeat_thread(m, ts[i], newer->count, newer->sec, newer->time_ns);
		if (settle && ts[i])
			model_settle(m, ts[i]);
	}
}

/* Counts one repeat of each of the tids, looked up a chunk at a time. */
static void repeat_tids(struct model *m, const uint32_t *tids, uint32_t nr, uint32_t sec,
			uint64_t time_ns)
{
	enum { CHUNK = 64 };
	const struct run_part none = {0}, one = {1, sec, time_ns};
	struct thread *ts[CHUNK];

	for (uint32_t base = 0; base < nr; base += CHUNK) {
		uint32_t k = nr - base < CHUNK ? nr - base : CHUNK;

		for (uint32_t i = 0; i < k; i++)
			ts[i] = u64map__get(m->threads, tids[base + i]);
		repeat_threads(m, ts, k, &none, &one, false);
	}
}

static void flush_run(struct model *m, struct repeat_run *run, bool settle)
{
	if (!run->cur.count)
		return;
	if (run->ts_freed != m->threads_freed + 1 ||
	    (run->ts_nulls && run->ts_added != m->threads_added)) {
		run->ts_nulls = 0;
		for (uint32_t i = 0; i < run->nr; i++) {
			run->ts[i] = u64map__get(m->threads, run->tids[i]);
			run->ts_nulls += !run->ts[i];
		}
		run->ts_freed = m->threads_freed + 1;
		run->ts_added = m->threads_added;
	}
	repeat_threads(m, run->ts, run->nr, &run->prev, &run->cur, settle);
	run->prev.count = 0;
	run->cur.count = 0;
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
		repeat_tids(m, r->tids, r->nr, sec, r->hdr.time_ns);
		return;
	}
	run->pass = m->repeat_pass + 1;
	m->stale_flushed = false;
	if (r->block >= m->nr_runs)
		m->nr_runs = r->block + 1;
	/* The same list (counted or flushed by a reader since): its threads stay cached. */
	if (run->nr == r->nr && !memcmp(run->tids, r->tids, r->nr * sizeof(*r->tids))) {
		if (run->cur.count && run->cur.sec == sec) {
			run->cur.count++;
			run->cur.time_ns = r->hdr.time_ns;
			return;
		}
		if (run->cur.count && !run->prev.count && sec > run->cur.sec) {
			run->prev = run->cur; /* the old second waits beside the new one */
		} else {
			flush_run(m, run, false);
		}
		run->cur = (struct run_part){1, sec, r->hdr.time_ns};
		return;
	}
	flush_run(m, run, false);
	if (r->nr > run->cap) {
		run->cap = r->nr;
		run->tids = xrealloc(run->tids, run->cap * sizeof(*run->tids));
		run->ts = xrealloc(run->ts, run->cap * sizeof(*run->ts));
	}
	memcpy(run->tids, r->tids, r->nr * sizeof(*r->tids));
	run->nr = r->nr;
	run->ts_freed = 0; /* a new list: its threads are looked up at its first flush */
	run->cur = (struct run_part){1, sec, r->hdr.time_ns};
}

/* Runs this pass has not confirmed (so far) are lists of older passes. */
static void flush_stale(struct model *m)
{
	for (uint32_t i = 0; i < m->nr_runs; i++)
		if (m->runs[i].pass != m->repeat_pass + 1)
			flush_run(m, &m->runs[i], false);
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
		flush_run(m, &m->runs[i], false);
}

/* At an interval's end: the threads' counts are settled as they are flushed. */
void model_repeat_flush_settled(struct model *m)
{
	for (uint32_t i = 0; i < m->nr_runs; i++)
		flush_run(m, &m->runs[i], true);
}

void model_repeat_free(struct model *m)
{
	for (uint32_t i = 0; i < m->nr_runs; i++) {
		free(m->runs[i].tids);
		free(m->runs[i].ts);
	}
	free(m->runs);
	m->runs = NULL;
	m->nr_runs = 0;
	m->cap_runs = 0;
}
