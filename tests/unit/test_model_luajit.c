// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the on-CPU stacks every view counts (model__oncpu_stacks): a C
 * thread's CPU-clock samples at 99 Hz beside a LuaJIT thread's stitched
 * sysprof samples at another interval weigh by time, in the call tree, the
 * hot functions, the profile, the folded export, the JSON report and the
 * SVG flame graph alike; counts are in CPU-clock samples, shares of time;
 * and at equal periods a LuaJIT sample counts one, as before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "calltree.h"
#include "event_codec.h"
#include "export.h"
#include "threadtop/frame_namer.h"
#include "hotfuncs.h"
#include "lj_model.h"
#include "model.h"
#include "profile.h"
#include "u64map.h"

#define C_PID 20
#define C_TID 21
#define LJ_PID 50
#define LJ_TID 51

/* Host addresses: 0x1000 main, 0x2000 lua_pcall, 0x3000 (unnamed in luajit), 0x4000 c_burn. */
static int fake_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static char buf[32];

	(void)ctx, (void)pid, (void)kernel;
	if (addr == 0x1000)
		snprintf(buf, sizeof(buf), "main");
	else if (addr == 0x2000)
		snprintf(buf, sizeof(buf), "lua_pcall");
	else if (addr == 0x4000)
		snprintf(buf, sizeof(buf), "c_burn");
	else
		snprintf(buf, sizeof(buf), "luajit+0x%llx", (unsigned long long)addr);
	*ret = (struct frame_name){.name = buf, .module = pid == C_PID ? "burner" : "luajit"};
	return 0;
}

static const struct frame_namer namer = {fake_name, NULL};

static void ingest_raw(struct model *m, struct tt_event_header *h)
{
	assert_int_equal(tt_event_validate(h, h->size), 0);
	model__ingest(m, h);
}

/* A stack record of id in pid's address space, ips leaf first. */
static void stack(struct model *m, uint32_t id, uint32_t pid, const uint64_t *ips, uint16_t nr)
{
	union {
		struct tt_stack s;
		char buf[sizeof(struct tt_stack) + 4 * 8];
	} st;

	assert_true(nr <= 4);
	memset(&st, 0, sizeof(st));
	st.s.hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION,
					    (uint32_t)(sizeof(st.s) + nr * 8u), 1};
	st.s.id = id;
	st.s.pid = pid;
	st.s.nr = nr;
	memcpy(st.s.ips, ips, nr * 8u);
	for (uint16_t i = 1; i < nr; i++) /* return addresses, as samplers send them */
		st.s.ips[i]++;
	ingest_raw(m, &st.s.hdr);
}

/* n CPU-clock samples of thread tid (of pid) on user stack ustack_id, each weight_us. */
static void cpu_samples(struct model *m, uint32_t pid, uint32_t tid, uint32_t ustack_id,
			uint32_t weight_us, int n)
{
	struct tt_cpu_sample s = {
		.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s), 3},
		.pid = pid,
		.tid = tid,
		.ustack_id = ustack_id,
		.weight_us = weight_us,
	};

	snprintf(s.comm, sizeof(s.comm), "%s", pid == C_PID ? "burner" : "luajit");
	for (int i = 0; i < n; i++)
		ingest_raw(m, &s.hdr);
}

/* n LuaJIT samples of thread 51 on host stack 7 in Lua function 101 under 100, each interval_us. */
static void lua_samples(struct model *m, uint32_t interval_us, int n)
{
	union {
		struct tt_luajit_sample s;
		char buf[sizeof(struct tt_luajit_sample) + 2 * 8];
	} sa;

	memset(&sa, 0, sizeof(sa));
	sa.s.hdr = (struct tt_event_header){TT_EV_LUAJIT_SAMPLE, TT_LUAJIT_SAMPLE_VERSION,
					    sizeof(sa), 2};
	sa.s.pid = LJ_PID, sa.s.tid = LJ_TID, sa.s.ustack_id = 7, sa.s.vmstate = TT_LJ_INTERP;
	sa.s.fidelity = 8, sa.s.weight_us = interval_us, sa.s.nr = 2;
	sa.s.frames[0] = 101, sa.s.frames[1] = 100;
	for (int i = 0; i < n; i++)
		ingest_raw(m, &sa.s.hdr);
}

/*
 * The C thread: c_n CPU-clock samples at 99 Hz (10.101 ms each) in
 * main;c_burn. The LuaJIT thread: lua_n samples every interval_us ms in
 * main;lua_pcall;main chunk;hot, and lj_clock_n CPU-clock samples of its
 * own, which its sysprof samples replace (and whose time they share out).
 */
static struct model *threads_clocked(uint32_t interval_us, int lua_n, int c_n, int lj_clock_n)
{
	static const uint64_t host[] = {0x3000, 0x2000, 0x1000}; /* leaf first */
	static const uint64_t burn[] = {0x4000, 0x1000};
	static const char *const names[] = {"main chunk @a.lua:0", "hot @a.lua:1"};
	union {
		struct tt_luajit_func f;
		char buf[sizeof(struct tt_luajit_func) + 64];
	} fu;
	struct model *m = model__new(NULL);

	model__set_frame_namer(m, &namer);
	stack(m, 7, LJ_PID, host, 3);
	stack(m, 8, C_PID, burn, 2);
	for (int i = 0; i < 2; i++) {
		memset(&fu, 0, sizeof(fu));
		fu.f.hdr = (struct tt_event_header){TT_EV_LUAJIT_FUNC, TT_LUAJIT_FUNC_VERSION,
						    (uint32_t)(sizeof(fu.f) + strlen(names[i])), 1};
		fu.f.id = 100 + (uint64_t)i;
		fu.f.pid = LJ_PID;
		fu.f.len = (uint32_t)strlen(names[i]);
		memcpy(fu.f.data, names[i], fu.f.len);
		ingest_raw(m, &fu.f.hdr);
	}
	cpu_samples(m, C_PID, C_TID, 8, 10101, c_n);
	cpu_samples(m, LJ_PID, LJ_TID, 7, 10101, lj_clock_n);
	lua_samples(m, interval_us, lua_n);
	return m;
}

/* 10 CPU-clock samples of the C thread (101 ms), none of the LuaJIT one: its own weights stand. */
static struct model *two_threads(uint32_t interval_us, int lua_n)
{
	return threads_clocked(interval_us, lua_n, 10, 0);
}

static const struct model_stack_row *row_of(const struct model_stack_row *rows, int n, uint32_t tid)
{
	for (int i = 0; i < n; i++)
		if (rows[i].tid == tid)
			return &rows[i];
	fail_msg("no row of thread %u", tid);
	return NULL;
}

static void period_samples(void **state)
{
	(void)state;
	assert_int_equal(model__period_samples(0, 10000000), 0);
	assert_int_equal(model__period_samples(1000000, 10000000), 1); /* at least one */
	assert_int_equal(model__period_samples(14999999, 10000000), 1);
	assert_int_equal(model__period_samples(15000000, 10000000), 2); /* half up */
	assert_int_equal(model__period_samples(100000000, 10101010), 10);
	assert_int_equal(model__period_samples(7 * 10101010ull, 10101010), 7);
	assert_int_equal(model_cpu_period_ns(0), 10101010); /* the default 99 Hz */
	assert_int_equal(model_cpu_period_ns(100), 10000000);
}

/* The rows: one of each thread, the LuaJIT one's samples of the CPU clock's period. */
static void rows_weigh_time(void **state)
{
	struct model *m = threads_clocked(1000, 100, 10, 10);
	struct model_stack_row *rows = NULL;
	struct u64map *lj = u64map__new();
	const struct model_stack_row *c, *l;
	int n;

	(void)state;
	n = model__oncpu_stacks(m, WIN_SESSION, model_cpu_period_ns(99), true, lj, &rows);
	assert_int_equal(n, 2); /* the LuaJIT thread's CPU-clock row is left out */
	assert_non_null(u64map__get(lj, LJ_TID));
	assert_null(u64map__get(lj, C_TID));
	c = row_of(rows, n, C_TID);
	l = row_of(rows, n, LJ_TID);
	assert_int_equal(c->value, 10);
	assert_int_equal(c->count, 10);
	assert_int_equal(c->taken, 10);
	assert_int_equal(c->ns, 10 * 10101010ull);
	/* 100 samples of 1 ms share out the CPU clock's 10 samples of the thread. */
	assert_int_equal(l->ns, 10 * 10101010ull);
	assert_int_equal(l->taken, 100);
	assert_int_equal(l->value, 10); /* 10, not 100 */
	assert_int_equal(l->count, 10);
	assert_true(l->ustack_id >= TT_LJ_STACK_ID_BASE);
	free(rows);
	u64map__free(lj);
	model__free(m);

	/* Not sampled by the CPU clock: its own 100 ms, 9.9 CPU-clock samples. */
	m = two_threads(1000, 100);
	n = model__oncpu_stacks(m, WIN_SESSION, model_cpu_period_ns(99), true, NULL, &rows);
	assert_int_equal(n, 2);
	l = row_of(rows, n, LJ_TID);
	assert_int_equal(l->ns, 100 * 1000000ull);
	assert_int_equal(l->value, 10);
	free(rows);
	model__free(m);
}

/*
 * The CPU clock skipped periods that fired late (a guest the host left
 * idle): 5 samples of each thread where each ran 100 ms. The LuaJIT
 * thread's own samples say 100 ms; counted so, it held 2/3 of the time. On
 * the one clock the two share it evenly.
 */
static void late_clock_keeps_shares(void **state)
{
	struct model *m = threads_clocked(1000, 100, 5, 5);
	struct model_stack_row *rows = NULL;
	const struct model_stack_row *c, *l;
	int n;

	(void)state;
	n = model__oncpu_stacks(m, WIN_SESSION, model_cpu_period_ns(99), true, NULL, &rows);
	assert_int_equal(n, 2);
	c = row_of(rows, n, C_TID);
	l = row_of(rows, n, LJ_TID);
	assert_int_equal(c->ns, 5 * 10101010ull);
	assert_int_equal(l->ns, c->ns);
	assert_int_equal(l->value, 5);
	assert_int_equal(l->taken, 100);
	free(rows);
	/* Without the CPU clock (--cpu-hz 0) the LuaJIT thread's own time stands. */
	n = model__oncpu_stacks(m, WIN_SESSION, model_cpu_period_ns(99), false, NULL, &rows);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].ns, 100 * 1000000ull);
	free(rows);
	model__free(m);
}

/* The call tree and the hot functions of those rows, as the Stacks and Hot panes take them. */
static void tree_and_hot_share_time(void **state)
{
	struct model *m = two_threads(1000, 100);
	struct model_stack_row *rows = NULL;
	struct model_stack_counts set = {0};
	const struct calltree_node *root, *top;
	const struct hotfunc *hot = NULL, *burn = NULL;
	struct calltree *t;
	struct hotfuncs *h;
	int n;

	(void)state;
	n = model__oncpu_stacks(m, WIN_SESSION, model_cpu_period_ns(99), true, NULL, &rows);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++)
		model_stack_counts__add(&set, rows[i].kstack_id, rows[i].ustack_id, rows[i].pid,
					rows[i].comm, rows[i].value, rows[i].ns);
	model_stack_counts__done(&set);
	free(rows);

	t = calltree__new_flags(m, set.out, set.nr, CALLTREE_PROCESSES);
	root = calltree__node(t, CALLTREE_ROOT);
	assert_int_equal(root->total, 20);
	assert_int_equal(root->total_weight, 100000000ull + 101010100ull);
	/* The hottest process is the C thread's: 101 ms against 100 ms. */
	top = calltree__node(t, root->first_child);
	assert_int_equal(top->pid, C_PID);
	assert_int_equal(top->total, 10);
	assert_in_range(1000 * top->total_weight / root->total_weight, 500, 505);
	top = calltree__node(t, top->next_sibling);
	assert_int_equal(top->pid, LJ_PID);
	assert_int_equal(top->total, 10);
	/* About half the time, not 100 of 110 samples (91%). */
	assert_in_range(1000 * top->total_weight / root->total_weight, 495, 500);
	calltree__free(t);

	h = hotfuncs__new(m, set.out, set.nr);
	assert_int_equal(h->total, 20);
	for (size_t i = 0; i < h->nr; i++) {
		if (h->funcs[i]->name && !strcmp(h->funcs[i]->name, "hot @a.lua:1"))
			hot = h->funcs[i];
		if (h->funcs[i]->name && !strcmp(h->funcs[i]->name, "c_burn"))
			burn = h->funcs[i];
	}
	assert_non_null(hot);
	assert_non_null(burn);
	assert_int_equal(hot->self, 10);
	assert_int_equal(burn->self, 10);
	assert_int_equal(hot->self_weight, 100000000ull);
	assert_int_equal(burn->self_weight, 101010100ull);
	assert_int_equal(h->total_weight, 201010100ull);
	/* By self time: the C function first. */
	assert_ptr_equal(h->funcs[0], burn);
	hotfuncs__free(h);
	free(set.out);
	model__free(m);
}

/* Writes fmt of m's session (cpu_hz) into a string (free it). */
static char *export_text(struct model *m, enum export_format fmt, unsigned cpu_hz)
{
	struct export_opts o = {
		.format = fmt,
		.window = WIN_SESSION,
		.namer = &namer,
		.source = "bpf",
		.hz = 20,
		.cpu_hz = cpu_hz,
		.host = "test",
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(export__write_stream(m, NULL, PROFILE_ONCPU, fmt, &o, f), 0);
	fclose(f);
	return text;
}

/* The profile, the folded export and the JSON report count the same, by time
 * (the LuaJIT thread's on the CPU clock's 9 samples of it). */
static void exports_count_time(void **state)
{
	struct model *m = threads_clocked(1000, 100, 10, 9);
	struct profile_opts po = {.window = WIN_SESSION, .namer = &namer, .cpu_hz = 99};
	struct profile *p = profile__build(m, &po);
	char *folded, *json, *svg, *at;
	int lj = 0, c = 0;

	(void)state;
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];

		if (s->kind != PROFILE_ONCPU)
			continue;
		if (s->tid == LJ_TID) {
			lj++;
			assert_int_equal(s->count, 9);
			assert_int_equal(s->taken, 100);
			assert_int_equal(s->ns, 9 * 10101010ull); /* the CPU clock's 9 */
		} else {
			c++;
			assert_int_equal(s->tid, C_TID);
			assert_int_equal(s->count, 10);
			assert_int_equal(s->ns, 101010100ull);
		}
	}
	assert_int_equal(lj, 1);
	assert_int_equal(c, 1);
	assert_int_equal(p->total_count[PROFILE_ONCPU], 19);
	profile__free(p);

	folded = export_text(m, EXPORT_FOLDED, 99);
	assert_string_equal(folded,
			    "burner;main;c_burn 10\n"
			    "luajit;main;lua_pcall;main chunk @a.lua:0_[lua];hot @a.lua:1_[lua] "
			    "9\n");
	free(folded);

	json = export_text(m, EXPORT_JSON, 99);
	at = strstr(json, "\"hot_functions\":[");
	assert_non_null(at);
	/* Shares of time: 101.0101 ms and 90.9091 ms of 191.9192 ms. */
	assert_non_null(strstr(at, "\"name\":\"c_burn\",\"module\":\"burner\",\"self\":10,"
				   "\"total\":10,\"self_pct\":52.63,\"total_pct\":52.63"));
	assert_non_null(strstr(at, "\"name\":\"hot @a.lua:1\",\"module\":\"[lua]\",\"self\":9,"
				   "\"total\":9,\"self_pct\":47.37,\"total_pct\":47.37"));
	assert_non_null(strstr(json, "\"total_count\":19"));
	free(json);

	/* The flame graph: frames as wide as their time, counted in samples. */
	svg = export_text(m, EXPORT_SVG, 99);
	assert_non_null(strstr(svg, "data-info=\"burner (10 samples, 52.63%)\""));
	assert_non_null(strstr(svg, "data-info=\"luajit (9 samples, 47.37%)\""));
	free(svg);
	model__free(m);
}

/* At equal periods (100 Hz, 10 ms) a LuaJIT sample counts one CPU-clock sample, as before. */
static void equal_periods_count_one(void **state)
{
	struct model *m = two_threads(10000, 37);
	char *folded;

	(void)state;
	folded = export_text(m, EXPORT_FOLDED, 100);
	assert_non_null(strstr(folded, "hot @a.lua:1_[lua] 37\n"));
	assert_non_null(strstr(folded, "burner;main;c_burn 10\n"));
	free(folded);
	model__free(m);
}

/* A running sample of thread tid (of pid) on user stack ustack_id, from the thread sampler. */
static void running_sample(struct model *m, uint32_t pid, uint32_t tid, uint32_t ustack_id)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), 4},
		.pid = pid,
		.tid = tid,
		.start_time_ns = 1,
		.weight_us = 50000,
		.syscall_nr = TT_SYSCALL_NONE,
		.state = TT_ST_R,
		.ustack_id = ustack_id,
	};

	snprintf(s.comm, sizeof(s.comm), "%s", pid == C_PID ? "burner" : "luajit");
	ingest_raw(m, &s.hdr);
}

/*
 * The Threads pane's TOP FRAME of a running LuaJIT thread is its hottest Lua
 * function (its sysprof samples take the place of its CPU-clock ones in the
 * call tree), not the unnamed address its CPU-clock samples end in; a C
 * thread's stays its hottest C function.
 */
static void top_frame_is_lua(void **state)
{
	struct model *m = two_threads(10000, 7);
	struct model_result res;
	struct model_query q;
	struct frame_name fn;
	size_t seen = 0;

	(void)state;
	running_sample(m, LJ_PID, LJ_TID, 7);
	running_sample(m, C_PID, C_TID, 8);
	model_query_init(&q);
	q.dims = DIM_BIT(DIM_TID);
	assert_int_equal(model__query(m, &q, &res), 0);
	for (size_t i = 0; i < res.nr; i++) {
		const struct model_row *r = &res.rows[i];

		if (r->tid == LJ_TID) {
			assert_true(lj_frame_is_lua(r->top_uip));
			model__frame_name(m, LJ_PID, r->top_uip, false, &fn);
			assert_string_equal(fn.name, "hot @a.lua:1");
			seen++;
		} else if (r->tid == C_TID) {
			assert_int_equal(r->top_uip, 0x4000);
			seen++;
		}
		assert_int_equal(r->top_uinlined, 0);
	}
	assert_int_equal(seen, 2);
	model_result__release(&res);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(period_samples),
		cmocka_unit_test(rows_weigh_time),
		cmocka_unit_test(late_clock_keeps_shares),
		cmocka_unit_test(tree_and_hot_share_time),
		cmocka_unit_test(exports_count_time),
		cmocka_unit_test(equal_periods_count_one),
		cmocka_unit_test(top_frame_is_lua),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
