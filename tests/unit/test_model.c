// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the model: ingest, windows, pid reuse, ageing and queries. */
#include <errno.h>
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

static void sample(struct model *m, uint64_t t, uint32_t pid, uint32_t tid, const char *comm,
		   enum tt_state state, int syscall)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = pid,
		.tid = tid,
		.start_time_ns = 1,
		.weight_us = 50000, /* 20 Hz */
		.syscall_nr = syscall,
		.state = (uint8_t)state,
	};

	strncpy(s.comm, comm, TT_COMM_LEN - 1);
	model__ingest(m, &s.hdr);
}

/* One second of 20 Hz samples for a spinner (tid 11) and a sleeper (tid 12). */
static void one_second(struct model *m, uint64_t start)
{
	for (int i = 0; i < 20; i++) {
		uint64_t t = start + (uint64_t)i * SEC / 20;

		sample(m, t, 10, 11, "spinner", TT_ST_R, TT_SYSCALL_NONE);
		sample(m, t, 10, 12, "sleeper", TT_ST_S, 230);
	}
	model__advance(m, start + SEC);
}

static const struct model_row *row_of(const struct model_result *res, uint32_t tid)
{
	for (size_t i = 0; i < res->nr; i++)
		if (res->rows[i].tid == tid)
			return &res->rows[i];
	return NULL;
}

static void per_thread_interval(void **state)
{
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;
	const struct model_row *r;

	model__advance(m, T0);
	one_second(m, T0);
	model_query_init(&q);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_true(res.window_s > 0.99 && res.window_s < 1.01);
	/* Sorted by activity: the spinner first. */
	assert_int_equal(res.rows[0].tid, 11);
	r = row_of(&res, 11);
	assert_int_equal(r->samples, 20);
	assert_int_equal(r->state_samples[TT_ST_R], 20);
	assert_true(r->avg_active > 0.99 && r->avg_active < 1.01);
	assert_string_equal(r->comm, "spinner");
	r = row_of(&res, 12);
	assert_int_equal(r->state_samples[TT_ST_S], 20);
	assert_true(r->avg_active < 0.001);
	assert_true(r->avg_threads > 0.99);
	model_result__release(&res);
	model__free(m);
}

static void windows(void **state)
{
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;

	model__advance(m, T0);
	one_second(m, T0);
	model__end_interval(m, T0 + SEC);
	one_second(m, T0 + SEC);
	model_query_init(&q);

	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(row_of(&res, 11)->samples, 20); /* this interval only */
	model_result__release(&res);

	q.window = WIN_SESSION;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(row_of(&res, 11)->samples, 40);
	assert_true(res.window_s > 1.99 && res.window_s < 2.01);
	model_result__release(&res);

	/* 70 s later the minute window has forgotten the first two seconds. */
	model__end_interval(m, T0 + 2 * SEC);
	for (int s = 2; s < 72; s++)
		sample(m, T0 + (uint64_t)s * SEC, 10, 11, "spinner", TT_ST_R, TT_SYSCALL_NONE);
	model__advance(m, T0 + 72 * SEC);
	q.window = WIN_MINUTE;
	assert_int_equal(model__query(m, &q, &res), 0);
	/* Seconds 13 to 71: the window is (now - 60 s, now]. */
	assert_int_equal(row_of(&res, 11)->samples, 59);
	assert_null(row_of(&res, 12)); /* no sample in the last minute */
	assert_true(res.window_s > 59.9 && res.window_s < 60.1);
	model_result__release(&res);
	model__free(m);
}

static void group_filter_sort(void **state)
{
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;

	model__advance(m, T0);
	one_second(m, T0);
	sample(m, T0 + SEC / 2, 20, 21, "other", TT_ST_S, 232);

	model_query_init(&q);
	q.dims = DIM_BIT(DIM_STATE);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_int_equal(res.rows[0].state, TT_ST_R);
	assert_int_equal(res.rows[0].samples, 20);
	assert_int_equal(res.rows[1].state, TT_ST_S);
	assert_int_equal(res.rows[1].samples, 21);
	assert_int_equal(res.rows[1].nr_threads, 2);
	assert_false(res.cpu_valid);
	model_result__release(&res);

	q.dims = DIM_BIT(DIM_PID);
	q.sort = SORT_SAMPLES;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_int_equal(res.rows[0].pid, 10);
	assert_int_equal(res.rows[0].samples, 40);
	assert_int_equal(res.rows[0].nr_threads, 2);
	model_result__release(&res);

	q.reverse = true;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.rows[0].pid, 20);
	model_result__release(&res);

	/* No sort: the same rows, in whatever order (the TUI sorts its own way). */
	q.sort = SORT_NONE;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_int_equal(res.rows[0].samples + res.rows[1].samples, 41);
	assert_true(res.rows[0].pid == 10 ? res.rows[1].pid == 20 : res.rows[0].pid == 20);
	model_result__release(&res);

	/* Drill down: pid 10, in clock_nanosleep. */
	model_query_init(&q);
	q.filter.pid = 10;
	q.filter.syscall = 230;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].tid, 12);
	model_result__release(&res);

	model_query_init(&q);
	q.filter.comm_substr = "oth";
	q.limit = 5;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].tid, 21);
	model_result__release(&res);

	model_query_init(&q);
	q.filter.state_mask = 1u << TT_ST_S;
	q.dims = 0;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].samples, 21);
	model_result__release(&res);
	model__free(m);
}

static void syscalls_of_thread(void **state)
{
	struct model *m = model__new(NULL);
	struct model_syscall_count *sc;

	model__advance(m, T0);
	sample(m, T0, 1, 1, "a", TT_ST_S, 7);
	sample(m, T0 + 1, 1, 1, "a", TT_ST_S, 0);
	sample(m, T0 + 2, 1, 1, "a", TT_ST_S, 0);
	sample(m, T0 + 3, 1, 1, "a", TT_ST_R, TT_SYSCALL_NONE);
	assert_int_equal(model__thread_syscalls(m, 1, WIN_INTERVAL, &sc), 2);
	assert_int_equal(sc[0].nr, 0);
	assert_int_equal(sc[0].samples, 2);
	assert_int_equal(sc[1].nr, 7);
	free(sc);
	assert_int_equal(model__thread_syscalls(m, 99, WIN_INTERVAL, &sc), -ENOENT);
	model__free(m);
}

static void tid_reuse_and_ageing(void **state)
{
	struct model *m = model__new(NULL);
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), T0},
		.pid = 5,
		.tid = 5,
		.start_time_ns = 100,
		.weight_us = 50000,
		.state = TT_ST_R,
	};
	struct model_result res;
	struct model_query q;
	struct model_stats st;

	model__advance(m, T0);
	strcpy(s.comm, "old");
	model__ingest(m, &s.hdr);
	model__ingest(m, &s.hdr);
	/* Same tid, new start time: a different thread, counters start over. */
	s.start_time_ns = 200;
	s.hdr.time_ns = T0 + 1;
	strcpy(s.comm, "new");
	model__ingest(m, &s.hdr);
	model_query_init(&q);
	q.window = WIN_SESSION;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].samples, 1);
	assert_string_equal(res.rows[0].comm, "new");
	model_result__release(&res);

	/* Unseen for longer than the retention: gone. */
	model__end_interval(m, T0 + 30 * SEC);
	model__stats(m, &st);
	assert_int_equal(st.nr_threads, 1);
	model__end_interval(m, T0 + 61 * SEC);
	model__stats(m, &st);
	assert_int_equal(st.nr_threads, 0);
	model__free(m);
}

static void dictionaries_and_drops(void **state)
{
	struct model *m = model__new(NULL);
	union {
		struct tt_string s;
		char buf[64];
	} u = {.s = {.hdr = {TT_EV_STRING, 1, sizeof(struct tt_string) + 5, T0},
		     .id = 3,
		     .len = 5}};
	struct tt_drops d = {.hdr = {TT_EV_DROPS, 1, sizeof(d), T0}};
	struct model_stats st;

	memcpy(u.s.data, "hello", 5);
	model__ingest(m, &u.s.hdr);
	assert_string_equal(model__string(m, 3), "hello");
	assert_null(model__string(m, 4));
	d.count[TT_DROP_VANISHED] = 2;
	model__ingest(m, &d.hdr);
	model__ingest(m, &d.hdr);
	model__stats(m, &st);
	assert_int_equal(st.drops_interval[TT_DROP_VANISHED], 4);
	model__end_interval(m, T0 + SEC);
	model__stats(m, &st);
	assert_int_equal(st.drops_interval[TT_DROP_VANISHED], 0);
	assert_int_equal(st.drops_session[TT_DROP_VANISHED], 4);
	assert_string_equal(model_drop_name(TT_DROP_VANISHED), "vanished");
	model__free(m);
}

/* A result's totals are the sums over its rows, own rows or grouped, every window. */
static void result_totals(void **state)
{
	static const unsigned dims[] = {DIM_BIT(DIM_TID), DIM_BIT(DIM_STATE), 0};
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;

	for (int sec = 0; sec < 3; sec++) {
		one_second(m, T0 + (uint64_t)sec * SEC);
		for (int i = 0; i < 20; i++)
			sample(m, T0 + (uint64_t)sec * SEC + (uint64_t)i * SEC / 20, 20,
			       21 + (uint32_t)i % 3, "worker", i % 2 ? TT_ST_D : TT_ST_Q, 0);
		if (sec < 2) /* the third second stays open: WIN_INTERVAL's */
			model__end_interval(m, T0 + (uint64_t)(sec + 1) * SEC);
	}
	for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
		for (int w = 0; w < WIN_MAX; w++) {
			uint64_t states[TT_ST_MAX] = {0}, samples = 0;
			double cpu = 0, active = 0;

			model_query_init(&q);
			q.dims = dims[d];
			q.window = (enum model_window)w;
			assert_int_equal(model__query(m, &q, &res), 0);
			assert_true(res.nr > 0);
			for (size_t i = 0; i < res.nr; i++) {
				for (int st = 0; st < TT_ST_MAX; st++)
					states[st] += res.rows[i].state_samples[st];
				samples += res.rows[i].samples;
				cpu += res.rows[i].cpu_pct;
				active += res.rows[i].avg_active;
			}
			assert_memory_equal(res.total_states, states, sizeof(states));
			assert_int_equal(res.total_samples, samples);
			assert_true(res.total_cpu_pct == cpu);
			assert_true(res.total_active == active && active > 0);
			model_result__release(&res);
		}
	}
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(per_thread_interval),
		cmocka_unit_test(result_totals),
		cmocka_unit_test(windows),
		cmocka_unit_test(group_filter_sort),
		cmocka_unit_test(syscalls_of_thread),
		cmocka_unit_test(tid_reuse_and_ageing),
		cmocka_unit_test(dictionaries_and_drops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
