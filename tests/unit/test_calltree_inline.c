// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inlined functions in the merged call tree (the Stacks pane): with a frame
 * namer that says which functions the compiler inlined at an address, that
 * frame is a node per function, outermost first, each a child of the one
 * before; without a namer (a replay) the tree is the plain one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calltree_fixture.h"
#include "calltree.h"
#include "threadtop/frame_namer.h"
#include "model.h"
#include "util.h"

static unsigned namer_calls;

static int inline_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static const char *const at_work[] = {"helper"}, *const at_compute[] = {"mid", "inner"};
	static char name[32];

	/* One function per address: the tree merges frames by function name. */
	snprintf(name, sizeof(name), "fn_%llx", (unsigned long long)addr);
	namer_calls++;
	*ret = (struct frame_name){.name = name, .kernel = kernel};
	if (addr == U_WORK) {
		ret->inlined = at_work;
		ret->nr_inlined = 1;
	} else if (addr == U_COMPUTE) {
		ret->inlined = at_compute;
		ret->nr_inlined = 2;
	}
	return 0;
}

static const struct frame_namer namer = {inline_name, NULL};

/* 6 samples computing, 3 in io waiting in the kernel. */
static struct calltree *tree(struct model *m, bool with_namer)
{
	struct model_stack_count *pairs;
	struct model_query q;
	struct calltree *t;
	uint64_t total;
	int nr;

	if (with_namer)
		model__set_frame_namer(m, &namer);
	ct_fill(m, false);
	model_query_init(&q);
	nr = model__stack_samples(m, &q, &pairs, &total);
	assert_int_equal(nr, 2);
	t = calltree__new(m, pairs, (size_t)nr);
	free(pairs);
	return t;
}

/* The child of parent at ip and inlined level, or CALLTREE_NONE. */
static uint32_t child(struct calltree *t, uint32_t parent, uint64_t ip, unsigned level)
{
	calltree__expand(t, parent);
	for (uint32_t c = calltree__node(t, parent)->first_child; c != CALLTREE_NONE;
	     c = calltree__node(t, c)->next_sibling)
		if (calltree__node(t, c)->ip == ip && calltree__node(t, c)->inlined == level)
			return c;
	return CALLTREE_NONE;
}

static bool all_open(void *ctx, const struct calltree_node *n)
{
	return true;
}

static void expanded(void **state)
{
	struct model *m = model__new(NULL);
	struct calltree *t = tree(m, true);
	uint32_t main_, work, helper, compute, mid, inner, io, kread, kwait, *flat, path[16];

	main_ = child(t, CALLTREE_ROOT, U_MAIN, 0);
	work = child(t, main_, U_WORK, 0);
	assert_int_not_equal(work, CALLTREE_NONE);
	/* work's frame is work, then helper inlined in it; both paths go through. */
	assert_int_equal(child(t, work, U_COMPUTE, 0), CALLTREE_NONE);
	helper = child(t, work, U_WORK, 1);
	assert_int_not_equal(helper, CALLTREE_NONE);
	assert_int_equal(calltree__node(t, work)->self, 0);
	assert_int_equal(calltree__node(t, helper)->total, 9);
	compute = child(t, helper, U_COMPUTE, 0);
	mid = child(t, compute, U_COMPUTE, 1);
	inner = child(t, mid, U_COMPUTE, 2);
	assert_int_not_equal(inner, CALLTREE_NONE);
	assert_int_equal(calltree__node(t, compute)->self, 0);
	assert_int_equal(calltree__node(t, mid)->self, 0);
	assert_int_equal(calltree__node(t, inner)->self, 6);
	assert_int_equal(calltree__node(t, inner)->nr_children, 0);
	assert_int_equal(calltree__node(t, inner)->depth, 6);
	/* Kernel frames follow the user path, not expanded. */
	io = child(t, helper, U_IO, 0);
	kread = child(t, io, K_READ, 0);
	kwait = child(t, kread, K_WAIT, 0);
	assert_int_not_equal(kwait, CALLTREE_NONE);
	assert_int_equal(calltree__node(t, kwait)->depth, 6);
	assert_int_equal(calltree__node(t, kwait)->self, 3);
	/* Distinct paths, found again. */
	assert_int_not_equal(calltree__node(t, helper)->path, calltree__node(t, work)->path);
	assert_int_equal(calltree__find(t, calltree__node(t, mid)->path), mid);
	assert_int_equal(calltree__flatten(t, all_open, NULL, &flat), 9);
	free(flat);
	calltree__free(t);

	/* A fresh tree's hot path walks down to the innermost inlined function. */
	model__free(m);
	m = model__new(NULL);
	t = tree(m, true);
	assert_int_equal(calltree__hot_path(t, path, 16), 6);
	assert_int_equal(calltree__node(t, path[5])->ip, U_COMPUTE);
	assert_int_equal(calltree__node(t, path[5])->inlined, 2);
	assert_int_equal(calltree__node(t, path[5])->self, 6);
	calltree__free(t);
	model__free(m);
}

/* Names by function: 0x21xx are "leaf", kernel 0xffffffff9xxxxxxx the tracer's glue. */
static int function_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel,
			 struct frame_name *ret)
{
	static char name[32];

	if (addr >= 0x2100 && addr < 0x2200)
		snprintf(name, sizeof(name), "leaf");
	else if (kernel && addr >= 0xffffffff90000000ull)
		snprintf(name, sizeof(name), "bpf_prog_1234_on_switch");
	else
		snprintf(name, sizeof(name), "fn_%llx", (unsigned long long)addr);
	*ret = (struct frame_name){
		.name = name, .module = kernel ? "[kernel]" : "app", .kernel = kernel};
	return 0;
}

/*
 * Two addresses of one function are one node, as in the profile every export
 * reads (the folded line main;leaf), and threadtop's own tracing frames at a
 * kernel stack's leaf are cut, as the profile cuts them.
 */
static void merged_by_function(void **state)
{
	static const struct frame_namer by_function = {function_name, NULL};
	static const uint64_t a[] = {0x2110, U_MAIN}, b[] = {0x2120, U_MAIN};
	static const uint64_t k[] = {0xffffffff90000010ull, K_WAIT, K_READ};
	struct model_stack_count pairs[] = {{.ustack_id = 21, .samples = 4},
					    {.ustack_id = 22, .samples = 2},
					    {.kstack_id = 23, .ustack_id = 21, .samples = 1}};
	struct model *m = model__new(NULL);
	struct calltree *t;
	uint32_t main_, leaf, kread, kwait;

	model__set_frame_namer(m, &by_function);
	model__advance(m, T0);
	ct_stack(m, 21, false, a, 2);
	ct_stack(m, 22, false, b, 2);
	ct_stack(m, 23, true, k, 3);
	t = calltree__new(m, pairs, 3);
	main_ = child(t, CALLTREE_ROOT, U_MAIN, 0);
	assert_int_not_equal(main_, CALLTREE_NONE);
	calltree__expand(t, main_);
	assert_int_equal(calltree__node(t, main_)->nr_children, 1);
	leaf = calltree__node(t, main_)->first_child;
	assert_int_equal(calltree__node(t, leaf)->total, 7);
	assert_int_equal(calltree__node(t, leaf)->self, 6);
	kread = child(t, leaf, K_READ, 0);
	kwait = child(t, kread, K_WAIT, 0);
	assert_int_not_equal(kwait, CALLTREE_NONE);
	calltree__expand(t, kwait);
	assert_int_equal(calltree__node(t, kwait)->nr_children, 0);
	assert_int_equal(calltree__node(t, kwait)->self, 1);
	calltree__free(t);
	/* Drilling down into the merged leaf keeps both its stacks, not only its first address. */
	assert_true(model__stack_holds(m, 21, 0x2110));
	assert_true(model__stack_holds(m, 22, 0x2110));
	assert_false(model__stack_holds(m, 22, U_WORK));
	assert_false(model__stack_holds(m, 23, 0x2110)); /* a kernel stack: no user function */
	assert_false(model__stack_holds(m, 99, 0x2110)); /* an unknown stack */
	model__set_frame_namer(m, NULL);		 /* no names: addresses only */
	assert_false(model__stack_holds(m, 22, 0x2110));
	model__free(m);
}

/* No namer (a replay): one node per address, and the namer is never asked. */
static void plain(void **state)
{
	struct model *m = model__new(NULL);
	struct calltree *t;
	uint32_t *flat;

	namer_calls = 0;
	t = tree(m, false);
	assert_int_equal(calltree__flatten(t, all_open, NULL, &flat), 6);
	free(flat);
	assert_int_equal(namer_calls, 0);
	calltree__free(t);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expanded),
		cmocka_unit_test(merged_by_function),
		cmocka_unit_test(plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
