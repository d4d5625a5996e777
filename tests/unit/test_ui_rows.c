// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the TUI's columns over model rows (sort, the first rows
 * sorted alone, text filter, escaping of other processes' strings, row
 * identity) and for the model fields they read: the last complete interval
 * window and each thread's latest sample.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rows.h"
#include "model.h"
#include "threadtop/frame_namer.h"
#include "util.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)

static void sample(struct model *m, uint64_t t, uint32_t tid, const char *comm, enum tt_state state,
		   int syscall)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = 10,
		.tid = tid,
		.start_time_ns = 1,
		.weight_us = 50000,
		.syscall_nr = syscall,
		.state = (uint8_t)state,
	};

	memcpy(s.comm, comm, strlen(comm) < TT_COMM_LEN ? strlen(comm) : TT_COMM_LEN - 1);
	model__ingest(m, &s.hdr);
}

static struct model_row row(uint32_t pid, uint32_t tid, const char *comm, double active,
			    uint64_t samples)
{
	struct model_row r = {.pid = pid,
			      .tid = tid,
			      .comm = comm,
			      .avg_active = active,
			      .samples = samples,
			      .syscall = TT_SYSCALL_NONE,
			      .cur_syscall = TT_SYSCALL_NONE};
	return r;
}

static void sort_columns(void **state)
{
	struct rows_ctx c = {.dims = DIM_BIT(DIM_TID), .cpu_valid = true};
	struct model_row rows[4] = {
		row(1, 3, "bash", 0.5, 10),
		row(1, 1, "zsh", 2.0, 40),
		row(2, 2, "awk", 1.0, 20),
		row(2, 4, "cat", 0.0, 1),
	};

	rows[0].cur_syscall = 0;   /* read */
	rows[1].cur_syscall = 232; /* epoll_wait */
	rows[2].cur_syscall = TT_SYSCALL_NONE;
	rows[3].cur_syscall = 1; /* write */
	rows[0].cpu_pct = 5;
	rows[1].cpu_pct = 50;
	rows[2].cpu_pct = 99;
	rows[3].cpu_pct = 0;

	rows_sort(&c, rows, 4, COL_ACTIVE, false); /* figures: largest first */
	assert_int_equal(rows[0].tid, 1);
	assert_int_equal(rows[3].tid, 4);
	rows_sort(&c, rows, 4, COL_ACTIVE, true);
	assert_int_equal(rows[0].tid, 4);
	rows_sort(&c, rows, 4, COL_TID, false); /* keys: smallest first */
	for (int i = 0; i < 4; i++)
		assert_int_equal(rows[i].tid, (uint32_t)i + 1);
	rows_sort(&c, rows, 4, COL_COMM, false);
	assert_string_equal(rows[0].comm, "awk");
	assert_string_equal(rows[3].comm, "zsh");
	rows_sort(&c, rows, 4, COL_CPU, false);
	assert_int_equal(rows[0].tid, 2);
	/* Syscalls by name; threads in none sort last. */
	rows_sort(&c, rows, 4, COL_SYSCALL, false);
	assert_int_equal(rows[0].cur_syscall, 232);
	assert_int_equal(rows[1].cur_syscall, 0);
	assert_int_equal(rows[2].cur_syscall, 1);
	assert_int_equal(rows[3].cur_syscall, TT_SYSCALL_NONE);
}

/*
 * The first rows sorted alone (rows_sort_first) are a whole sort's first
 * rows, in its order, and every row is kept: by figures with many ties
 * (idle threads), by name, reversed; a k of most rows sorts them all.
 */
static void sort_first_is_sort(void **state)
{
	static const int cols[] = {COL_ACTIVE, COL_COMM, COL_CPU, COL_TID};
	struct rows_ctx c = {.dims = DIM_BIT(DIM_TID), .cpu_valid = true};
	enum { NR = 3000, K = 100 };
	static const char *const comms[] = {"bash", "zsh", "awk", "cat", "nginx"};
	struct model_row *rows = xcalloc(NR, sizeof(*rows)), *want = xcalloc(NR, sizeof(*want));
	uint64_t seed = 7;

	(void)state;
	for (size_t i = 0; i < NR; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		rows[i] =
			row(1 + (uint32_t)(seed >> 56), (uint32_t)(NR - i), comms[(seed >> 40) % 5],
			    (seed >> 62) ? 0.0 : (double)(seed >> 50 & 7), 20 + (seed >> 61));
		rows[i].cpu_pct = (double)(seed >> 33 & 3);
	}
	for (size_t n = 0; n < sizeof(cols) / sizeof(cols[0]) * 2; n++) {
		int col = cols[n / 2];
		bool reverse = n % 2;
		uint64_t sum = 0;

		memcpy(want, rows, NR * sizeof(*rows));
		rows_sort(&c, want, NR, col, reverse);
		assert_int_equal(rows_sort_first(&c, rows, NR, col, reverse, K), K);
		for (size_t i = 0; i < K; i++)
			assert_int_equal(rows_key(&rows[i]), rows_key(&want[i]));
		for (size_t i = 0; i < NR; i++)
			sum += rows_key(&rows[i]) - rows_key(&want[i]);
		assert_int_equal(sum, 0); /* the same rows, whatever their order after K */
	}
	assert_int_equal(rows_sort_first(&c, rows, NR, COL_TID, false, NR / 2), NR);
	for (size_t i = 0; i < NR; i++)
		assert_int_equal(rows[i].tid, i + 1);
	assert_int_equal(rows_sort_first(&c, rows, NR, COL_TID, false, 0), 0);
	free(rows);
	free(want);
}

static void cells_are_escaped(void **state)
{
	struct rows_ctx c = {.dims = DIM_BIT(DIM_TID)};
	struct model_row r = row(7, 8, "\033[2Jevil\a", 0, 1);
	char buf[128];

	rows_cell(&c, &r, COL_COMM, buf, sizeof(buf));
	assert_null(strchr(buf, '\033'));
	assert_null(strchr(buf, '\a'));
	assert_non_null(strstr(buf, "\\e[2Jevil"));
	/* A kernel thread without a command line shows its comm in brackets. */
	rows_cell(&c, &r, COL_CMD, buf, sizeof(buf));
	assert_null(strchr(buf, '\033'));
	assert_int_equal(buf[0], '[');
	rows_cell(&c, &r, COL_PID, buf, sizeof(buf));
	assert_string_equal(buf, "7");
	/* %CPU only where it means CPU time. */
	rows_cell(&c, &r, COL_CPU, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	r.cur_syscall = 230;
	rows_cell(&c, &r, COL_SYSCALL, buf, sizeof(buf));
	assert_string_equal(buf, "clock_nanosleep");
	c.total_samples = 4;
	rows_cell(&c, &r, COL_SHARE, buf, sizeof(buf));
	assert_string_equal(buf, "25.0%");
}

static void text_filter(void **state)
{
	static const int cols[] = {COL_PID, COL_COMM, COL_SYSCALL, COL_MIX};
	struct rows_ctx c = {.dims = DIM_BIT(DIM_TID)};
	struct model_row rows[3] = {row(100, 100, "nginx", 0, 1), row(200, 201, "Postgres", 0, 1),
				    row(300, 300, "redis", 0, 1)};

	rows[2].cur_syscall = 232;
	assert_true(rows_match(&c, &rows[1], cols, 4, "postgres")); /* case-insensitive */
	assert_true(rows_match(&c, &rows[2], cols, 4, "epoll"));
	assert_true(rows_match(&c, &rows[0], cols, 4, ""));
	assert_false(rows_match(&c, &rows[0], cols, 4, "redis"));
	assert_int_equal(rows_filter(&c, rows, 3, cols, 4, "200"), 1);
	assert_int_equal(rows[0].tid, 201);
	assert_int_equal(rows_filter(&c, rows, 1, cols, 4, "nothing"), 0);
}

static void row_identity(void **state)
{
	struct model_row a = row(1, 2, "x", 0, 1), b = row(1, 2, "x", 5, 9),
			 c = row(1, 3, "x", 0, 1);

	assert_true(rows_key(&a) == rows_key(&b)); /* figures do not matter */
	assert_true(rows_key(&a) != rows_key(&c));
	b.state = TT_ST_D;
	assert_true(rows_key(&a) != rows_key(&b));
}

/* The model's last complete interval and latest sample, as the Threads pane reads them. */
static void last_interval_and_latest_sample(void **state)
{
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;
	struct model_stats st;

	model__advance(m, T0);
	for (int i = 0; i < 20; i++)
		sample(m, T0 + (uint64_t)i * SEC / 20, 11, "worker", i < 19 ? TT_ST_S : TT_ST_R,
		       i < 19 ? 232 : TT_SYSCALL_NONE);
	model_query_init(&q);
	q.window = WIN_LAST;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 0); /* no interval ended yet */
	model_result__release(&res);

	model__end_interval(m, T0 + SEC);
	model__stats(m, &st);
	assert_int_equal(st.intervals, 1);
	sample(m, T0 + SEC + SEC / 20, 11, "worker", TT_ST_D, 0);
	model__advance(m, T0 + SEC + SEC / 10);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].samples, 20); /* the new interval's sample is not in it */
	assert_int_equal(res.rows[0].state_samples[TT_ST_S], 19);
	assert_true(res.window_s > 0.99 && res.window_s < 1.01);
	/* The latest sample: D in read. */
	assert_int_equal(res.rows[0].cur_state, TT_ST_D);
	assert_int_equal(res.rows[0].cur_syscall, 0);
	model_result__release(&res);
	model__free(m);
}

/*
 * The FD TARGET column and dimension: a thread's latest target, escaped;
 * rows grouped by target; a sample of version 1 (no target field) has none.
 */
static void fd_targets(void **state)
{
	static const char path[] = "/tmp/fi\033[31mfo\nx";
	union {
		struct tt_string rec;
		char room[sizeof(struct tt_string) + 64];
	} str = {.rec = {.hdr = {TT_EV_STRING, TT_STRING_VERSION,
				 (uint32_t)(sizeof(struct tt_string) + sizeof(path) - 1), T0},
			 .id = 5,
			 .len = sizeof(path) - 1}};
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), T0},
		.pid = 10,
		.tid = 11,
		.start_time_ns = 1,
		.weight_us = 50000,
		.syscall_nr = 0,
		.state = TT_ST_S,
		.syscall_target_id = 5,
	};
	struct model *m = model__new(NULL);
	struct rows_ctx c = {.dims = DIM_BIT(DIM_TID), .m = m};
	struct model_result res;
	struct model_query q;
	char buf[128];

	memcpy(str.rec.data, path, sizeof(path) - 1);
	model__advance(m, T0);
	model__ingest(m, &str.rec.hdr);
	model__ingest(m, &s.hdr);
	/* Another thread in a version 1 sample: the bytes past its end are not a target. */
	s.hdr.version = 1;
	s.hdr.size = 136;
	s.tid = 12;
	model__ingest(m, &s.hdr);
	model_query_init(&q);
	q.sort = SORT_TID;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_int_equal(res.rows[0].cur_target_id, 5);
	assert_int_equal(res.rows[1].cur_target_id, 0);
	rows_cell(&c, &res.rows[0], COL_TARGET, buf, sizeof(buf));
	assert_string_equal(buf, "/tmp/fi\\e[31mfo\\nx");
	rows_cell(&c, &res.rows[1], COL_TARGET, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	model_result__release(&res);
	/* Grouped by target: one row with it, one without. */
	q.dims = DIM_BIT(DIM_FD_TARGET);
	q.sort = SORT_SAMPLES;
	c.dims = q.dims;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_true(res.rows[0].target_id == 5 || res.rows[1].target_id == 5);
	for (size_t i = 0; i < res.nr; i++)
		if (res.rows[i].target_id == 5)
			assert_string_equal(res.rows[i].target, path);
	model_result__release(&res);
	/* Narrowed to the target. */
	q.filter.target_id = 5;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	model_result__release(&res);
	model__free(m);
}

/* The syscall columns (--syscalls): text, and order (more first, no stat ties). */
static void syscall_columns(void **state)
{
	static struct sc_stat sc[UI_SC_MAX];
	struct rows_ctx c = {.dims = DIM_BIT(DIM_SYSCALL), .sc = sc};
	struct model_row a = row(1, 0, "a", 0, 1), b = row(1, 0, "b", 0, 1),
			 n = row(1, 0, "n", 0, 1);
	static const int cols[] = {COL_COUNT, COL_TIME, COL_P50, COL_P99, COL_HIST};
	static const char *const want[] = {"4", "4.0", "1us", "2.1ms", "1.0ms"};
	char buf[64];

	memset(sc, 0, sizeof(sc));
	sc[3] = (struct sc_stat){.count = 4, .total_ns = 4000000};
	sc[3].hist[9] = 3;  /* <= 1024 ns */
	sc[3].hist[20] = 1; /* <= 2 ms */
	sc[4].hist[1] = 1;  /* no calls counted: shown as none */
	a.syscall = 3;
	b.syscall = 4;
	for (size_t i = 0; i < ARRAY_SIZE(cols); i++) {
		assert_string_equal(rows_cell(&c, &a, cols[i], buf, sizeof(buf)), want[i]);
		assert_string_equal(rows_cell(&c, &b, cols[i], buf, sizeof(buf)), "-");
		assert_string_equal(rows_cell(&c, &n, cols[i], buf, sizeof(buf)), "-");
		assert_true(rows_compare(&c, &a, &b, cols[i]) < 0);
		assert_true(rows_compare(&c, &b, &a, cols[i]) > 0);
		assert_int_equal(rows_compare(&c, &a, &n, cols[i]), 0);
	}
	c.sc = NULL; /* no --syscalls */
	assert_string_equal(rows_cell(&c, &a, COL_COUNT, buf, sizeof(buf)), "-");
	assert_int_equal(rows_compare(&c, &a, &b, COL_COUNT), 0);
}

/* TOP FRAME: the kernel leaf, else the user leaf, else the wait channel. */
static void top_frame(void **state)
{
	struct model *m = model__new(NULL);
	struct rows_ctx c = {.m = m};
	struct model_row k = row(1, 0, "k", 0, 1), u = row(1, 0, "u", 0, 1),
			 none = row(1, 0, "none", 0, 1);
	char buf[128];

	k.kleaf_ip = 0x10;
	k.uleaf_ip = 0x99;
	u.uleaf_ip = 0x5;
	assert_non_null(strstr(rows_cell(&c, &k, COL_FRAME, buf, sizeof(buf)), " [k]"));
	assert_null(strstr(rows_cell(&c, &u, COL_FRAME, buf, sizeof(buf)), " [k]"));
	assert_string_not_equal(buf, "-");
	assert_string_equal(rows_cell(&c, &none, COL_FRAME, buf, sizeof(buf)), "-");
	assert_true(rows_compare(&c, &k, &u, COL_FRAME) > 0); /* by address */
	assert_true(rows_compare(&c, &k, &none, COL_FRAME) < 0);
	assert_true(rows_compare(&c, &none, &u, COL_FRAME) > 0);
	/* A thread row without stacks in the model has no frame. */
	c.dims = DIM_BIT(DIM_TID);
	k.cur_kstack_id = k.cur_ustack_id = 7;
	assert_string_equal(rows_cell(&c, &k, COL_FRAME, buf, sizeof(buf)), "-");
	model__free(m);
}

/* Names 0x100 "zeta" and 0x200 "alpha": the address order is not the names'. */
static int leaf_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	(void)ctx;
	(void)pid;
	memset(ret, 0, sizeof(*ret));
	ret->kernel = kernel;
	ret->name = addr == 0x100 ? "zeta" : addr == 0x200 ? "alpha" : "mid";
	return 0;
}

/* The Group pane's leaf-function columns sort by name (issue 25), rows without a leaf last. */
static void leaf_sort_by_name(void **state)
{
	static const struct frame_namer namer = {leaf_name, NULL};
	struct model *m = model__new(NULL);
	struct rows_ctx c = {.m = m, .dims = DIM_BIT(DIM_ULEAF)};
	struct model_row z = row(1, 0, "z", 0, 1), a = row(1, 0, "a", 0, 1),
			 none = row(1, 0, "none", 0, 1);

	(void)state;
	model__set_frame_namer(m, &namer);
	z.uleaf_ip = z.kleaf_ip = 0x100;
	a.uleaf_ip = a.kleaf_ip = 0x200;
	assert_true(rows_compare(&c, &a, &z, COL_ULEAF) < 0); /* alpha before zeta */
	assert_true(rows_compare(&c, &z, &a, COL_ULEAF) > 0);
	assert_true(rows_compare(&c, &a, &z, COL_KLEAF) < 0);
	assert_true(rows_compare(&c, &z, &none, COL_ULEAF) < 0);
	assert_int_equal(rows_compare(&c, &a, &a, COL_ULEAF), 0);
	model__free(m);
}

/* Names cgroup 42 as a container with a hostile byte; knows no other. */
static int cg_name(void *ctx, uint64_t id, char *buf, size_t len)
{
	if (id != 42)
		return -ENOENT;
	snprintf(buf, len, "docker/3f2a\x1b[1m");
	return 0;
}

/* The Group pane's cgroup column: the container's name when known (escaped), else the id. */
static void cgroup_names(void **state)
{
	static const struct cgroup_namer namer = {cg_name, NULL};
	struct model *m = model__new(NULL);
	struct rows_ctx c = {.m = m, .dims = DIM_BIT(DIM_CGROUP)};
	struct model_row known = {.cgroup_id = 42}, unknown = {.cgroup_id = 7};
	char buf[64];

	assert_string_equal(rows_cell(&c, &known, COL_CGROUP, buf, sizeof(buf)), "42");
	model__set_cgroup_namer(m, &namer);
	assert_string_equal(rows_cell(&c, &known, COL_CGROUP, buf, sizeof(buf)),
			    "docker/3f2a\\e[1m");
	assert_string_equal(rows_cell(&c, &unknown, COL_CGROUP, buf, sizeof(buf)), "7");
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sort_columns),
		cmocka_unit_test(sort_first_is_sort),
		cmocka_unit_test(cells_are_escaped),
		cmocka_unit_test(text_filter),
		cmocka_unit_test(row_identity),
		cmocka_unit_test(last_interval_and_latest_sample),
		cmocka_unit_test(syscall_columns),
		cmocka_unit_test(top_frame),
		cmocka_unit_test(leaf_sort_by_name),
		cmocka_unit_test(cgroup_names),
		cmocka_unit_test(fd_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
