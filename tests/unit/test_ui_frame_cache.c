// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the TUI's frame cache (ui/frame_build.c) and the Stacks
 * pane's rows made on demand (ui/stack_rows.c), on a virtual terminal: a
 * frame of the same data reuses the last rows and tree, but a filter, sort,
 * window, drill-down, expansion or new interval never shows stale ones; the
 * rows made on demand come in calltree__flatten's order, and End or a
 * search reaches the last of them; the Threads pane's rows sorted as the
 * keys reach them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "keys.h"
#include "screen.h"
#include "stack_rows.h"
#include "calltree.h"
#include "util.h"
#include "tui_internal.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)
#define NTHREADS 20
#define NSTACKS 120

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Stack id: odd ids kernel, even user; outer frames shared, inner ones spread. */
static void add_stack(struct model *m, uint32_t id, uint64_t t)
{
	bool kernel = id % 2;
	uint16_t nr = (uint16_t)(3 + rnd() % 6);
	size_t size = sizeof(struct tt_stack) + nr * sizeof(uint64_t);
	struct tt_stack *st = calloc(1, size);
	uint64_t base = kernel ? 0xffffffff81000000ull : 0x400000ull, branch = id;

	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION, (uint32_t)size, t};
	st->id = id;
	st->pid = 100;
	st->nr = nr;
	st->flags = kernel ? TT_STACK_KERNEL : 0;
	for (unsigned d = 0; d < nr; d++) {
		/* callers as return addresses, one past where they are named */
		st->ips[nr - 1 - d] =
			base + (d << 12) + (branch % (1u + 2 * d)) * 16 + (d < nr - 1u);
		branch = branch * 2654435761u + d;
	}
	model__ingest(m, &st->hdr);
	free(st);
}

static void add_sample(struct model *m, uint64_t t, uint32_t tid, uint8_t state, uint32_t k,
		       uint32_t u)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = 100,
		.tid = tid,
		.start_time_ns = tid,
		.weight_us = 50000,
		.syscall_nr = state == TT_ST_R ? TT_SYSCALL_NONE : (int)(tid % 3),
		.kstack_id = k,
		.ustack_id = u,
		.state = state,
	};

	snprintf(s.comm, sizeof(s.comm), "worker-%u", tid);
	model__ingest(m, &s.hdr);
}

/* One interval of samples of threads [first, first + n) starting at t; then it closes. */
static void interval(struct model *m, uint64_t t, uint32_t first, uint32_t n)
{
	for (int tick = 0; tick < 20; tick++)
		for (uint32_t k = first; k < first + n; k++) {
			uint32_t a = (k * 7 + (uint32_t)tick) % (NSTACKS / 2);
			/* Thread k is busier the higher k: a clear order by activity. */
			uint8_t state = (uint32_t)tick < k ? TT_ST_R : TT_ST_S;

			add_sample(m, t + (uint64_t)tick * SEC / 20, 1000 + k, state, 1 + 2 * a,
				   2 + 2 * a);
		}
	model__end_interval(m, t + SEC);
}

static struct model *make_model(void)
{
	struct model *m = model__new(NULL);

	model__advance(m, T0);
	for (uint32_t i = 1; i <= NSTACKS; i++)
		add_stack(m, i, T0);
	interval(m, T0, 0, NTHREADS);
	return m;
}

static int setup(void **state)
{
	struct screen_opts so = {.headless = true, .rows = 30, .cols = 120};

	return screen_open(&so);
}

static int teardown(void **state)
{
	screen_close();
	return 0;
}

static void type(struct tui *t, const char *s)
{
	for (; *s; s++)
		tui__key(t, *s);
}

static bool open_all(void *ctx, const struct calltree_node *n)
{
	return true;
}

static bool open_some(void *ctx, const struct calltree_node *n)
{
	return n->path % 3 != 0;
}

/* The tree of the model's running samples in its last interval (the Stacks pane's). */
static struct calltree *tree_of(struct model *m)
{
	struct model_stack_count *pairs = NULL;
	struct model_query q;
	struct calltree *tree;
	uint64_t total;
	int n;

	model_query_init(&q);
	q.window = WIN_LAST;
	q.dims = 0;
	q.filter.state_mask = 1u << TT_ST_R; /* on-CPU, as the Stacks pane */
	n = model__stack_samples(m, &q, &pairs, &total);
	assert_true(n > 10);
	tree = calltree__new_flags(m, pairs, (size_t)n, CALLTREE_PROCESSES); /* process roots */
	free(pairs);
	return tree;
}

/* Rows on demand, in parts, are calltree__flatten's rows; find gives each row back. */
static void test_rows_in_flatten_order(void **state)
{
	stack_rows_open_fn opens[] = {open_all, open_some};
	struct model *m = make_model();

	for (int o = 0; o < 2; o++) {
		struct calltree *a = tree_of(m), *b = tree_of(m);
		struct stack_rows sr = {0};
		uint32_t *flat = NULL;
		size_t n = calltree__flatten(
			a, (bool (*)(void *, const struct calltree_node *))opens[o], NULL, &flat);

		assert_true(n > 50);
		stack_rows_reset(&sr, b, opens[o], NULL);
		assert_int_equal(stack_rows_fill(&sr, 7), 7);
		assert_false(sr.done);
		assert_int_equal(stack_rows_fill(&sr, 30), 30);
		assert_int_equal(stack_rows_fill(&sr, SIZE_MAX), n);
		assert_true(sr.done);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(calltree__node(b, sr.rows[i])->path,
					 calltree__node(a, flat[i])->path);
		/* From scratch, find makes rows only until it meets the node. */
		stack_rows_reset(&sr, b, opens[o], NULL);
		assert_int_equal(stack_rows_find(&sr, calltree__node(a, flat[n / 2])->path), n / 2);
		assert_int_equal(stack_rows_find(&sr, 12345), SIZE_MAX);
		stack_rows_release(&sr);
		free(flat);
		calltree__free(a);
		calltree__free(b);
	}
	model__free(m);
}

static bool shows_tid(const struct tui *t, uint32_t tid)
{
	for (size_t i = 0; i < t->nr_rows; i++)
		if (t->rows[i].tid == tid)
			return true;
	return false;
}

/* A frame of the same data asks the model nothing; new data (an interval) is asked for. */
static void test_same_data_cached_new_data_asked(void **state)
{
	struct model *m = make_model();
	struct tui *t = tui__new(m, "bpf", 20, 1.0);
	struct model_row *cached;

	tui__frame(t);
	assert_int_equal(t->nr_rows, NTHREADS);
	cached = t->table_caches[PANE_THREADS].rows;
	tui__frame(t);
	assert_ptr_equal(t->table_caches[PANE_THREADS].rows, cached); /* not asked again */
	assert_int_equal(t->nr_rows, NTHREADS);

	/* A new interval with a new thread: without tui__data_changed too (the model's count). */
	interval(m, T0 + SEC, 0, NTHREADS + 1);
	tui__frame(t);
	assert_int_equal(t->nr_rows, NTHREADS + 1);
	assert_true(shows_tid(t, 1000 + NTHREADS));

	/* Told the data changed, the TUI asks again even if the model's counters look alike. */
	tui__data_changed(t);
	tui__frame(t);
	assert_int_equal(t->table_caches[PANE_THREADS].key.gen, t->data_gen);
	tui__free(t);
	model__free(m);
}

/* The text filter and the sort run on every frame, over the cached rows. */
static void test_filter_and_sort_not_stale(void **state)
{
	struct model *m = make_model();
	struct tui *t = tui__new(m, "bpf", 20, 1.0);
	uint32_t first;

	tui__frame(t);
	first = t->rows[0].tid;
	assert_int_equal(first, 1000 + NTHREADS - 1); /* the busiest thread */
	type(t, "\\worker-1001");
	assert_int_equal(t->nr_rows, 1);
	assert_int_equal(t->rows[0].tid, 1001);
	tui__frame(t); /* the same data: still filtered */
	assert_int_equal(t->nr_rows, 1);
	tui__key(t, UK_ESC); /* clears the filter: every row again */
	assert_int_equal(t->nr_rows, NTHREADS);
	tui__key(t, 'I'); /* reversed: the quietest first */
	assert_int_equal(t->rows[0].tid, 1000);
	tui__frame(t);
	assert_int_equal(t->rows[0].tid, 1000);
	tui__key(t, 'I');
	tui__frame(t);
	assert_int_equal(t->rows[0].tid, first);
	tui__free(t);
	model__free(m);
}

/* Hiding threads, the window and a drill-down change the query: never the cached rows. */
static void test_query_changes_not_stale(void **state)
{
	struct model *m = make_model();
	struct tui *t = tui__new(m, "bpf", 20, 1.0);
	uint64_t samples = 0;

	interval(m, T0 + SEC, 0, 2); /* the last interval: two threads only */
	t->view.show_idle = true;    /* every sample counts below, the sleepers' too */
	tui__key(t, '2');	     /* the Group pane, unfiltered, is in its cache */
	tui__key(t, '1');
	assert_int_equal(t->nr_rows, 2);
	tui__key(t, 'K'); /* hiding kernel threads: none here, the same rows */
	assert_int_equal(t->nr_rows, 2);
	tui__key(t, 'K');
	tui__key(t, 'w'); /* last minute: both intervals */
	assert_int_equal(t->nr_rows, NTHREADS);
	tui__key(t, 'w');
	tui__key(t, 'w'); /* back to the last interval */
	assert_int_equal(t->nr_rows, 2);
	tui__key(t, UK_ENTER); /* drill into the first row's thread: the Group pane */
	assert_int_equal(t->view.pane, PANE_GROUP);
	for (size_t i = 0; i < t->nr_rows; i++)
		samples += t->rows[i].samples;
	assert_int_equal(samples, 20);
	tui__key(t, UK_ESC);
	assert_int_equal(t->view.pane, PANE_THREADS);
	assert_int_equal(t->nr_rows, 2);
	tui__free(t);
	model__free(m);
}

/* Expanding and collapsing make the rows again; a frame of the same data keeps them. */
static void test_stacks_expand_not_stale(void **state)
{
	struct model *m = make_model();
	struct tui *t = tui__new(m, "bpf", 20, 1.0);
	struct calltree *tree = tree_of(m);
	uint32_t *flat = NULL;
	size_t all = calltree__flatten(tree, open_all, NULL, &flat), hot;
	const struct calltree *built;

	tui__key(t, '4');
	tui_rows_needed(t, 10, true);
	hot = t->stack_rows.nr; /* the hottest path open */
	assert_true(hot < all);
	built = t->tree;
	tui__frame(t);
	assert_ptr_equal(t->tree, built); /* the same data: the same tree */
	tui__key(t, 'E');
	tui_rows_needed(t, 10, true);
	assert_int_equal(t->stack_rows.nr, all);
	for (size_t i = 0; i < all; i++)
		assert_int_equal(calltree__node(t->tree, t->stack_rows.rows[i])->path,
				 calltree__node(tree, flat[i])->path);
	tui__frame(t);
	tui_rows_needed(t, 10, true);
	assert_int_equal(t->stack_rows.nr, all); /* still all open after a cached frame */
	tui__key(t, 'E');			 /* everything closed */
	tui_rows_needed(t, 10, true);
	assert_true(t->stack_rows.nr < hot);
	tui__key(t, UK_HOME);
	tui__key(t, '+');
	tui_rows_needed(t, 10, true);
	assert_true(t->stack_rows.nr > 1);
	/* Off-CPU stacks are another query: a tree of their own. */
	tui__key(t, 'o');
	assert_true(t->tree_key.offcpu);
	assert_true(calltree__node(t->tree, CALLTREE_ROOT)->total !=
		    calltree__node(tree, CALLTREE_ROOT)->total);
	free(flat);
	calltree__free(tree);
	tui__free(t);
	model__free(m);
}

/* All open, a frame makes about a screen of rows; End makes them all and reaches the last. */
static void test_stacks_rows_on_demand(void **state)
{
	struct model *m = make_model();
	struct tui *t = tui__new(m, "bpf", 20, 1.0);
	struct calltree *tree = tree_of(m);
	uint32_t *flat = NULL;
	size_t all = calltree__flatten(tree, open_all, NULL, &flat);

	tui__key(t, '4');
	tui__key(t, 'E');
	tui__frame(t);
	assert_false(t->stack_rows.done);
	assert_true(t->stack_rows.nr < all);
	tui__key(t, UK_END);
	assert_true(t->stack_rows.done);
	assert_int_equal(t->view.per_pane[PANE_STACKS].sel, all - 1);
	/* A new interval: the selected frame stays selected down there. */
	interval(m, T0 + SEC, 0, NTHREADS);
	tui__data_changed(t);
	tui__frame(t);
	assert_int_equal(
		calltree__node(t->tree, t->stack_rows.rows[t->view.per_pane[PANE_STACKS].sel])
			->path,
		calltree__node(tree, flat[all - 1])->path);
	free(flat);
	calltree__free(tree);
	tui__free(t);
	model__free(m);
}

/* Rows by tid of a copy of t's, sorted whole by the pane's column: what the screen must show. */
static uint32_t *sorted_tids(const struct tui *t)
{
	const struct pane_view *pv = &t->view.per_pane[t->view.pane];
	struct model_row *rows = xmalloc(t->nr_rows * sizeof(*rows));
	uint32_t *tids = xmalloc(t->nr_rows * sizeof(*tids));

	memcpy(rows, t->rows, t->nr_rows * sizeof(*rows));
	rows_sort(&t->rows_ctx, rows, t->nr_rows, pv->sort_col, pv->reverse);
	for (size_t i = 0; i < t->nr_rows; i++)
		tids[i] = rows[i].tid;
	free(rows);
	return tids;
}

/*
 * With thousands of threads a frame sorts its first screens only; the rows
 * past them come in order as the keys reach them (PgDn, End), and a
 * selected row deep down stays selected across a refresh.
 */
static void test_threads_sorted_on_demand(void **state)
{
	struct model *m = model__new(NULL);
	struct tui *t;
	const struct pane_view *pv;
	uint32_t *want, deep;

	model__advance(m, T0);
	for (uint32_t i = 1; i <= NSTACKS; i++)
		add_stack(m, i, T0);
	interval(m, T0, 0, 3000);
	t = tui__new(m, "bpf", 20, 1.0);
	pv = &t->view.per_pane[PANE_THREADS];
	tui__frame(t);
	assert_int_equal(t->nr_rows, 3000);
	assert_true(t->rows_sorted < t->nr_rows);
	want = sorted_tids(t);
	for (size_t i = 0; i < t->rows_sorted; i++)
		assert_int_equal(t->rows[i].tid, want[i]);
	for (int i = 0; i < 30; i++) /* 30 pages of 25: past the first rows sorted */
		tui__key(t, UK_PGDN);
	assert_true(pv->sel > 256);
	for (size_t i = 0; i <= pv->sel; i++)
		assert_int_equal(t->rows[i].tid, want[i]);
	tui__key(t, UK_END);
	assert_int_equal(pv->sel, t->nr_rows - 1);
	assert_int_equal(t->rows_sorted, t->nr_rows);
	for (size_t i = 0; i < t->nr_rows; i++)
		assert_int_equal(t->rows[i].tid, want[i]);
	deep = t->rows[t->nr_rows - 10].tid;
	tui__key(t, UK_UP);
	for (int i = 0; i < 8; i++)
		tui__key(t, UK_UP);
	assert_int_equal(t->rows[pv->sel].tid, deep);
	/* A new interval: sorted anew from the first screens, the selection found down there. */
	interval(m, T0 + SEC, 0, 3000);
	tui__data_changed(t);
	tui__frame(t);
	assert_int_equal(t->rows[pv->sel].tid, deep);
	free(want);
	want = sorted_tids(t);
	for (size_t i = 0; i <= pv->sel; i++)
		assert_int_equal(t->rows[i].tid, want[i]);
	free(want);
	tui__free(t);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_in_flatten_order),
		cmocka_unit_test(test_same_data_cached_new_data_asked),
		cmocka_unit_test(test_filter_and_sort_not_stale),
		cmocka_unit_test(test_query_changes_not_stale),
		cmocka_unit_test(test_stacks_expand_not_stale),
		cmocka_unit_test(test_stacks_rows_on_demand),
		cmocka_unit_test(test_threads_sorted_on_demand),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
