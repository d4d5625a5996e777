// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the model's traced data (src/model/model_traced.c): on-CPU
 * samples and off-CPU time per thread and stacks, exact syscall figures,
 * run-queue waits, BPF program cost; the interval, last and session windows;
 * threads that only traced records name still get a row.
 */
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

static void cpu_sample(struct model *m, uint64_t t, uint32_t tid, uint32_t kst, uint32_t ust)
{
	struct tt_cpu_sample s = {
		.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s), t},
		.pid = 10,
		.tid = tid,
		.kstack_id = kst,
		.ustack_id = ust,
		.weight_us = 10101,
		.comm = "worker",
	};

	model__ingest(m, &s.hdr);
}

static void syscall_stats(struct model *m, uint64_t t, uint32_t tid, int nr, uint64_t count,
			  uint64_t ns)
{
	struct tt_syscall_stats s = {
		.hdr = {TT_EV_SYSCALL_STATS, TT_SYSCALL_STATS_VERSION, sizeof(s), t},
		.pid = 10,
		.tid = tid,
		.nr = nr,
		.count = count,
		.total_ns = ns,
	};

	s.hist[3] = (uint32_t)count;
	model__ingest(m, &s.hdr);
}

static void offcpu(struct model *m, uint64_t t, uint32_t tid, uint32_t kind, uint32_t kst,
		   uint64_t ns)
{
	struct tt_offcpu o = {
		.hdr = {TT_EV_OFFCPU, TT_OFFCPU_VERSION, sizeof(o), t},
		.pid = 10,
		.tid = tid,
		.kstack_id = kst,
		.total_ns = ns,
		.count = 2,
		.kind = kind,
		.comm = "waiter",
	};

	model__ingest(m, &o.hdr);
}

static void prog(struct model *m, uint64_t t, const char *name, uint64_t cnt, uint64_t ns)
{
	struct tt_prog_stats p = {
		.hdr = {TT_EV_PROG_STATS, TT_PROG_STATS_VERSION, sizeof(p), t},
		.run_cnt = cnt,
		.run_time_ns = ns,
	};

	strncpy(p.name, name, TT_COMM_LEN - 1);
	model__ingest(m, &p.hdr);
}

static void oncpu_rows(void **state)
{
	struct model *m = model__new(NULL);
	struct model_stack_row *rows;
	int nr;

	model__advance(m, T0);
	assert_int_equal(model__traced(m), 0);
	for (int i = 0; i < 5; i++)
		cpu_sample(m, T0 + 1, 11, 1, 2);
	cpu_sample(m, T0 + 2, 11, 3, 2);
	cpu_sample(m, T0 + 3, 12, 1, 4);
	assert_true(model__traced(m) & MODEL_TRACED_ONCPU);
	nr = model__oncpu(m, WIN_INTERVAL, &rows);
	assert_int_equal(nr, 3);
	assert_int_equal(rows[0].tid, 11);
	assert_int_equal(rows[0].kstack_id, 1);
	assert_int_equal(rows[0].ustack_id, 2);
	assert_int_equal(rows[0].value, 5);
	assert_string_equal(rows[0].comm, "worker");
	free(rows);
	/* The stacks keep the last minute too (the Stacks pane's "last minute"). */
	assert_int_equal(model__oncpu(m, WIN_MINUTE, &rows), 3);
	assert_int_equal(rows[0].value, 5);
	free(rows);

	/* The interval ends: its rows move to "last", the session keeps all. */
	model__end_interval(m, T0 + SEC);
	assert_int_equal(model__oncpu(m, WIN_INTERVAL, &rows), 0);
	free(rows);
	nr = model__oncpu(m, WIN_LAST, &rows);
	assert_int_equal(nr, 3);
	free(rows);
	cpu_sample(m, T0 + SEC + 1, 11, 1, 2);
	nr = model__oncpu(m, WIN_SESSION, &rows);
	assert_int_equal(nr, 3);
	assert_int_equal(rows[0].value, 6);
	free(rows);
	model__free(m);
}

static void syscalls_exact(void **state)
{
	struct model *m = model__new(NULL);
	struct model_syscall_stat *st;
	int nr;

	model__advance(m, T0);
	syscall_stats(m, T0 + 1, 11, 110, 1000, 50000);
	syscall_stats(m, T0 + 2, 11, 110, 500, 25000);
	syscall_stats(m, T0 + 3, 11, 0, 3, 90000);
	assert_true(model__traced(m) & MODEL_TRACED_SYSCALLS);
	nr = model__thread_syscall_stats(m, 11, WIN_INTERVAL, &st);
	assert_int_equal(nr, 2);
	/* Most time first. */
	assert_int_equal(st[0].nr, 0);
	assert_int_equal(st[1].nr, 110);
	assert_int_equal(st[1].count, 1500);
	assert_int_equal(st[1].total_ns, 75000);
	assert_int_equal(st[1].hist[3], 1500);
	free(st);
	assert_int_equal(model__thread_syscall_stats(m, 99, WIN_INTERVAL, &st), 0);
	assert_null(st);

	model__end_interval(m, T0 + SEC);
	assert_int_equal(model__thread_syscall_stats(m, 11, WIN_INTERVAL, &st), 0);
	nr = model__thread_syscall_stats(m, 11, WIN_LAST, &st);
	assert_int_equal(nr, 2);
	free(st);
	syscall_stats(m, T0 + SEC + 1, 11, 110, 1, 10);
	nr = model__thread_syscall_stats(m, 11, WIN_SESSION, &st);
	assert_int_equal(nr, 2);
	assert_int_equal(st[1].count, 1501);
	free(st);
	model__free(m);
}

static void offcpu_and_runq(void **state)
{
	struct model *m = model__new(NULL);
	struct model_stack_row *rows;
	uint64_t count = 0, ns = 0;
	int nr;

	model__advance(m, T0);
	offcpu(m, T0 + 1, 21, TT_OFFCPU_BLOCKED, 7, 300);
	offcpu(m, T0 + 2, 21, TT_OFFCPU_BLOCKED, 8, 900);
	offcpu(m, T0 + 3, 21, TT_OFFCPU_RUNQ, 0, 40);
	offcpu(m, T0 + 4, 21, TT_OFFCPU_RUNQ, 0, 60);
	nr = model__offcpu(m, WIN_INTERVAL, &rows);
	assert_int_equal(nr, 2); /* run-queue waits are no stack rows */
	assert_int_equal(rows[0].kstack_id, 8);
	assert_int_equal(rows[0].value, 900);
	assert_int_equal(rows[0].count, 2);
	assert_string_equal(rows[0].comm, "waiter");
	free(rows);
	assert_int_equal(model__thread_runq(m, 21, WIN_INTERVAL, &count, &ns), 0);
	assert_int_equal(count, 4);
	assert_int_equal(ns, 100);
	assert_int_equal(model__thread_runq(m, 99, WIN_INTERVAL, &count, &ns), -ENOENT);
	model__end_interval(m, T0 + SEC);
	assert_int_equal(model__thread_runq(m, 21, WIN_INTERVAL, &count, &ns), 0);
	assert_int_equal(count, 0);
	assert_int_equal(model__thread_runq(m, 21, WIN_LAST, &count, &ns), 0);
	assert_int_equal(ns, 100);
	model__free(m);
}

/* A thread seen only by tracing (it lived between two ticks) gets a row. */
static void traced_thread_row(void **state)
{
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;

	model__advance(m, T0);
	syscall_stats(m, T0 + 1, 31, 39, 3, 300);
	model_query_init(&q);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].tid, 31);
	assert_int_equal(res.rows[0].pid, 10);
	assert_int_equal(res.rows[0].samples, 0);
	model_result__release(&res);
	/* Not when the query asks about samples (a state filter). */
	q.filter.state_mask = 1u << TT_ST_R;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 0);
	model_result__release(&res);
	/* Nor once the interval it was active in is over. */
	model__end_interval(m, T0 + SEC);
	model_query_init(&q);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 0);
	model_result__release(&res);
	model__free(m);
}

static void prog_stats(void **state)
{
	struct model *m = model__new(NULL);
	struct model_prog_stat *ps;
	int nr;

	model__advance(m, T0);
	prog(m, T0 + 1, "sample_threads", 10, 1000);
	prog(m, T0 + 2, "sys_enter", 100, 5000);
	prog(m, T0 + 3, "sample_threads", 5, 500);
	nr = model__prog_stats(m, WIN_INTERVAL, &ps);
	assert_int_equal(nr, 2);
	assert_string_equal(ps[0].name, "sample_threads");
	assert_int_equal(ps[0].run_cnt, 15);
	assert_int_equal(ps[0].run_time_ns, 1500);
	free(ps);
	model__end_interval(m, T0 + SEC);
	nr = model__prog_stats(m, WIN_INTERVAL, &ps);
	assert_int_equal(nr, 2);
	assert_int_equal(ps[0].run_cnt, 0);
	free(ps);
	nr = model__prog_stats(m, WIN_LAST, &ps);
	assert_int_equal(ps[1].run_time_ns, 5000);
	free(ps);
	model__free(m);
}

/* Threads of traced data age out like sampled ones, with their data. */
static void ageing(void **state)
{
	struct model *m = model__new(NULL);
	struct model_stack_row *rows;
	struct model_stats st;

	model__advance(m, T0);
	cpu_sample(m, T0 + 1, 41, 1, 0);
	offcpu(m, T0 + 1, 41, TT_OFFCPU_BLOCKED, 1, 10);
	model__stats(m, &st);
	assert_int_equal(st.nr_threads, 1);
	model__end_interval(m, T0 + 120 * SEC);
	model__stats(m, &st);
	assert_int_equal(st.nr_threads, 0);
	assert_int_equal(model__oncpu(m, WIN_SESSION, &rows), 0);
	free(rows);
	model__free(m);
}

/*
 * A thread with many stacks (past the linear search, through the index):
 * every stack pair, with labels unknown (a version 1 sample) and known but
 * none, keeps exactly the samples it was given, in any order of arrival;
 * off-CPU time likewise.
 */
#define MANY 300

static uint32_t many_count(int j, bool v1)
{
	return (uint32_t)(j % 7) + 1 + (v1 ? 3 : 0);
}

static void many_stacks_exact(void **state)
{
	struct model *m = model__new(NULL);
	struct model_stack_row *rows;
	uint64_t seen[2][MANY] = {{0}}, off[MANY] = {0}, total = 0;
	uint32_t left[2][MANY];
	int nr, pending = 0;
	uint64_t rnd = 88172645463325252ull;

	model__advance(m, T0);
	for (int j = 0; j < MANY; j++)
		for (int v = 0; v < 2; v++) {
			left[v][j] = many_count(j, v);
			pending += (int)left[v][j];
		}
	while (pending) { /* a fixed pseudo-random order: pairs interleave */
		struct tt_cpu_sample s;
		int j, v;

		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		j = (int)(rnd % MANY);
		v = (int)(rnd >> 32) & 1;
		if (!left[v][j])
			continue;
		left[v][j]--;
		pending--;
		s = (struct tt_cpu_sample){
			.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s), T0 + 1},
			.pid = 10,
			.tid = 11,
			/* kernel ids in a few values, user ids unique: pairs share halves */
			.kstack_id = (uint32_t)(j % 5),
			.ustack_id = (uint32_t)j + 100,
			.weight_us = 10101,
			.flags = TT_CPU_LABELS,
			.comm = "worker",
		};
		if (v) { /* version 1: no labels_hash, labels unknown */
			s.hdr.version = 1;
			s.hdr.size = offsetof(struct tt_cpu_sample, labels_hash);
			s.flags = 0;
		}
		model__ingest(m, &s.hdr);
		offcpu(m, T0 + 1, 11, TT_OFFCPU_BLOCKED, (uint32_t)j + 1, 1000);
		off[j] += 1000;
	}
	nr = model__oncpu(m, WIN_INTERVAL, &rows);
	assert_int_equal(nr, 2 * MANY);
	for (int i = 0; i < nr; i++) {
		int j = (int)rows[i].ustack_id - 100;

		assert_true(j >= 0 && j < MANY);
		assert_int_equal(rows[i].kstack_id, j % 5);
		assert_int_equal(seen[!rows[i].labels_known][j], 0);
		seen[!rows[i].labels_known][j] = rows[i].value;
		assert_int_equal(rows[i].value, many_count(j, !rows[i].labels_known));
		assert_int_equal(rows[i].count, rows[i].value);
		total += rows[i].value;
	}
	free(rows);
	nr = model__offcpu(m, WIN_INTERVAL, &rows);
	assert_int_equal(nr, MANY);
	for (int i = 0; i < nr; i++)
		assert_int_equal(rows[i].value, off[rows[i].kstack_id - 1]);
	free(rows);

	/* Next interval: the pairs find their entries; nothing else is added. */
	model__end_interval(m, T0 + SEC);
	for (int j = 0; j < MANY; j++)
		cpu_sample(m, T0 + SEC + 1, 11, (uint32_t)(j % 5), (uint32_t)j + 100);
	assert_int_equal(model__oncpu(m, WIN_INTERVAL, &rows), MANY);
	free(rows);
	nr = model__oncpu(m, WIN_SESSION, &rows);
	assert_int_equal(nr, 2 * MANY);
	for (int i = 0; i < nr; i++) {
		int j = (int)rows[i].ustack_id - 100;

		/* cpu_sample's samples have no labels: they went to the unknown rows */
		assert_int_equal(rows[i].value,
				 many_count(j, !rows[i].labels_known) + !rows[i].labels_known);
		total -= rows[i].value - !rows[i].labels_known;
	}
	assert_int_equal(total, 0);
	free(rows);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oncpu_rows),	     cmocka_unit_test(syscalls_exact),
		cmocka_unit_test(offcpu_and_runq),   cmocka_unit_test(traced_thread_row),
		cmocka_unit_test(prog_stats),	     cmocka_unit_test(ageing),
		cmocka_unit_test(many_stacks_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
