// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for TT_EV_THREAD_REPEAT in the model: a thread repeated from
 * its last sample counts exactly as if the full sample had come again; a
 * repeat of an unknown thread is ignored; repeated threads still age out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "util.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)
#define TICK (SEC / 20)

static void sample(struct model *m, uint64_t t, uint32_t tid, enum tt_state state, int syscall,
		   uint32_t kstack, uint64_t cpu_ns)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = 10,
		.tid = tid,
		.start_time_ns = 1,
		.cpu_time_ns = cpu_ns,
		.weight_us = 50000, /* 20 Hz */
		.syscall_nr = syscall,
		.kstack_id = kstack,
		.state = (uint8_t)state,
	};

	strcpy(s.comm, "sleeper");
	model__ingest(m, &s.hdr);
}

/* A repeat record of the sender's block block. */
static void repeat_block(struct model *m, uint64_t t, uint32_t block, const uint32_t *tids,
			 uint32_t nr)
{
	union {
		struct tt_thread_repeat r;
		unsigned char buf[sizeof(struct tt_thread_repeat) + 8 * sizeof(uint32_t)];
	} u = {0};

	assert_true(nr <= 8);
	u.r.hdr = (struct tt_event_header){TT_EV_THREAD_REPEAT, TT_THREAD_REPEAT_VERSION,
					   (uint32_t)(sizeof(u.r) + nr * sizeof(uint32_t)), t};
	u.r.nr = nr;
	u.r.block = block;
	memcpy(u.r.tids, tids, nr * sizeof(uint32_t));
	model__ingest(m, &u.r.hdr);
}

/* All in block 0: the second and later records of a pass count at once. */
static void repeat(struct model *m, uint64_t t, const uint32_t *tids, uint32_t nr)
{
	repeat_block(m, t, 0, tids, nr);
}

/* The end of a sampling pass: the next repeat record starts the next pass. */
static void tick(struct model *m, uint64_t t)
{
	struct tt_tick k = {.hdr = {TT_EV_TICK, TT_TICK_VERSION, sizeof(k), t}, .weight_us = 50000};

	model__ingest(m, &k.hdr);
}

static struct model_row query_tid(struct model *m, enum model_window w, uint32_t tid)
{
	struct model_result res;
	struct model_query q;
	struct model_row row = {0};

	model_query_init(&q);
	q.window = w;
	assert_int_equal(model__query(m, &q, &res), 0);
	for (size_t i = 0; i < res.nr; i++)
		if (res.rows[i].tid == tid)
			row = res.rows[i];
	row.comm = row.cmdline = row.wchan = NULL; /* owned by the result */
	model_result__release(&res);
	return row;
}

static void assert_rows_equal(const struct model_row *a, const struct model_row *b)
{
	assert_int_equal(a->tid, b->tid);
	assert_int_equal(a->samples, b->samples);
	for (int s = 0; s < TT_ST_MAX; s++)
		assert_int_equal(a->state_samples[s], b->state_samples[s]);
	assert_int_equal(a->cur_state, b->cur_state);
	assert_int_equal(a->cur_syscall, b->cur_syscall);
	assert_int_equal(a->cur_kstack_id, b->cur_kstack_id);
	assert_true(a->avg_threads == b->avg_threads);
	assert_true(a->avg_active == b->avg_active);
	assert_true(a->cpu_pct == b->cpu_pct);
}

/* Thread tid reads the same from both models in every window. */
static void assert_same_in_every_window(struct model *full, struct model *rep, uint32_t tid)
{
	static const enum model_window windows[] = {WIN_INTERVAL, WIN_MINUTE, WIN_LAST,
						    WIN_SESSION};

	for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		struct model_row a = query_tid(full, windows[w], tid),
				 b = query_tid(rep, windows[w], tid);

		assert_rows_equal(&a, &b);
	}
}

/*
 * Two seconds of a sleeper (tid 12, S in read with kernel stack 5) that
 * wakes once at tick 30 into R: one model gets every sample in full, the
 * other the first sample of each run in full and repeats for the rest.
 */
static void repeats_count_as_full_samples(void **state)
{
	struct model *full = model__new(NULL), *rep = model__new(NULL);
	uint32_t tid = 12;

	model__advance(full, T0);
	model__advance(rep, T0);
	for (int i = 0; i < 40; i++) {
		uint64_t t = T0 + (uint64_t)i * TICK;
		bool running = i == 30;
		uint64_t cpu = i <= 30 ? 1000000 : 3000000;

		sample(full, t, tid, running ? TT_ST_R : TT_ST_S, running ? -1 : 0, running ? 0 : 5,
		       cpu);
		if (i == 0 || i == 30 || i == 31)
			sample(rep, t, tid, running ? TT_ST_R : TT_ST_S, running ? -1 : 0,
			       running ? 0 : 5, cpu);
		else
			repeat(rep, t, &tid, 1);
		tick(full, t);
		tick(rep, t);
		if (i == 19) {
			model__end_interval(full, T0 + SEC);
			model__end_interval(rep, T0 + SEC);
		}
	}
	model__advance(full, T0 + 2 * SEC);
	model__advance(rep, T0 + 2 * SEC);

	struct model_row a = query_tid(full, WIN_INTERVAL, tid),
			 b = query_tid(rep, WIN_INTERVAL, tid);

	assert_int_equal(a.samples, 20);
	assert_int_equal(a.state_samples[TT_ST_S], 19);
	assert_int_equal(a.state_samples[TT_ST_R], 1);
	assert_rows_equal(&a, &b);
	a = query_tid(full, WIN_SESSION, tid);
	b = query_tid(rep, WIN_SESSION, tid);
	assert_int_equal(a.samples, 40);
	assert_int_equal(b.cur_kstack_id, 5);
	assert_rows_equal(&a, &b);
	a = query_tid(full, WIN_MINUTE, tid);
	b = query_tid(rep, WIN_MINUTE, tid);
	assert_rows_equal(&a, &b);
	model__free(full);
	model__free(rep);
}

/*
 * Repeats are counted lazily (pending in the thread, settled at the next
 * second, sample or interval end): a query at any tick, in any window, reads
 * what the full samples give, over more than two minutes (the minute ring
 * wraps) with a change of state every 17 s and an interval every second.
 */
static void lazy_repeats_read_exactly_at_any_tick(void **state)
{
	struct model *full = model__new(NULL), *rep = model__new(NULL);
	uint32_t tid = 12;

	model__advance(full, T0);
	model__advance(rep, T0);
	for (int i = 0; i < 130 * 20; i++) {
		uint64_t t = T0 + (uint64_t)i * TICK;
		bool changed = i % (17 * 20) == 0;
		int phase = i / (17 * 20);
		enum tt_state st = phase % 2 ? TT_ST_D : TT_ST_S;

		if (i && i % 20 == 0) {
			model__end_interval(full, t);
			model__end_interval(rep, t);
		}
		sample(full, t, tid, st, phase, 5 + (uint32_t)phase, 1000000);
		if (changed)
			sample(rep, t, tid, st, phase, 5 + (uint32_t)phase, 1000000);
		else
			repeat(rep, t, &tid, 1);
		tick(full, t);
		tick(rep, t);
		if (i % 7 == 0 || i % 20 == 19)
			assert_same_in_every_window(full, rep, tid);
	}
	model__free(full);
	model__free(rep);
}

/*
 * Many threads, their repeats split over records as the kernel sends them
 * (in walk order, in lists of up to `per_record` tids): records that list
 * the same tids pass after pass are counted as runs. One thread in three
 * changes every 13 ticks (leaving the lists, which shifts every later
 * record), another is new at tick 50, one exits at tick 90: at any tick the
 * counts equal those of full samples. An interval is interval_ticks long; it
 * ends before the pass at its end or, end_late, after it (as live, where the
 * pass of the new second comes in first); the models are read every
 * check_every ticks (a read flushes the runs, so a long gap lets runs span
 * seconds).
 */
static void count_runs(bool by_block, int interval_ticks, bool end_late, int check_every)
{
	struct model *full = model__new(NULL), *rep = model__new(NULL);
	const uint32_t per_record = 3, nr = 9;

	model__advance(full, T0);
	model__advance(rep, T0);
	for (int i = 0; i < 200; i++) {
		uint64_t t = T0 + (uint64_t)i * TICK;
		uint32_t list[16], n = 0, block = 0;

		if (!end_late && i && i % interval_ticks == 0) {
			model__end_interval(full, t);
			model__end_interval(rep, t);
		}
		for (uint32_t tid = 20; tid < 20 + nr; tid++) {
			bool exists = (tid != 28 || i >= 50) && (tid != 21 || i < 90);
			bool changes = tid % 3 == 0 && i % 13 == 0;
			bool first = i == 0 || (tid == 28 && i == 50);
			enum tt_state st = changes && (i / 13) % 2 ? TT_ST_D : TT_ST_S;

			if (!exists)
				continue;
			/* The kernel's blocks: by place in its order; else records of 3. */
			if (by_block && (tid - 20) / per_record != block) {
				if (n)
					repeat_block(rep, t, block, list, n);
				n = 0;
				block = (tid - 20) / per_record;
			}
			if (tid % 3 == 0)
				st = (i / 13) % 2 ? TT_ST_D : TT_ST_S;
			sample(full, t, tid, st, 0, tid, 1000000);
			if (first || changes)
				sample(rep, t, tid, st, 0, tid, 1000000);
			else
				list[n++] = tid;
			if (!by_block && n == per_record) {
				repeat(rep, t, list, n);
				n = 0;
			}
		}
		if (n)
			repeat_block(rep, t, by_block ? block : 0, list, n);
		tick(full, t);
		tick(rep, t);
		if (end_late && i && i % interval_ticks == 0) {
			model__end_interval(full, t + 1);
			model__end_interval(rep, t + 1);
		}
		if (i % check_every != check_every - 1)
			continue;
		for (uint32_t tid = 20; tid < 20 + nr; tid++)
			assert_same_in_every_window(full, rep, tid);
	}
	model__free(full);
	model__free(rep);
}

static void runs_of_repeat_records_count_exactly(void **state)
{
	count_runs(false, 20, false, 5);
}

/* Records cut at the sender's block bounds: a change re-lists its block only. */
static void runs_of_blocks_count_exactly(void **state)
{
	count_runs(true, 20, false, 5);
}

/*
 * Runs hold the passes of two seconds before their threads take them: read
 * rarely, with intervals that end after a new second's first pass, or
 * mid-second every 2.5 s, the counts are still those of full samples.
 */
static void runs_across_seconds_count_exactly(void **state)
{
	count_runs(true, 20, true, 47);
	count_runs(true, 50, true, 47);
	count_runs(true, 50, false, 61);
	count_runs(false, 30, true, 200);
}

/*
 * A run keeps its threads' pointers while its list stays: a thread freed
 * meanwhile (its tid came back as another thread, with another start time)
 * is looked up again, never read from freed memory (ASan), and a tid with
 * no thread yet is found once it has one.
 */
static void cached_threads_follow_frees_and_adds(void **state)
{
	struct model *m = model__new(NULL);
	uint32_t tids[] = {12, 13}, later = 14;
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), T0 + 3 * TICK},
		.pid = 10,
		.tid = 13,
		.start_time_ns = 2, /* not 1: another thread with tid 13 */
		.weight_us = 50000,
		.state = TT_ST_D,
	};
	uint64_t t = T0;

	model__advance(m, T0);
	sample(m, T0, 12, TT_ST_S, 0, 5, 0);
	sample(m, T0, 13, TT_ST_S, 0, 5, 0);
	tick(m, T0);
	for (int i = 1; i <= 2; i++) {
		t = T0 + (uint64_t)i * TICK;
		repeat_block(m, t, 0, tids, 2);
		repeat_block(m, t, 1, &later, 1); /* 14 has no thread yet */
		tick(m, t);
	}
	model__advance(m, t);
	assert_int_equal(query_tid(m, WIN_INTERVAL, 13).samples, 3); /* the run's pointers cached */
	strcpy(s.comm, "sleeper");
	model__ingest(m, &s.hdr); /* frees the first tid 13 */
	sample(m, T0 + 3 * TICK, 14, TT_ST_S, 0, 5, 0);
	tick(m, T0 + 3 * TICK);
	for (int i = 4; i <= 6; i++) {
		t = T0 + (uint64_t)i * TICK;
		repeat_block(m, t, 0, tids, 2);
		repeat_block(m, t, 1, &later, 1);
		tick(m, t);
	}
	model__advance(m, t);
	assert_int_equal(query_tid(m, WIN_INTERVAL, 12).samples, 6);
	assert_int_equal(query_tid(m, WIN_INTERVAL, 13).samples, 4); /* its sample, 3 repeats */
	assert_int_equal(query_tid(m, WIN_INTERVAL, 13).state_samples[TT_ST_D], 4);
	assert_int_equal(query_tid(m, WIN_INTERVAL, 14).samples, 4);
	model__free(m);
}

/* A repeat names threads the model has no sample of: they are skipped. */
static void unknown_tids_are_skipped(void **state)
{
	struct model *m = model__new(NULL);
	struct tt_thread_info info = {
		.hdr = {TT_EV_THREAD_INFO, TT_THREAD_INFO_VERSION, sizeof(info), T0},
		.pid = 10,
		.tid = 13,
		.start_time_ns = 1,
	};
	uint32_t tids[] = {99, 13, 12};
	struct model_stats st;

	model__advance(m, T0);
	model__ingest(m, &info.hdr); /* known, but never sampled */
	sample(m, T0, 12, TT_ST_S, 0, 5, 0);
	repeat(m, T0 + TICK, tids, 3);
	model__advance(m, T0 + SEC);
	assert_int_equal(query_tid(m, WIN_INTERVAL, 12).samples, 2);
	assert_int_equal(query_tid(m, WIN_INTERVAL, 13).samples, 0);
	model__stats(m, &st);
	assert_int_equal(st.nr_threads, 2); /* no thread made up for tid 99 */
	model__free(m);
}

/* A thread that stops being repeated (it exited) ages out like any other. */
static void repeated_threads_age_out(void **state)
{
	struct model_opts o = {.retain_ns = 5 * SEC};
	struct model *m = model__new(&o);
	uint32_t tid = 12;
	struct model_stats st;

	model__advance(m, T0);
	sample(m, T0, tid, TT_ST_S, 0, 5, 0);
	repeat(m, T0 + 3 * SEC, &tid, 1);
	model__end_interval(m, T0 + 7 * SEC); /* seen 4 s ago: kept */
	model__stats(m, &st);
	assert_int_equal(st.nr_threads, 1);
	model__end_interval(m, T0 + 9 * SEC); /* 6 s ago: gone */
	model__stats(m, &st);
	assert_int_equal(st.nr_threads, 0);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(repeats_count_as_full_samples),
		cmocka_unit_test(lazy_repeats_read_exactly_at_any_tick),
		cmocka_unit_test(runs_of_repeat_records_count_exactly),
		cmocka_unit_test(runs_of_blocks_count_exactly),
		cmocka_unit_test(runs_across_seconds_count_exactly),
		cmocka_unit_test(cached_threads_follow_frees_and_adds),
		cmocka_unit_test(unknown_tids_are_skipped),
		cmocka_unit_test(repeated_threads_age_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
