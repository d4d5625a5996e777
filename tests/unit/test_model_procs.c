// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the model's processes and box (model_procs.c): process rows
 * sum their threads' CPU and carry the process record's user, nice, RES and
 * TIME+; the threads alive now and their states at the latest pass (exited
 * threads the retention keeps do not count); the box's totals and those in
 * one walk (model__box); a query into an earlier result's rows; stopped,
 * traced and zombie threads are never active; the process tree order; host
 * figures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "util.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)

static void sample(struct model *m, uint64_t t, uint32_t pid, uint32_t tid, enum tt_state state,
		   uint64_t cpu_ns)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = pid,
		.tid = tid,
		.start_time_ns = 1,
		.cpu_time_ns = cpu_ns,
		.weight_us = 50000, /* 20 Hz */
		.syscall_nr = TT_SYSCALL_NONE,
		.state = (uint8_t)state,
	};

	snprintf(s.comm, sizeof(s.comm), "t%u", tid);
	model__ingest(m, &s.hdr);
}

static void tick(struct model *m, uint64_t t)
{
	struct tt_tick k = {.hdr = {TT_EV_TICK, TT_TICK_VERSION, sizeof(k), t}, .weight_us = 50000};

	model__ingest(m, &k.hdr);
}

static void proc_info(struct model *m, uint64_t t, uint32_t pid, uint32_t ppid, uint64_t cpu_ns)
{
	struct tt_proc_info p = {
		.hdr = {TT_EV_PROC_INFO, TT_PROC_INFO_VERSION, sizeof(p), t},
		.pid = pid,
		.ppid = ppid,
		.uid = 1000,
		.user_id = 7,
		.rss_bytes = 12u << 20,
		.cpu_time_ns = cpu_ns,
		.nice = 5,
		.nr_threads = 3,
	};
	/* A union, not a struct with the name after s: clang refuses a field after a flexible array. */
	union {
		struct tt_string s;
		char buf[sizeof(struct tt_string) + 5];
	} str = {.s = {.hdr = {TT_EV_STRING, TT_STRING_VERSION, sizeof(struct tt_string) + 5, t},
		       .id = 7,
		       .len = 5}};

	memcpy(str.s.data, "alice", 5);
	model__ingest(m, &str.s.hdr);
	model__ingest(m, &p.hdr);
}

static const struct model_row *row_of_pid(const struct model_result *res, uint32_t pid)
{
	for (size_t i = 0; i < res->nr; i++)
		if (res->rows[i].pid == pid)
			return &res->rows[i];
	return NULL;
}

/* Process 10: two spinners (0.5 CPU each) and a sleeper; process 20: one spinner. */
static void process_rows_sum_threads(void **state)
{
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;
	const struct model_row *r;

	model__advance(m, T0);
	proc_info(m, T0, 10, 1, 0);
	for (int i = 0; i <= 20; i++) {
		uint64_t t = T0 + (uint64_t)i * SEC / 20, cpu = (uint64_t)i * SEC / 40;

		sample(m, t, 10, 11, TT_ST_R, cpu); /* a thread before the main one */
		sample(m, t, 10, 10, TT_ST_R, cpu);
		sample(m, t, 10, 12, TT_ST_S, 0);
		sample(m, t, 20, 20, TT_ST_R, 2 * cpu);
		tick(m, t);
	}
	/* The process has 3 s of CPU of its own (exited threads): TIME+ shows it. */
	proc_info(m, T0 + SEC, 10, 1, 3 * SEC);
	model__advance(m, T0 + SEC);
	model_query_init(&q);
	q.dims = DIM_BIT(DIM_PID);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_true(res.cpu_valid);
	r = row_of_pid(&res, 10);
	assert_non_null(r);
	assert_string_equal(r->comm, "t10"); /* its main thread's name, not the first thread's */
	assert_int_equal(r->nr_threads, 3);
	assert_true(r->cpu_pct > 99.0 && r->cpu_pct < 101.0); /* 2 x 0.5 CPU */
	assert_true(r->avg_active > 1.9 && r->avg_active < 2.2);
	assert_int_equal(r->state_samples[TT_ST_S], 21);
	assert_true(r->proc_known);
	assert_int_equal(r->ppid, 1);
	assert_int_equal(r->nice, 5);
	assert_int_equal(r->rss_bytes, 12u << 20);
	assert_string_equal(model__string(m, r->user_id), "alice");
	assert_int_equal(r->cpu_total_ns, 3 * SEC);
	r = row_of_pid(&res, 20);
	assert_non_null(r);
	assert_false(r->proc_known); /* no record: the columns say "-" */
	assert_true(r->cpu_pct > 99.0 && r->cpu_pct < 101.0);
	assert_int_equal(r->cpu_total_ns, SEC); /* its thread's CPU time */
	model_result__release(&res);
	model__free(m);
}

/* Stopped, traced and zombie threads are never active; running, waiting and D are. */
static void stopped_and_zombies_idle(void **state)
{
	static const enum tt_state idle[] = {TT_ST_S, TT_ST_T, TT_ST_t, TT_ST_Z,
					     TT_ST_X, TT_ST_I, TT_ST_P};
	static const enum tt_state busy[] = {TT_ST_R, TT_ST_Q, TT_ST_D};
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;

	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		assert_false(model_state_active(idle[i]));
	for (size_t i = 0; i < sizeof(busy) / sizeof(busy[0]); i++)
		assert_true(model_state_active(busy[i]));
	model__advance(m, T0);
	for (int i = 0; i < 20; i++) {
		uint64_t t = T0 + (uint64_t)i * SEC / 20;

		sample(m, t, 30, 30, TT_ST_Z, 0); /* a zombie with a stale syscall */
		sample(m, t, 31, 31, TT_ST_T, 0); /* SIGSTOPped */
		sample(m, t, 32, 32, TT_ST_t, 0); /* stopped by a tracer */
		sample(m, t, 33, 33, TT_ST_D, 0);
	}
	model__advance(m, T0 + SEC);
	model_query_init(&q);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 4);
	for (size_t i = 0; i < res.nr; i++) {
		if (res.rows[i].tid == 33)
			assert_true(res.rows[i].avg_active > 0.99);
		else
			assert_true(res.rows[i].avg_active == 0.0);
	}
	model_result__release(&res);
	model__free(m);
}

/* Alive now: what the latest pass saw, by state; an exited thread only retention keeps is not. */
static void threads_alive_now(void **state)
{
	struct model *m = model__new(NULL);
	struct model_now now;

	model__now(m, &now);
	assert_int_equal(now.alive, 0);
	model__advance(m, T0);
	sample(m, T0, 40, 40, TT_ST_R, 0);
	sample(m, T0, 40, 41, TT_ST_R, 0);
	sample(m, T0, 40, 42, TT_ST_D, 0);
	sample(m, T0, 40, 43, TT_ST_S, 0);
	tick(m, T0);
	model__now(m, &now);
	assert_int_equal(now.alive, 4);
	/* Next pass: 41 waits for a CPU, 43 exited (not sampled, still retained). */
	sample(m, T0 + SEC / 20, 40, 40, TT_ST_R, 0);
	sample(m, T0 + SEC / 20, 40, 41, TT_ST_Q, 0);
	sample(m, T0 + SEC / 20, 40, 42, TT_ST_D, 0);
	tick(m, T0 + SEC / 20);
	model__now(m, &now);
	assert_int_equal(now.pass_ns, T0 + SEC / 20);
	assert_int_equal(now.alive, 3);
	assert_int_equal(now.states[TT_ST_R], 1);
	assert_int_equal(now.states[TT_ST_Q], 1);
	assert_int_equal(now.states[TT_ST_D], 1);
	assert_int_equal(now.states[TT_ST_S], 0);
	{
		struct model_stats st;

		model__stats(m, &st);
		assert_int_equal(st.nr_threads, 4); /* the table still holds the exited one */
	}
	model__free(m);
}

/* Sums in another order: equal to rounding. */
static bool near(double a, double b)
{
	double d = a > b ? a - b : b - a;

	return d <= 1e-9 * (b > 1 ? b : 1);
}

/* Two rows of one query are the same figures. */
static void assert_rows_equal(const struct model_row *a, const struct model_row *b)
{
	assert_int_equal(a->samples, b->samples);
	for (int s = 0; s < TT_ST_MAX; s++)
		assert_int_equal(a->state_samples[s], b->state_samples[s]);
	assert_true(a->avg_active == b->avg_active);
	assert_true(a->avg_threads == b->avg_threads);
	assert_true(a->cpu_pct == b->cpu_pct);
	assert_int_equal(a->nr_threads, b->nr_threads);
}

/*
 * The box in one walk is the header's query with no dims and model__now,
 * in every window: threads running, sleeping, in D, one that exited (only
 * retention keeps it), over two intervals with CPU time.
 */
static void box_is_query_and_now(void **state)
{
	struct model *m = model__new(NULL);
	static const enum tt_state states[] = {TT_ST_R, TT_ST_S, TT_ST_D, TT_ST_Q};

	model__advance(m, T0);
	for (int i = 0; i < 40; i++) {
		uint64_t t = T0 + (uint64_t)i * SEC / 20;

		for (uint32_t tid = 50; tid < 54; tid++)
			sample(m, t, 50, tid, states[(tid + (unsigned)i / 7) % 4],
			       (uint64_t)i * (tid - 49) * 1000000);
		if (i < 25)
			sample(m, t, 60, 60, TT_ST_R, (uint64_t)i * 3000000); /* exits at 25 */
		tick(m, t);
		if (i == 19)
			model__end_interval(m, t + SEC / 40);
	}
	model__advance(m, T0 + 2 * SEC);
	for (enum model_window w = 0; w < WIN_MAX; w++) {
		struct model_result box, want;
		struct model_now now, want_now;
		struct model_query q;

		model_query_init(&q);
		q.window = w;
		q.dims = 0;
		assert_int_equal(model__query(m, &q, &want), 0);
		model__now(m, &want_now);
		memset(&now, 0xa5, sizeof(now));
		assert_int_equal(model__box(m, w, &box, &now), 0);
		assert_int_equal(box.nr, want.nr);
		assert_int_equal(box.nr, 1);
		assert_int_equal(box.total_samples, want.total_samples);
		assert_true(box.window_s == want.window_s);
		assert_int_equal(box.cpu_valid, want.cpu_valid);
		assert_rows_equal(&box.rows[0], &want.rows[0]);
		assert_int_equal(box.rows[0].nr_threads, 5);
		assert_memory_equal(&now, &want_now, sizeof(now));
		/* The box's one row is the sum of the threads' rows. */
		model_result__release(&want);
		q.dims = DIM_BIT(DIM_TID);
		model__query(m, &q, &want);
		{
			struct model_row sum = {0};

			for (size_t i = 0; i < want.nr; i++) {
				sum.samples += want.rows[i].samples;
				for (int s = 0; s < TT_ST_MAX; s++)
					sum.state_samples[s] += want.rows[i].state_samples[s];
				sum.avg_active += want.rows[i].avg_active;
				sum.cpu_pct += want.rows[i].cpu_pct;
			}
			assert_int_equal(sum.samples, box.rows[0].samples);
			for (int s = 0; s < TT_ST_MAX; s++)
				assert_int_equal(sum.state_samples[s],
						 box.rows[0].state_samples[s]);
			assert_true(near(sum.avg_active, box.rows[0].avg_active));
			assert_true(near(sum.cpu_pct, box.rows[0].cpu_pct));
			assert_true(box.rows[0].cpu_pct > 0 || w == WIN_MINUTE);
		}
		model_result__release(&want);
		assert_int_equal(now.alive, 4);
		model_result__release(&box);
		model_result__release(&want);
	}
	model__free(m);
}

/* a and b hold the same rows, byte for byte. */
static void assert_results_equal(const struct model_result *a, const struct model_result *b)
{
	assert_int_equal(a->nr, b->nr);
	assert_int_equal(a->total_samples, b->total_samples);
	assert_memory_equal(a->rows, b->rows, a->nr * sizeof(*a->rows));
}

/*
 * A query into an earlier result's rows gives what a fresh one gives: the
 * same buffer again for a row per thread, a grouped query into it, and a
 * bigger table (more threads than the buffer holds) grows it.
 */
static void query_into_reuses_rows(void **state)
{
	struct model *m = model__new(NULL);
	struct model_result res = {0}, want;
	struct model_query q;
	struct model_row *buf;

	model__advance(m, T0);
	for (uint32_t tid = 100; tid < 300; tid++)
		sample(m, T0, 100 + tid % 7, tid, tid % 3 ? TT_ST_S : TT_ST_R, tid * 1000);
	tick(m, T0);
	model__advance(m, T0 + SEC / 2);
	model_query_init(&q);
	assert_int_equal(model__query(m, &q, &want), 0);
	assert_int_equal(model__query_into(m, &q, &res), 0);
	assert_int_equal(res.nr, 200);
	assert_results_equal(&res, &want);
	buf = res.rows;
	assert_int_equal(model__query_into(m, &q, &res), 0);
	assert_ptr_equal(res.rows, buf); /* filled again, not allocated */
	assert_results_equal(&res, &want);
	model_result__release(&want);
	/* Grouped: a few rows in the big buffer. */
	q.dims = DIM_BIT(DIM_STATE) | DIM_BIT(DIM_PID);
	assert_int_equal(model__query(m, &q, &want), 0);
	assert_int_equal(model__query_into(m, &q, &res), 0);
	assert_int_equal(res.nr, 14);
	assert_results_equal(&res, &want);
	model_result__release(&want);
	/* More threads than the buffer holds. */
	for (uint32_t tid = 300; tid < 2000; tid++)
		sample(m, T0 + SEC / 2, 100 + tid % 7, tid, TT_ST_D, 0);
	q.dims = DIM_BIT(DIM_TID);
	assert_int_equal(model__query(m, &q, &want), 0);
	assert_int_equal(model__query_into(m, &q, &res), 0);
	assert_int_equal(res.nr, 1900);
	assert_true(res.cap >= res.nr);
	assert_results_equal(&res, &want);
	model_result__release(&want);
	model_result__release(&res);
	model__free(m);
}

/* Tree order: children after their parent, siblings in the order given; orphans are roots. */
static void tree_order(void **state)
{
	struct model *m = model__new(NULL);
	struct model_row rows[5] = {
		{.pid = 300}, {.pid = 100}, {.pid = 200}, {.pid = 400}, {.pid = 500}};
	uint8_t depth[5], last[5];

	model__advance(m, T0);
	proc_info(m, T0, 100, 1, 0);   /* 1 is not among the rows: 100 is a root */
	proc_info(m, T0, 200, 100, 0); /* child of 100 */
	proc_info(m, T0, 300, 100, 0); /* child of 100, first in the rows' order */
	proc_info(m, T0, 400, 200, 0); /* grandchild */
	proc_info(m, T0, 500, 500, 0); /* its own parent: a root, not a loop */
	assert_int_equal(model_rows_tree(m, rows, 5, depth, last), 0);
	assert_int_equal(rows[0].pid, 100);
	assert_int_equal(depth[0], 0);
	assert_int_equal(rows[1].pid, 300);
	assert_int_equal(depth[1], 1);
	assert_false(last[1]);
	assert_int_equal(rows[2].pid, 200);
	assert_int_equal(depth[2], 1);
	assert_true(last[2]);
	assert_int_equal(rows[3].pid, 400);
	assert_int_equal(depth[3], 2);
	assert_int_equal(rows[4].pid, 500);
	assert_int_equal(depth[4], 0);
	model__free(m);
}

/* Two processes each other's parent: no root reaches them, they still show, once each. */
static void tree_cycle(void **state)
{
	struct model *m = model__new(NULL);
	struct model_row rows[3] = {{.pid = 7}, {.pid = 8}, {.pid = 9}};
	uint8_t depth[3], last[3];

	model__advance(m, T0);
	proc_info(m, T0, 7, 8, 0);
	proc_info(m, T0, 8, 7, 0);
	assert_int_equal(model_rows_tree(m, rows, 3, depth, last), 0);
	assert_int_equal(rows[0].pid, 9);
	assert_true((rows[1].pid == 7 && rows[2].pid == 8) ||
		    (rows[1].pid == 8 && rows[2].pid == 7));
	model__free(m);
}

static void host_stats(void **state)
{
	struct model *m = model__new(NULL);
	struct tt_host_stats h =
				     {
					     .hdr = {TT_EV_HOST_STATS, TT_HOST_STATS_VERSION,
						     sizeof(h), T0},
					     .uptime_ns = 3600 * SEC,
					     .mem_total_kb = 8 << 20,
					     .mem_avail_kb = 6 << 20,
					     .load_milli = {1500, 1000, 500},
				     },
			     got;

	assert_false(model__host(m, &got)); /* an old recording: nothing to show */
	model__ingest(m, &h.hdr);
	assert_true(model__host(m, &got));
	assert_int_equal(got.load_milli[0], 1500);
	assert_int_equal(got.mem_total_kb, 8 << 20);
	assert_int_equal(got.uptime_ns, 3600 * SEC);
	/* A process unseen for the retention time is forgotten at an interval end. */
	proc_info(m, T0, 10, 1, 0);
	assert_true(model__proc(m, 10, &(struct model_proc){0}));
	model__end_interval(m, T0 + 120 * SEC);
	assert_false(model__proc(m, 10, &(struct model_proc){0}));
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(process_rows_sum_threads),
		cmocka_unit_test(stopped_and_zombies_idle),
		cmocka_unit_test(threads_alive_now),
		cmocka_unit_test(box_is_query_and_now),
		cmocka_unit_test(query_into_reuses_rows),
		cmocka_unit_test(tree_order),
		cmocka_unit_test(tree_cycle),
		cmocka_unit_test(host_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
