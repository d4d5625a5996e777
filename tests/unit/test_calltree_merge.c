// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the call tree's merge by function (issue #25): frames at
 * two addresses of one function are one node, frames no symbol covers stay
 * apart by address, the root's children are processes (one per pid, or
 * one per comm), and the tracers' stacks have a last minute.
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
#include "model.h"
#include "threadtop/frame_namer.h"
#include "util.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)

#define U_MAIN 0x1000
#define U_LEAF_A 0x2000 /* two addresses in "leaf" */
#define U_LEAF_B 0x2010
#define U_ANON_A 0x3000 /* no symbol: named by address */
#define U_ANON_B 0x3008
#define U_INL 0x4000		     /* in "outer", where "mid" and "hot" were inlined */
#define K_FN_A 0xffffffff81000100ull /* two addresses in "k_fn" */
#define K_FN_B 0xffffffff81000108ull

/* Names "main", "leaf", "k_fn" by range, anything else "app+0xADDR" (no symbol). */
static int test_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static const char *const inlined[] = {"mid", "hot"};
	static char buf[32];

	memset(ret, 0, sizeof(*ret));
	ret->kernel = kernel;
	ret->module = kernel ? "[kernel]" : "app";
	if (kernel && addr >= K_FN_A && addr < K_FN_A + 0x100)
		ret->name = "k_fn";
	else if (!kernel && addr >= U_MAIN && addr < U_MAIN + 0x100)
		ret->name = "main";
	else if (!kernel && addr >= U_LEAF_A && addr < U_LEAF_A + 0x100)
		ret->name = "leaf";
	else if (!kernel && addr >= U_INL && addr < U_INL + 0x100) {
		ret->name = "outer";
		ret->inlined = inlined;
		ret->nr_inlined = 2;
	} else {
		snprintf(buf, sizeof(buf), "app+0x%llx", (unsigned long long)addr);
		ret->name = buf;
	}
	return 0;
}

static const struct frame_namer namer = {test_name, NULL};

static void add_stack(struct model *m, uint32_t id, uint32_t pid, bool kernel, uint64_t leaf,
		      uint64_t caller)
{
	size_t size = sizeof(struct tt_stack) + 2 * sizeof(uint64_t);
	struct tt_stack *st = calloc(1, size);

	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION, (uint32_t)size, T0};
	st->id = id;
	st->pid = pid;
	st->nr = caller ? 2 : 1;
	st->flags = kernel ? TT_STACK_KERNEL : 0;
	st->ips[0] = leaf;
	st->ips[1] = caller + 1; /* a return address, as samplers send it */
	model__ingest(m, &st->hdr);
	free(st);
}

static void cpu_sample(struct model *m, uint64_t time_ns, uint32_t pid, uint32_t tid, uint32_t k,
		       uint32_t u, int n)
{
	struct tt_cpu_sample s = {
		.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s), time_ns},
		.pid = pid,
		.tid = tid,
		.kstack_id = k,
		.ustack_id = u,
		.weight_us = 10101,
		.comm = "app",
	};

	for (int i = 0; i < n; i++)
		model__ingest(m, &s.hdr);
}

/*
 * Process 10 (tid 11): main > leaf at two addresses (4 + 2 samples), the
 * second with kernel frames at two addresses of k_fn (1 + 1); main > two
 * unnamed addresses (1 each). Process 20 (tid 21), also "app": main > leaf (3).
 */
static struct model *fixture(void)
{
	struct model *m = model__new(NULL);

	model__set_frame_namer(m, &namer);
	model__advance(m, T0);
	add_stack(m, 1, 10, false, U_LEAF_A, U_MAIN);
	add_stack(m, 2, 10, false, U_LEAF_B, U_MAIN);
	add_stack(m, 3, 10, false, U_ANON_A, U_MAIN);
	add_stack(m, 4, 10, false, U_ANON_B, U_MAIN);
	add_stack(m, 5, 20, false, U_LEAF_A, U_MAIN);
	add_stack(m, 6, 0, true, K_FN_A, 0);
	add_stack(m, 7, 0, true, K_FN_B, 0);
	cpu_sample(m, T0 + SEC / 2, 10, 11, 0, 1, 4);
	cpu_sample(m, T0 + SEC / 2, 10, 11, 0, 2, 2);
	cpu_sample(m, T0 + SEC / 2, 10, 11, 6, 2, 1);
	cpu_sample(m, T0 + SEC / 2, 10, 11, 7, 2, 1);
	cpu_sample(m, T0 + SEC / 2, 10, 11, 0, 3, 1);
	cpu_sample(m, T0 + SEC / 2, 10, 11, 0, 4, 1);
	cpu_sample(m, T0 + SEC / 2, 20, 21, 0, 5, 3);
	model__advance(m, T0 + SEC);
	return m;
}

/* The tree of the window's on-CPU stacks, as the Stacks pane feeds it. */
static struct calltree *tree_of(struct model *m, enum model_window w, unsigned flags)
{
	struct model_stack_counts set = {0};
	struct model_stack_row *rows;
	struct calltree *t;
	int n = model__oncpu(m, w, &rows);

	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		model_stack_counts__add(&set, rows[i].kstack_id, rows[i].ustack_id, rows[i].pid,
					rows[i].pcomm, rows[i].value, 0);
	model_stack_counts__done(&set);
	free(rows);
	t = calltree__new_flags(m, set.out, set.nr, flags);
	free(set.out);
	return t;
}

static size_t nr_children(struct calltree *t, uint32_t i)
{
	size_t n = 0;

	calltree__expand(t, i);
	for (uint32_t c = calltree__node(t, i)->first_child; c != CALLTREE_NONE;
	     c = calltree__node(t, c)->next_sibling)
		n++;
	return n;
}

static uint32_t child_where(struct calltree *t, uint32_t parent, uint64_t lo, uint64_t hi)
{
	calltree__expand(t, parent);
	for (uint32_t c = calltree__node(t, parent)->first_child; c != CALLTREE_NONE;
	     c = calltree__node(t, c)->next_sibling)
		if (calltree__node(t, c)->ip >= lo && calltree__node(t, c)->ip < hi)
			return c;
	return CALLTREE_NONE;
}

static void merges_by_function(void **state)
{
	struct model *m = fixture();
	struct calltree *t = tree_of(m, WIN_INTERVAL, 0);
	uint32_t main_, leaf, anon_a, anon_b, kfn;

	/* Both processes' main is one root (no process level asked). */
	assert_int_equal(calltree__node(t, CALLTREE_ROOT)->total, 13);
	assert_int_equal(nr_children(t, CALLTREE_ROOT), 1);
	main_ = child_where(t, CALLTREE_ROOT, U_MAIN, U_MAIN + 0x100);
	assert_int_not_equal(main_, CALLTREE_NONE);
	assert_int_equal(calltree__node(t, main_)->total, 13);
	/* Under main: leaf once (two addresses, two processes), the unnamed apart. */
	assert_int_equal(nr_children(t, main_), 3);
	leaf = child_where(t, main_, U_LEAF_A, U_LEAF_A + 0x100);
	assert_int_not_equal(leaf, CALLTREE_NONE);
	assert_int_equal(calltree__node(t, leaf)->total, 11);
	assert_int_equal(calltree__node(t, leaf)->self, 9);
	anon_a = child_where(t, main_, U_ANON_A, U_ANON_A + 1);
	anon_b = child_where(t, main_, U_ANON_B, U_ANON_B + 1);
	assert_int_not_equal(anon_a, CALLTREE_NONE);
	assert_int_not_equal(anon_b, CALLTREE_NONE);
	assert_int_equal(calltree__node(t, anon_a)->total, 1);
	/* The kernel part under leaf: k_fn once, marked kernel. */
	assert_int_equal(nr_children(t, leaf), 1);
	kfn = child_where(t, leaf, K_FN_A, K_FN_A + 0x100);
	assert_int_not_equal(kfn, CALLTREE_NONE);
	assert_true(calltree__node(t, kfn)->kernel);
	assert_int_equal(calltree__node(t, kfn)->total, 2);
	assert_int_equal(calltree__node(t, kfn)->self, 2);
	calltree__free(t);
	model__free(m);
}

static uint32_t process_node(struct calltree *t, uint32_t pid)
{
	calltree__expand(t, CALLTREE_ROOT);
	for (uint32_t c = calltree__node(t, CALLTREE_ROOT)->first_child; c != CALLTREE_NONE;
	     c = calltree__node(t, c)->next_sibling)
		if (calltree__node(t, c)->process && calltree__node(t, c)->pid == pid)
			return c;
	return CALLTREE_NONE;
}

static void process_roots(void **state)
{
	struct model *m = fixture();
	struct calltree *t = tree_of(m, WIN_INTERVAL, CALLTREE_PROCESSES);
	uint32_t p10, p20, main_;

	assert_int_equal(nr_children(t, CALLTREE_ROOT), 2);
	p10 = process_node(t, 10);
	p20 = process_node(t, 20);
	assert_int_not_equal(p10, CALLTREE_NONE);
	assert_int_not_equal(p20, CALLTREE_NONE);
	assert_string_equal(calltree__node(t, p10)->comm, "app");
	assert_int_equal(calltree__node(t, p10)->total, 10);
	assert_int_equal(calltree__node(t, p10)->self, 0);
	assert_int_equal(calltree__node(t, p20)->total, 3);
	assert_int_equal(calltree__node_pid(t, p20), 20);
	/* The hotter process first; its frames below it as without processes. */
	assert_true(calltree__cmp(t, p10, p20) < 0);
	main_ = child_where(t, p10, U_MAIN, U_MAIN + 0x100);
	assert_int_not_equal(main_, CALLTREE_NONE);
	assert_int_equal(calltree__node(t, main_)->depth, 2);
	assert_int_equal(nr_children(t, main_), 3);
	assert_int_equal(
		calltree__node(t, child_where(t, main_, U_LEAF_A, U_LEAF_A + 0x100))->total, 8);
	/* Paths differ by process: the same frames of two processes are two nodes. */
	assert_int_not_equal(calltree__node(t, main_)->path,
			     calltree__node(t, child_where(t, p20, U_MAIN, U_MAIN + 0x100))->path);
	calltree__free(t);

	/* Merged by comm: both "app" processes are one root node, without a pid. */
	t = tree_of(m, WIN_INTERVAL, CALLTREE_PROCESSES | CALLTREE_MERGE_COMM);
	assert_int_equal(nr_children(t, CALLTREE_ROOT), 1);
	p10 = calltree__node(t, CALLTREE_ROOT)->first_child;
	assert_true(calltree__node(t, p10)->process);
	assert_int_equal(calltree__node(t, p10)->pid, 0);
	assert_string_equal(calltree__node(t, p10)->comm, "app");
	assert_int_equal(calltree__node(t, p10)->total, 13);
	main_ = child_where(t, p10, U_MAIN, U_MAIN + 0x100);
	assert_int_equal(
		calltree__node(t, child_where(t, main_, U_LEAF_A, U_LEAF_A + 0x100))->total, 11);
	calltree__free(t);
	model__free(m);
}

/* Pairs of different processes with the same stacks stay apart in the set. */
static void stack_counts_by_process(void **state)
{
	struct model_stack_counts set = {0};

	model_stack_counts__add(&set, 1, 2, 10, "a", 3, 0);
	model_stack_counts__add(&set, 1, 2, 20, "b", 4, 0);
	model_stack_counts__add(&set, 1, 2, 10, "a", 5, 0);
	model_stack_counts__done(&set);
	assert_int_equal(set.nr, 2);
	assert_int_equal(set.out[0].pid, 10);
	assert_int_equal(set.out[0].samples, 8);
	assert_string_equal(set.out[0].comm, "a");
	assert_int_equal(set.out[1].samples, 4);
	free(set.out);
}

/*
 * 20,000 triples (the index grows from 4,096 slots five times), each added
 * three times, some taken out of a set made elsewhere: one entry each, in
 * the order first added, with the sums and the comm cut to TT_COMM_LEN - 1.
 */
static void stack_counts_many(void **state)
{
	struct model_stack_counts set = {0};
	const uint32_t n = 20000;

	(void)state;
	model_stack_counts__add(&set, 7, 0, 1, NULL, 1, 2);
	for (int round = 0; round < 3; round++)
		for (uint32_t i = 0; i < n; i++)
			/* Triples that differ in one part only: k, u and pid each. */
			model_stack_counts__add(&set, i % 3 ? i : 0, i % 3 == 1 ? 0 : i + 1, i / 3,
						"a-name-longer-than-a-comm", i + 1, 10);
	assert_int_equal(set.nr, n + 1);
	assert_int_equal(set.out[0].kstack_id, 7);
	assert_int_equal(set.out[0].ns, 2);
	assert_string_equal(set.out[0].comm, "");
	for (uint32_t i = 0; i < n; i++) {
		const struct model_stack_count *c = &set.out[i + 1];

		assert_int_equal(c->kstack_id, i % 3 ? i : 0);
		assert_int_equal(c->ustack_id, i % 3 == 1 ? 0 : i + 1);
		assert_int_equal(c->pid, i / 3);
		assert_int_equal(c->samples, 3 * (i + 1));
		assert_int_equal(c->ns, 30);
		assert_int_equal(strlen(c->comm), TT_COMM_LEN - 1);
	}
	/* Done, then added to again: the entries are found anew. */
	model_stack_counts__done(&set);
	model_stack_counts__add(&set, 7, 0, 1, NULL, 1, 2);
	model_stack_counts__add(&set, 8, 0, 1, "b", 1, 2);
	model_stack_counts__done(&set);
	assert_int_equal(set.nr, n + 2);
	assert_int_equal(set.out[0].samples, 2);
	assert_string_equal(set.out[n + 1].comm, "b");
	free(set.out);
}

/* The tracers' stacks are in the last minute too, and leave it after 60 s. */
static void minute_window(void **state)
{
	struct model *m = fixture();
	struct model_stack_row *rows;
	struct calltree *t;
	uint64_t total = 0;
	int n;

	model__end_interval(m, T0 + SEC);
	t = tree_of(m, WIN_MINUTE, CALLTREE_PROCESSES);
	assert_int_equal(calltree__node(t, CALLTREE_ROOT)->total, 13);
	calltree__free(t);
	/* 30 s later, 2 more samples: the minute holds both seconds. */
	model__advance(m, T0 + 30 * SEC);
	cpu_sample(m, T0 + 30 * SEC, 20, 21, 0, 5, 2);
	n = model__oncpu(m, WIN_MINUTE, &rows);
	for (int i = 0; i < n; i++)
		total += rows[i].value;
	free(rows);
	assert_int_equal(total, 15);
	n = model__oncpu(m, WIN_SESSION, &rows);
	total = 0;
	for (int i = 0; i < n; i++)
		total += rows[i].value;
	free(rows);
	assert_int_equal(total, 15);
	/* 70 s on, the first second has left the minute (threads idle since may age out). */
	model__advance(m, T0 + 70 * SEC);
	model__end_interval(m, T0 + 70 * SEC);
	n = model__oncpu(m, WIN_MINUTE, &rows);
	total = 0;
	for (int i = 0; i < n; i++)
		total += rows[i].value;
	free(rows);
	assert_int_equal(total, 2);
	model__free(m);
}

static void thread_sample(struct model *m, uint32_t pid, uint32_t tid, enum tt_state state,
			  uint32_t k, uint32_t u, int n)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), T0 + SEC / 2},
		.pid = pid,
		.tid = tid,
		.start_time_ns = 1,
		.weight_us = 50000,
		.syscall_nr = TT_SYSCALL_NONE,
		.state = (uint8_t)state,
		.kstack_id = k,
		.ustack_id = u,
		.comm = "app",
	};

	for (int i = 0; i < n; i++)
		model__ingest(m, &s.hdr);
}

/* The samples with a stack that q's filter accepts. */
static uint64_t stack_total(struct model *m, const struct model_query *q)
{
	struct model_stack_count *pairs;
	uint64_t total, sum = 0;
	int n = model__stack_samples(m, q, &pairs, &total);

	for (int i = 0; i < n; i++)
		sum += pairs[i].samples;
	free(pairs);
	return sum;
}

/* Group by leaf user function: one row per function, named; unnamed addresses apart. */
static void leaf_dims_by_function(void **state)
{
	struct model *m = fixture();
	struct model_result res;
	struct model_query q;

	thread_sample(m, 10, 11, TT_ST_R, 0, 1, 3);
	thread_sample(m, 10, 11, TT_ST_R, 0, 2, 2);
	thread_sample(m, 10, 11, TT_ST_R, 0, 3, 1);
	model_query_init(&q);
	q.dims = DIM_BIT(DIM_ULEAF);
	q.sort = SORT_SAMPLES;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_true(res.rows[0].uleaf_ip == U_LEAF_A || res.rows[0].uleaf_ip == U_LEAF_B);
	assert_int_equal(res.rows[0].samples, 5);
	assert_int_equal(res.rows[0].leaf_pid, 10); /* to name it, though the row has no pid */
	assert_int_equal(res.rows[1].uleaf_ip, U_ANON_A);
	model_result__release(&res);

	/* Narrowed to the function (a drill-down on the row): both its addresses. */
	model_query_init(&q);
	q.filter.stack_ip = U_LEAF_A;
	assert_int_equal(stack_total(m, &q), 5);
	model_query_init(&q);
	q.dims = DIM_BIT(DIM_ULEAF);
	q.sort = SORT_SAMPLES;

	/* Without a namer (a replay) leaves are addresses: one row each. */
	model__set_frame_namer(m, NULL);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 3);
	model_result__release(&res);
	model__free(m);
}

/* A running thread's top frame is its hottest user function over the window. */
static void running_top_frame(void **state)
{
	struct model *m = fixture();
	struct model_result res;
	struct model_query q;

	/* Its latest sample: running, in the kernel's interrupt return (stack 6). */
	thread_sample(m, 10, 11, TT_ST_R, 6, 3, 1);
	thread_sample(m, 20, 21, TT_ST_S, 6, 5, 1);
	model_query_init(&q);
	q.dims = DIM_BIT(DIM_TID);
	q.sort = SORT_TID;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	for (size_t i = 0; i < res.nr; i++) {
		if (res.rows[i].tid == 11) /* leaf: 8 on-CPU samples at two addresses */
			assert_true(res.rows[i].top_uip == U_LEAF_A ||
				    res.rows[i].top_uip == U_LEAF_B);
		else /* asleep: its kernel leaf stands, no user function */
			assert_int_equal(res.rows[i].top_uip, 0);
	}
	model_result__release(&res);
	model__free(m);
}

/* Its top frame and leaf group are the function inlined at its hot address, as the tree's leaf. */
static void running_top_frame_inlined(void **state)
{
	struct model *m = fixture();
	struct model_result res;
	struct model_query q;

	add_stack(m, 8, 20, false, U_INL, U_MAIN);
	cpu_sample(m, T0 + SEC + SEC / 2, 20, 21, 0, 8, 5);
	thread_sample(m, 20, 21, TT_ST_R, 6, 8, 1);
	model_query_init(&q);
	q.dims = DIM_BIT(DIM_TID);
	q.sort = SORT_TID;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_true(res.nr >= 1);
	assert_int_equal(res.rows[res.nr - 1].tid, 21);
	assert_int_equal(res.rows[res.nr - 1].top_uip, U_INL);	/* 5 samples, against leaf's 3 */
	assert_int_equal(res.rows[res.nr - 1].top_uinlined, 2); /* "hot" */
	model_result__release(&res);

	/* Grouped by leaf user function, it is "hot" too, as the tree's leaf. */
	model_query_init(&q);
	q.dims = DIM_BIT(DIM_ULEAF);
	q.filter.pid = 20;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].uleaf_ip, U_INL);
	assert_int_equal(res.rows[0].uleaf_inlined, 2);
	model_result__release(&res);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merges_by_function),
		cmocka_unit_test(process_roots),
		cmocka_unit_test(stack_counts_by_process),
		cmocka_unit_test(stack_counts_many),
		cmocka_unit_test(minute_window),
		cmocka_unit_test(leaf_dims_by_function),
		cmocka_unit_test(running_top_frame),
		cmocka_unit_test(running_top_frame_inlined),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
