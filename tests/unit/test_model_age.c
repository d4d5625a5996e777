// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for what ages out of the model (model_age.c, and the threads
 * model.c forgets): a churn of short-lived processes, each with a user
 * stack of its own, leaves the thread table and the stack dictionary as
 * they were once the processes are past the retention time and their
 * stacks past the sources' id horizon (events.h), while every window that
 * covers the dead threads' time still counts them until then; stacks that
 * something may still name stay; the LuaJIT model's threads and names go
 * with their processes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dict_budget.h"
#include "lj_model.h"
#include "model.h"
#include "model_stacks.h"
#include "util.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)
#define LIVE_PID 1
#define KSTACK 5 /* the long-lived thread's kernel stack, pid 0 */
#define NR_DEAD 500
#define DEAD_PID 20000 /* the short-lived processes are DEAD_PID + i, each one thread */

static void stack(struct model *m, uint64_t t, uint32_t id, uint32_t pid, uint64_t ip)
{
	_Alignas(8) unsigned char buf[sizeof(struct tt_stack) + 2 * 8];
	struct tt_stack *st = (struct tt_stack *)buf;

	memset(buf, 0, sizeof(buf));
	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION, sizeof(buf), t};
	st->id = id;
	st->pid = pid;
	st->nr = 2;
	st->flags = pid ? 0 : TT_STACK_KERNEL;
	st->ips[0] = ip;
	st->ips[1] = ip + 0x100;
	model__ingest(m, &st->hdr);
}

static void sample(struct model *m, uint64_t t, uint32_t pid, uint32_t tid, uint32_t kstack,
		   uint32_t ustack)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = pid,
		.tid = tid,
		.start_time_ns = 1,
		.weight_us = 50000,
		.syscall_nr = TT_SYSCALL_NONE,
		.state = TT_ST_S,
		.kstack_id = kstack,
		.ustack_id = ustack,
	};

	snprintf(s.comm, sizeof(s.comm), "p%u", pid);
	model__ingest(m, &s.hdr);
}

static void tick(struct model *m, uint64_t t)
{
	struct tt_tick k = {.hdr = {TT_EV_TICK, TT_TICK_VERSION, sizeof(k), t}, .weight_us = 50000};

	model__ingest(m, &k.hdr);
}

/* One second of the long-lived thread, then the interval's end. */
static void second(struct model *m, uint64_t t, uint32_t ustack)
{
	tick(m, t);
	sample(m, t, LIVE_PID, LIVE_PID, KSTACK, ustack);
	model__end_interval(m, t + SEC / 2);
}

/* Threads of the session window's stack rows of pids from DEAD_PID on. */
static int dead_rows(struct model *m, enum model_window window)
{
	struct model_thread_stack *rows;
	int nr = model__thread_stacks(m, window, NULL, &rows), dead = 0;

	for (int i = 0; i < nr; i++)
		dead += rows[i].pid >= DEAD_PID;
	free(rows);
	return dead;
}

/* NR_DEAD processes live one sample each at T0, with user stacks 100.. . */
static struct model *churned(void)
{
	struct model *m = model__new(NULL); /* retention 60 s */

	stack(m, T0, KSTACK, 0, 0xffffffff81000000ull);
	stack(m, T0, 50, LIVE_PID, 0x401000);
	second(m, T0, 50);
	for (uint32_t i = 0; i < NR_DEAD; i++) {
		stack(m, T0 + SEC, 100 + i, DEAD_PID + i, 0x500000 + i * 0x10);
		sample(m, T0 + SEC, DEAD_PID + i, DEAD_PID + i, KSTACK, 100 + i);
	}
	second(m, T0 + SEC, 50);
	return m;
}

static void churn_ages_out(void **state)
{
	struct model *m = churned();
	struct model_mem mm;
	uint64_t t = T0 + 2 * SEC;

	(void)state;
	model__mem(m, &mm);
	assert_int_equal(mm.threads, 1 + NR_DEAD);
	assert_int_equal(mm.stacks, 2 + NR_DEAD);
	assert_int_equal(mm.dead_stacks, 0);

	/* Half a minute on, they exited: the minute and the session still count them. */
	for (; t < T0 + 31 * SEC; t += SEC)
		second(m, t, 50);
	assert_int_equal(dead_rows(m, WIN_MINUTE), NR_DEAD);
	assert_int_equal(dead_rows(m, WIN_SESSION), NR_DEAD);
	model__mem(m, &mm);
	assert_int_equal(mm.threads, 1 + NR_DEAD);
	assert_int_equal(mm.exited, NR_DEAD);

	/* Past the retention: the threads go; their stacks are not past the horizon yet. */
	for (; t < T0 + 75 * SEC; t += SEC)
		second(m, t, 50);
	model__mem(m, &mm);
	assert_int_equal(mm.threads, 1);
	assert_int_equal(mm.stacks, 2 + NR_DEAD);
	assert_int_equal(mm.dead_stacks, NR_DEAD);
	assert_int_equal(mm.stacks_aged, 0);

	/* The sources move past the horizon (a dedup set emptied): the dead stacks go. */
	stack(m, t, 100 + NR_DEAD + TT_STACK_ID_HORIZON, LIVE_PID, 0x402000);
	for (uint64_t end = t + 12 * SEC; t < end; t += SEC)
		second(m, t, 100 + NR_DEAD + TT_STACK_ID_HORIZON);
	model__mem(m, &mm);
	assert_int_equal(mm.threads, 1);
	assert_int_equal(mm.dead_stacks, 0);
	assert_int_equal(mm.stacks_aged, NR_DEAD);
	/* What the live thread names stays, the old one too (its key names it). */
	assert_int_equal(mm.stacks, 3);
	assert_non_null(model__stack(m, KSTACK));
	assert_non_null(model__stack(m, 50));
	assert_non_null(model__stack(m, 100 + NR_DEAD + TT_STACK_ID_HORIZON));
	assert_null(model__stack(m, 100));
	model__free(m);
}

/* Stacks something may still name stay past the horizon. */
static void named_stacks_stay(void **state)
{
	struct model *m = churned();
	struct model_mem mm;
	uint64_t t = T0 + 2 * SEC;

	(void)state;
	/* The first dead pid is reused by a live process: its old stacks stay (conservative). */
	stack(m, t, 100 + NR_DEAD + TT_STACK_ID_HORIZON, LIVE_PID, 0x402000);
	for (; t < T0 + 90 * SEC; t += SEC) {
		second(m, t, 50);
		sample(m, t, DEAD_PID, DEAD_PID + 1000000, KSTACK, 0);
	}
	model__mem(m, &mm);
	assert_int_equal(mm.threads, 2);
	assert_int_equal(mm.stacks_aged, NR_DEAD - 1);
	assert_non_null(model__stack(m, 100));
	assert_null(model__stack(m, 101));
	model__free(m);
}

/* Within the horizon nothing goes, however long it is unnamed: a sample may still carry it. */
static void horizon_holds(void **state)
{
	struct model *m = churned();
	struct model_mem mm;

	(void)state;
	stack(m, T0 + 2 * SEC, 101 + TT_STACK_ID_HORIZON, LIVE_PID, 0x402000);
	for (uint64_t t = T0 + 2 * SEC; t < T0 + 200 * SEC; t += SEC)
		second(m, t, 50);
	model__mem(m, &mm);
	assert_int_equal(mm.threads, 1);
	/* Ids 100 and 101 are past it (101 just: the newest is the horizon beyond it)... */
	assert_null(model__stack(m, 100));
	assert_null(model__stack(m, 101));
	/* ...the next one is not. */
	assert_non_null(model__stack(m, 102));
	assert_int_equal(mm.stacks_aged, 2);
	model__free(m);
}

static void lj_func(struct model *m, uint64_t t, uint32_t pid, const char *name)
{
	union {
		struct tt_luajit_func f;
		char buf[sizeof(struct tt_luajit_func) + 64];
	} u;
	size_t len = strlen(name);

	memset(&u, 0, sizeof(u));
	u.f.hdr = (struct tt_event_header){TT_EV_LUAJIT_FUNC, TT_LUAJIT_FUNC_VERSION,
					   (uint32_t)(sizeof(u.f) + len), t};
	u.f.id = 1;
	u.f.pid = pid;
	u.f.len = (uint32_t)len;
	memcpy(u.f.data, name, len);
	model__ingest(m, &u.f.hdr);
}

static void lj_sample(struct model *m, uint64_t t, uint32_t pid)
{
	union {
		struct tt_luajit_sample s;
		char buf[sizeof(struct tt_luajit_sample) + 8];
	} u;

	memset(&u, 0, sizeof(u));
	u.s.hdr = (struct tt_event_header){TT_EV_LUAJIT_SAMPLE, TT_LUAJIT_SAMPLE_VERSION,
					   (uint32_t)(sizeof(u.s) + 8), t};
	u.s.pid = pid;
	u.s.tid = pid;
	u.s.vmstate = TT_LJ_CFUNC;
	u.s.weight_us = 10000;
	u.s.nr = 1;
	u.s.frames[0] = 1;
	model__ingest(m, &u.s.hdr);
}

/* LuaJIT threads and the function names of their processes go with them. */
static void luajit_ages_out(void **state)
{
	struct dict_budget *b = dict_budget__new(64u << 20);
	struct model *m = model__new(NULL);
	struct lj_thread_row *rows;
	size_t used0;
	uint64_t t;

	(void)state;
	model__set_budget(m, b);
	stack(m, T0, KSTACK, 0, 0xffffffff81000000ull);
	second(m, T0, 0);
	used0 = dict_budget__used(b);
	for (uint32_t i = 0; i < 50; i++) {
		lj_func(m, T0 + SEC, DEAD_PID + i, "f @x.lua:1");
		lj_sample(m, T0 + SEC, DEAD_PID + i);
		sample(m, T0 + SEC, DEAD_PID + i, DEAD_PID + i, KSTACK, 0);
	}
	for (t = T0 + SEC; t < T0 + 31 * SEC; t += SEC)
		second(m, t, 0);
	assert_int_equal(lj_model__threads(model__luajit(m), WIN_SESSION, 0, &rows), 50);
	free(rows);
	for (; t < T0 + 75 * SEC; t += SEC)
		second(m, t, 0);
	assert_int_equal(lj_model__threads(model__luajit(m), WIN_SESSION, 0, &rows), 0);
	free(rows);
	/* Each process's name went back; the name table keeps the one text they shared. */
	assert_int_equal(dict_budget__used(b), used0 + strlen("f @x.lua:1") + DICT_BUDGET_ENTRY);
	model__free(m);
	dict_budget__free(b);
}

static void string(struct model *m, uint64_t t, uint32_t id, const char *text)
{
	union {
		struct tt_string s;
		char buf[sizeof(struct tt_string) + 32];
	} u;
	size_t len = strlen(text);

	u.s.hdr = (struct tt_event_header){TT_EV_STRING, TT_STRING_VERSION,
					   (uint32_t)(sizeof(u.s) + len), t};
	u.s.id = id;
	u.s.len = (uint32_t)len; /* 0: the retirement */
	memcpy(u.s.data, text, len);
	model__ingest(m, &u.s.hdr);
}

static void thread_info(struct model *m, uint64_t t, uint32_t pid, uint32_t cmdline_id)
{
	struct tt_thread_info info = {
		.hdr = {TT_EV_THREAD_INFO, TT_THREAD_INFO_VERSION, sizeof(info), t},
		.pid = pid,
		.tid = pid,
		.cmdline_id = cmdline_id,
	};

	model__ingest(m, &info.hdr);
}

/*
 * A string its source retired goes once nothing names it: a dead process's
 * command line after its thread is past the retention time, an unnamed one
 * at the next pass; a live thread's stays; one never retired stays.
 */
static void retired_strings_age_out(void **state)
{
	struct model *m = model__new(NULL); /* retention 60 s */
	struct model_mem mm;
	uint64_t t = T0;

	stack(m, t, KSTACK, 0, 0xffffffff81000000ull);
	string(m, t, 1, "/usr/bin/live --serve");
	string(m, t, 2, "/bin/true once");
	string(m, t, 3, "never named");
	string(m, t, 4, "kept by its source");
	thread_info(m, t, LIVE_PID, 1);
	thread_info(m, t, DEAD_PID, 2);
	sample(m, t, DEAD_PID, DEAD_PID, KSTACK, 0);
	second(m, t, 0);
	string(m, t + SEC, 1, ""); /* all three retired; 4 not */
	string(m, t + SEC, 2, "");
	string(m, t + SEC, 3, "");
	string(m, t + SEC, 99, ""); /* unknown: nothing to do */
	for (int i = 1; i <= 30; i++)
		second(m, t + (uint64_t)i * SEC, 0);
	assert_null(model__string(m, 3));			    /* nothing named it */
	assert_string_equal(model__string(m, 2), "/bin/true once"); /* its thread is retained */
	assert_string_equal(model__string(m, 1), "/usr/bin/live --serve");
	for (int i = 31; i <= 90; i++)
		second(m, t + (uint64_t)i * SEC, 0);
	assert_null(model__string(m, 2)); /* its thread went after 60 s */
	assert_string_equal(model__string(m, 1), "/usr/bin/live --serve"); /* alive */
	assert_string_equal(model__string(m, 4), "kept by its source");
	model__mem(m, &mm);
	assert_int_equal(mm.strings_aged, 2);
	assert_int_equal(mm.strings, 2);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(churn_ages_out),	   cmocka_unit_test(named_stacks_stay),
		cmocka_unit_test(horizon_holds),	   cmocka_unit_test(luajit_ages_out),
		cmocka_unit_test(retired_strings_age_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
