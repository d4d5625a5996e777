// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for a function's source lines (hotlines.c, issue #25 item 5):
 * self and total per line as the Hot pane counts them (a kernel leaf takes
 * self away; recursion counts a line once per sample), addresses without a
 * line counted apart, an inlined function's lines at its own level, and no
 * lines for kernel functions or frames named by address.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hotlines.h"
#include "model.h"
#include "threadtop/frame_namer.h"
#include "util.h"

#define T0 (1000 * NSEC_PER_SEC)
#define U_MAIN 0x1000
#define U_A 0x2000	/* leaf, leaf.c:5 */
#define U_B 0x2010	/* leaf, leaf.c:6 */
#define U_NOLINE 0x2020 /* leaf, no line */
#define U_INL 0x4000	/* outer, where mid and hot were inlined: hot.c:41 */
#define K_FN 0xffffffff81000100ull

static int test_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static const char *const inlined[] = {"mid", "hot"};

	memset(ret, 0, sizeof(*ret));
	ret->kernel = kernel;
	ret->module = kernel ? "[kernel]" : "app";
	if (kernel) {
		ret->name = "k_fn";
	} else if (addr >= U_MAIN && addr < U_MAIN + 0x100) {
		ret->name = "main";
		ret->src_file = "/src/main.c";
		ret->src_line = 10;
	} else if (addr >= U_A && addr < U_A + 0x100) {
		ret->name = "leaf";
		ret->src_file = addr == U_NOLINE ? NULL : "/src/leaf.c";
		ret->src_line = addr == U_A ? 5 : addr == U_B ? 6 : 0;
	} else {
		ret->name = "outer";
		ret->inlined = inlined;
		ret->nr_inlined = 2;
		ret->src_file = "/src/hot.c";
		ret->src_line = 41;
	}
	return 0;
}

static const struct frame_namer namer = {test_name, NULL};

static void add_stack(struct model *m, uint32_t id, bool kernel, const uint64_t *ips, unsigned n)
{
	size_t size = sizeof(struct tt_stack) + n * sizeof(uint64_t);
	struct tt_stack *st = calloc(1, size);

	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION, (uint32_t)size, T0};
	st->id = id;
	st->pid = kernel ? 0 : 10;
	st->nr = n;
	st->flags = kernel ? TT_STACK_KERNEL : 0;
	for (unsigned i = 0; i < n; i++)
		st->ips[i] = ips[i] + (i ? 1 : 0); /* callers: return addresses, as sent */
	model__ingest(m, &st->hdr);
	free(st);
}

static const struct model_stack_count pairs[] = {
	{.ustack_id = 1, .samples = 4, .pid = 10},		   /* leaf.c:5 */
	{.kstack_id = 9, .ustack_id = 2, .samples = 2, .pid = 10}, /* leaf.c:6 under the kernel */
	{.ustack_id = 3, .samples = 3, .pid = 10}, /* leaf.c:5 > leaf.c:6: recursion */
	{.ustack_id = 4, .samples = 1, .pid = 10}, /* no line */
	{.ustack_id = 5, .samples = 5, .pid = 10}, /* hot, inlined in outer */
};

static struct model *fixture(void)
{
	struct model *m = model__new(NULL);

	model__set_frame_namer(m, &namer);
	model__advance(m, T0);
	add_stack(m, 1, false, (const uint64_t[]){U_A, U_MAIN}, 2);
	add_stack(m, 2, false, (const uint64_t[]){U_B, U_MAIN}, 2);
	add_stack(m, 3, false, (const uint64_t[]){U_A, U_B, U_MAIN}, 3);
	add_stack(m, 4, false, (const uint64_t[]){U_NOLINE, U_MAIN}, 2);
	add_stack(m, 5, false, (const uint64_t[]){U_INL, U_MAIN}, 2);
	add_stack(m, 9, true, (const uint64_t[]){K_FN}, 1);
	return m;
}

static struct hotlines *lines(struct model *m, uint64_t ip, bool kernel, unsigned level)
{
	return hotlines__new(m, pairs, sizeof(pairs) / sizeof(pairs[0]), 10, ip, kernel, level);
}

static void leaf_lines(void **state)
{
	struct model *m = fixture();
	struct hotlines *h = lines(m, U_B, false, 0); /* any address of the function */

	assert_int_equal(h->total, 10);
	assert_int_equal(h->self, 8); /* not the 2 under a kernel leaf */
	assert_int_equal(h->no_line, 1);
	assert_int_equal(h->nr, 2);
	assert_string_equal(h->lines[0].file, "/src/leaf.c");
	assert_int_equal(h->lines[0].line, 5);
	assert_int_equal(h->lines[0].self, 7);
	assert_int_equal(h->lines[0].total, 7);
	assert_int_equal(h->lines[1].line, 6);
	assert_int_equal(h->lines[1].self, 0);
	assert_int_equal(h->lines[1].total, 5); /* 2 + 3, the recursion's once */
	assert_int_equal(h->lines[0].pid, 10);
	hotlines__free(h);

	/* A caller: every sample, none of them self, its call line. */
	h = lines(m, U_MAIN, false, 0);
	assert_int_equal(h->total, 15);
	assert_int_equal(h->self, 0);
	assert_int_equal(h->nr, 1);
	assert_int_equal(h->lines[0].line, 10);
	assert_int_equal(h->lines[0].total, 15);
	hotlines__free(h);
	model__free(m);
}

static void inlined_lines(void **state)
{
	struct model *m = fixture();
	struct hotlines *h = lines(m, U_INL, false, 2); /* hot, inlined twice deep */

	assert_int_equal(h->total, 5);
	assert_int_equal(h->self, 5);
	assert_int_equal(h->nr, 1);
	assert_string_equal(h->lines[0].file, "/src/hot.c");
	assert_int_equal(h->lines[0].self, 5);
	hotlines__free(h);

	/* The symbol it was inlined into: the same line, as perf annotate shows it, no self. */
	h = lines(m, U_INL, false, 0);
	assert_int_equal(h->total, 5);
	assert_int_equal(h->self, 0);
	assert_int_equal(h->nr, 1);
	assert_int_equal(h->lines[0].line, 41);
	assert_int_equal(h->lines[0].total, 5);
	assert_int_equal(h->lines[0].self, 0);
	hotlines__free(h);
	model__free(m);
}

static void no_lines(void **state)
{
	struct model *m = fixture();
	struct hotlines *h = lines(m, K_FN, true, 0);

	assert_int_equal(h->nr, 0);
	assert_int_equal(h->total, 0);
	hotlines__free(h);
	model__set_frame_namer(m, NULL); /* a replay without names */
	h = lines(m, U_A, false, 0);
	assert_int_equal(h->nr, 0);
	hotlines__free(h);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(leaf_lines),
		cmocka_unit_test(inlined_lines),
		cmocka_unit_test(no_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
