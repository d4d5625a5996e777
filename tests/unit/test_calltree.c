// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the merged call tree and the model queries that feed the
 * Stacks pane: per-stack sample counts with state and frame filters, and
 * grouping by leaf kernel frame.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calltree_fixture.h"
#include "calltree.h"
#include "model.h"
#include "util.h"

/* 6 samples computing (R), 3 in io waiting in the kernel (D), 1 without stacks. */
static struct model *fixture(void)
{
	struct model *m = model__new(NULL);

	ct_fill(m, true);
	return m;
}

static uint32_t child_with_ip(const struct calltree *t, uint32_t parent, uint64_t ip)
{
	for (uint32_t c = calltree__node(t, parent)->first_child; c != CALLTREE_NONE;
	     c = calltree__node(t, c)->next_sibling)
		if (calltree__node(t, c)->ip == ip)
			return c;
	return CALLTREE_NONE;
}

static bool all_open(void *ctx, const struct calltree_node *n)
{
	return true;
}

static bool none_open(void *ctx, const struct calltree_node *n)
{
	return false;
}

static bool all_open(void *ctx, const struct calltree_node *n);

static void stack_samples_and_tree(void **state)
{
	struct model *m = fixture();
	struct model_stack_count *pairs;
	struct model_query q;
	struct calltree *t;
	uint64_t total;
	uint32_t main_, work, compute, io, kread, kwait, *flat, path[8];
	int nr;

	model_query_init(&q);
	nr = model__stack_samples(m, &q, &pairs, &total);
	assert_int_equal(nr, 2);
	assert_int_equal(total, 10); /* the stackless sample counts in the total only */
	t = calltree__new(m, pairs, (size_t)nr);
	free(pairs);

	/* Lazy: only the root's children exist until nodes are expanded. */
	assert_int_equal(calltree__count(t), 2);
	main_ = child_with_ip(t, CALLTREE_ROOT, U_MAIN);
	assert_int_equal(calltree__node(t, main_)->nr_children, 1); /* "some" */
	assert_false(calltree__node(t, main_)->built);
	/* Flattening with everything open makes every node. */
	assert_int_equal(calltree__flatten(t, all_open, NULL, &flat), 6);
	free(flat);

	assert_int_equal(calltree__node(t, CALLTREE_ROOT)->total, 9);
	main_ = child_with_ip(t, CALLTREE_ROOT, U_MAIN);
	assert_int_not_equal(main_, CALLTREE_NONE);
	assert_int_equal(calltree__node(t, main_)->total, 9);
	assert_int_equal(calltree__node(t, main_)->self, 0);
	work = child_with_ip(t, main_, U_WORK);
	compute = child_with_ip(t, work, U_COMPUTE);
	io = child_with_ip(t, work, U_IO);
	assert_int_equal(calltree__node(t, compute)->total, 6);
	assert_int_equal(calltree__node(t, compute)->self, 6);
	assert_int_equal(calltree__node(t, io)->total, 3);
	assert_int_equal(calltree__node(t, io)->self, 0);
	/* Kernel frames continue the user path, outermost first. */
	kread = child_with_ip(t, io, K_READ);
	kwait = child_with_ip(t, kread, K_WAIT);
	assert_true(calltree__node(t, kread)->kernel);
	assert_int_equal(calltree__node(t, kwait)->self, 3);
	assert_int_equal(calltree__node(t, kwait)->depth, 5);
	assert_int_equal(calltree__count(t), 7); /* root + 6 frames */

	/* Paths identify nodes across rebuilds. */
	assert_int_equal(calltree__find(t, calltree__node(t, kwait)->path), kwait);
	assert_int_equal(calltree__find(t, 12345), CALLTREE_NONE);

	/* Flattened: hottest first; closed nodes hide their children. */
	assert_int_equal(calltree__flatten(t, none_open, NULL, &flat), 1);
	free(flat);
	assert_int_equal(calltree__flatten(t, all_open, NULL, &flat), 6);
	assert_int_equal(flat[0], main_);
	assert_int_equal(flat[2], compute); /* 6 before 3 */
	assert_int_equal(flat[3], io);
	assert_int_equal(flat[5], kwait);
	free(flat);
	assert_true(calltree__is_last(t, io));
	assert_false(calltree__is_last(t, compute));

	/* The hottest path is the one the pane opens by default. */
	assert_int_equal(calltree__hot_path(t, path, 8), 3);
	assert_int_equal(path[2], compute);
	calltree__free(t);

	/* On a fresh tree, the hot path builds just what it walks. */
	model_query_init(&q);
	nr = model__stack_samples(m, &q, &pairs, &total);
	t = calltree__new(m, pairs, (size_t)nr);
	free(pairs);
	assert_int_equal(calltree__hot_path(t, path, 8), 3);
	assert_int_equal(calltree__node(t, path[2])->ip, U_COMPUTE);
	assert_int_equal(calltree__node(t, path[2])->self, 6);
	assert_int_equal(calltree__count(t), 5); /* root, main, work, compute, io */
	assert_false(
		calltree__node(t, calltree__find(t, calltree__node(t, path[1])->path))->kernel);
	calltree__free(t);
	model__free(m);
}

static void filters(void **state)
{
	struct model *m = fixture();
	struct model_stack_count *pairs;
	struct model_result res;
	struct model_query q;
	uint64_t total;
	int nr;

	/* Off-CPU: only the D samples, with the io stacks. */
	model_query_init(&q);
	q.filter.state_mask = 1u << TT_ST_D;
	nr = model__stack_samples(m, &q, &pairs, &total);
	assert_int_equal(nr, 1);
	assert_int_equal(pairs[0].kstack_id, 3);
	assert_int_equal(pairs[0].ustack_id, 2);
	assert_int_equal(pairs[0].samples, 3);
	free(pairs);

	/* A frame narrows every query to the samples whose stacks hold it. */
	model_query_init(&q);
	q.filter.stack_ip = U_WORK;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2); /* tids 11 and 12, not the stackless 13 */
	model_result__release(&res);
	q.filter.stack_ip = K_WAIT;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].tid, 12);
	model_result__release(&res);

	/* Group by leaf kernel frame. */
	model_query_init(&q);
	q.dims = DIM_BIT(DIM_KLEAF);
	q.sort = SORT_SAMPLES;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_int_equal(res.rows[0].kleaf_ip, 0); /* 7 samples without a kernel stack */
	assert_int_equal(res.rows[0].samples, 7);
	assert_int_equal(res.rows[1].kleaf_ip, K_WAIT);
	model_result__release(&res);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stack_samples_and_tree),
		cmocka_unit_test(filters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
