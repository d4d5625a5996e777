// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the model's sampling clock (model_clock.c): the rate asked,
 * kept and achieved per window, the ticks missed, and thread samples weighed
 * by the passes really taken, so a thread runnable in every pass reads 1.00
 * average active threads however many ticks a loaded box skipped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "util.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)

static void sample(struct model *m, uint64_t t, uint32_t tid, enum tt_state state)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = 10,
		.tid = tid,
		.start_time_ns = 1,
		.weight_us = 50000,
		.syscall_nr = TT_SYSCALL_NONE,
		.state = (uint8_t)state,
	};

	strcpy(s.comm, "w");
	model__ingest(m, &s.hdr);
}

static void tick(struct model *m, uint64_t t, uint32_t since_us, uint32_t missed, unsigned version)
{
	struct tt_tick k = {
		.hdr = {TT_EV_TICK, (uint16_t)version, version >= 2 ? sizeof(k) : 32, t},
		.weight_us = version >= 2 ? since_us : 50000,
		.asked_us = 50000,
		.target_us = 50000,
		.missed = missed,
	};

	model__ingest(m, &k.hdr);
}

/*
 * One second asked at 20 Hz of which only every other tick was taken: a
 * spinner (R) and a half sleeper (R in every other pass taken).
 */
static void starved_second(struct model *m, uint64_t start, unsigned version)
{
	for (int i = 1; i <= 10; i++) {
		uint64_t t = start + (uint64_t)i * SEC / 10;

		sample(m, t, 11, TT_ST_R);
		sample(m, t, 12, i % 2 ? TT_ST_R : TT_ST_S);
		tick(m, t, 100000, 1, version);
	}
}

/* Thread tid's avg_active (cpu false) or cpu_pct (cpu true) over window w, -1 when absent. */
static double figure_of(struct model *m, enum model_window w, uint32_t tid, bool cpu)
{
	struct model_result res;
	struct model_query q;
	double v = -1;

	model_query_init(&q);
	q.window = w;
	assert_int_equal(model__query(m, &q, &res), 0);
	for (size_t i = 0; i < res.nr; i++)
		if (res.rows[i].tid == tid)
			v = cpu ? res.rows[i].cpu_pct : res.rows[i].avg_active;
	model_result__release(&res);
	return v;
}

static double active_of(struct model *m, enum model_window w, uint32_t tid)
{
	return figure_of(m, w, tid, false);
}

static void missed_ticks_keep_the_truth(void **state)
{
	struct model *m = model__new(NULL);
	struct model_rate r;

	(void)state;
	model__advance(m, T0);
	starved_second(m, T0, TT_TICK_VERSION);
	assert_int_equal(model__rate(m, WIN_INTERVAL, &r), 0);
	assert_int_equal(r.ticks, 10);
	assert_int_equal(r.missed, 10);
	assert_true(r.hz_asked > 19.99 && r.hz_asked < 20.01);
	assert_true(r.hz_target > 19.99 && r.hz_target < 20.01);
	assert_true(r.hz_achieved > 9.99 && r.hz_achieved < 10.01);
	assert_true(r.weight_s > 0.0999 && r.weight_s < 0.1001);
	/* Weighed by the asked period the spinner would read 0.50. */
	assert_true(active_of(m, WIN_INTERVAL, 11) > 0.99 && active_of(m, WIN_INTERVAL, 11) < 1.01);
	assert_true(active_of(m, WIN_INTERVAL, 12) > 0.49 && active_of(m, WIN_INTERVAL, 12) < 0.51);

	model__end_interval(m, T0 + SEC);
	assert_int_equal(model__rate(m, WIN_LAST, &r), 0);
	assert_int_equal(r.ticks, 10);
	assert_int_equal(r.missed, 10);
	assert_true(active_of(m, WIN_LAST, 11) > 0.99);
	assert_int_equal(model__rate(m, WIN_INTERVAL, &r), 0);
	assert_int_equal(r.ticks, 0);
	assert_int_equal(r.missed, 0);

	/* A second at the full rate: the session's weight is its own average. */
	for (int i = 1; i <= 20; i++) {
		uint64_t t = T0 + SEC + (uint64_t)i * SEC / 20;

		sample(m, t, 11, TT_ST_R);
		tick(m, t, 50000, 0, TT_TICK_VERSION);
	}
	assert_int_equal(model__rate(m, WIN_SESSION, &r), 0);
	assert_int_equal(r.ticks, 30);
	assert_int_equal(r.missed, 10);
	assert_true(r.hz_achieved > 14.99 && r.hz_achieved < 15.01);
	assert_true(active_of(m, WIN_SESSION, 11) > 0.99 && active_of(m, WIN_SESSION, 11) < 1.01);
	assert_int_equal(model__rate(m, WIN_MINUTE, &r), 0);
	assert_int_equal(r.ticks, 30);
	assert_int_equal(r.missed, 10);
	assert_int_equal(model__rate(m, WIN_MAX, &r), -EINVAL);
	model__free(m);
}

/* Recordings made before version 2 ticks: no missed count, the rate asked from the weight. */
static void version_1_ticks(void **state)
{
	struct model *m = model__new(NULL);
	struct model_rate r;

	(void)state;
	model__advance(m, T0);
	starved_second(m, T0, 1);
	assert_int_equal(model__rate(m, WIN_INTERVAL, &r), 0);
	assert_int_equal(r.ticks, 10);
	assert_int_equal(r.missed, 0);
	assert_true(r.hz_asked > 19.99 && r.hz_asked < 20.01);
	/* Sampling began a (version 1: asked) period before the first pass: 0.95 s. */
	assert_true(r.window_s > 0.9499 && r.window_s < 0.9501);
	assert_true(r.hz_achieved > 10.52 && r.hz_achieved < 10.53);
	/* The weights still follow what was taken. */
	assert_true(active_of(m, WIN_INTERVAL, 11) > 0.99 && active_of(m, WIN_INTERVAL, 11) < 1.01);
	model__free(m);
}

/* Start-up before the first pass (loading BPF) is not part of the first window. */
static void first_pass_starts_the_window(void **state)
{
	struct model *m = model__new(NULL);
	struct model_rate r;

	(void)state;
	model__advance(m, T0);
	for (int i = 1; i <= 20; i++) {
		uint64_t t = T0 + 2 * SEC + (uint64_t)i * SEC / 20;

		sample(m, t, 11, TT_ST_R);
		tick(m, t, 50000, 0, TT_TICK_VERSION);
	}
	assert_int_equal(model__rate(m, WIN_INTERVAL, &r), 0);
	assert_true(r.window_s > 0.9999 && r.window_s < 1.0001);
	assert_true(r.hz_achieved > 19.99 && r.hz_achieved < 20.01);
	assert_true(active_of(m, WIN_SESSION, 11) > 0.99 && active_of(m, WIN_SESSION, 11) < 1.01);
	model__free(m);
}

static void cpu_sample(struct model *m, uint64_t t, uint32_t tid, uint64_t cpu_ns)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = 10,
		.tid = tid,
		.start_time_ns = 1,
		.weight_us = 50000,
		.cpu_time_ns = cpu_ns,
		.syscall_nr = TT_SYSCALL_NONE,
		.state = TT_ST_R,
	};

	strcpy(s.comm, "w");
	model__ingest(m, &s.hdr);
}

static double cpu_of(struct model *m, enum model_window w, uint32_t tid)
{
	return figure_of(m, w, tid, true);
}

/*
 * The TUI's short first interval (two passes): a thread on a CPU all the
 * time reads 100%, not 50%. Its CPU time counts from the first pass, the
 * window's states from a period before it; later intervals are unchanged.
 */
static void cpu_time_counts_from_the_first_pass(void **state)
{
	struct model *m = model__new(NULL);
	uint64_t t1 = T0 + SEC / 20, t2 = T0 + SEC / 10;
	double v;

	(void)state;
	model__advance(m, T0);
	cpu_sample(m, t1, 11, 5 * SEC);
	tick(m, t1, 50000, 0, TT_TICK_VERSION);
	cpu_sample(m, t2, 11, 5 * SEC + SEC / 20);
	tick(m, t2, 50000, 0, TT_TICK_VERSION);
	v = cpu_of(m, WIN_INTERVAL, 11);
	assert_true(v > 99.9 && v < 100.1);
	assert_true(active_of(m, WIN_INTERVAL, 11) > 0.99 && active_of(m, WIN_INTERVAL, 11) < 1.01);
	model__end_interval(m, t2);
	v = cpu_of(m, WIN_LAST, 11);
	assert_true(v > 99.9 && v < 100.1);
	/* A second at half a CPU. */
	for (int i = 1; i <= 20; i++) {
		uint64_t t = t2 + (uint64_t)i * SEC / 20;

		cpu_sample(m, t, 11, 5 * SEC + SEC / 20 + (uint64_t)i * SEC / 40);
		tick(m, t, 50000, 0, TT_TICK_VERSION);
	}
	v = cpu_of(m, WIN_INTERVAL, 11);
	assert_true(v > 49.9 && v < 50.1);
	/* Session: 50 + 500 ms of CPU over the 1.05 s since the first pass. */
	v = cpu_of(m, WIN_SESSION, 11);
	assert_true(v > 52.3 && v < 52.5);
	model__free(m);
}

/* No pass yet: a sample stands for the period of the samples. */
static void no_pass_yet(void **state)
{
	struct model *m = model__new(NULL);
	struct model_rate r;

	(void)state;
	model__advance(m, T0);
	sample(m, T0 + SEC, 11, TT_ST_R);
	assert_int_equal(model__rate(m, WIN_INTERVAL, &r), 0);
	assert_int_equal(r.ticks, 0);
	assert_true(r.weight_s > 0.0499 && r.weight_s < 0.0501);
	assert_true(r.hz_achieved == 0);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(missed_ticks_keep_the_truth),
		cmocka_unit_test(version_1_ticks),
		cmocka_unit_test(first_pass_starts_the_window),
		cmocka_unit_test(no_pass_yet),
		cmocka_unit_test(cpu_time_counts_from_the_first_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
