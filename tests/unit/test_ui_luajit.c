// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the LuaJIT pane's pure parts: VM-state shares (sum to one,
 * clamped, no division by zero) and bar text (rounding to eighths in UTF-8,
 * whole '#' cells in ASCII, bounded by the buffer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pane_luajit.h"

static void shares_sum_to_one(void **state)
{
	uint64_t counts[TT_LJ_VMSTATE_MAX] = {0};
	double sh[TT_LJ_VMSTATE_MAX], sum = 0;

	(void)state;
	counts[TT_LJ_TRACE] = 62;
	counts[TT_LJ_INTERP] = 20;
	counts[TT_LJ_GC] = 18;
	lj_vm_shares(counts, 100, sh);
	for (int s = 0; s < TT_LJ_VMSTATE_MAX; s++)
		sum += sh[s];
	assert_true(sum > 0.999 && sum < 1.001);
	assert_true(sh[TT_LJ_TRACE] > 0.619 && sh[TT_LJ_TRACE] < 0.621);
	assert_true(sh[TT_LJ_LFUNC] == 0.0);
}

static void shares_without_samples(void **state)
{
	uint64_t counts[TT_LJ_VMSTATE_MAX] = {0};
	double sh[TT_LJ_VMSTATE_MAX];

	(void)state;
	counts[TT_LJ_GC] = 5; /* inconsistent input: more than samples */
	lj_vm_shares(counts, 0, sh);
	assert_true(sh[TT_LJ_GC] == 0.0);
	lj_vm_shares(counts, 2, sh);
	assert_true(sh[TT_LJ_GC] == 1.0);
}

static void bar_ascii(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(lj_bar_text(0.5, 10, false, buf, sizeof(buf)), "#####");
	assert_string_equal(lj_bar_text(0.0, 10, false, buf, sizeof(buf)), "");
	assert_string_equal(lj_bar_text(2.0, 4, false, buf, sizeof(buf)), "####");
	assert_string_equal(lj_bar_text(-1, 4, false, buf, sizeof(buf)), "");
	assert_string_equal(lj_bar_text(1.0, 100, false, buf, 6), "#####");
}

static void bar_utf8_eighths(void **state)
{
	char buf[64];

	(void)state;
	/* 0.3 of 4 cells = 1.2 cells = one full block and 2 eighths (rounded 9.6 -> 10/8). */
	assert_string_equal(lj_bar_text(0.3, 4, true, buf, sizeof(buf)), "\u2588\u258e");
	assert_string_equal(lj_bar_text(1.0, 2, true, buf, sizeof(buf)), "\u2588\u2588");
	/* A small share still shows: one eighth. */
	assert_string_equal(lj_bar_text(0.03, 4, true, buf, sizeof(buf)), "\u258f");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shares_sum_to_one),
		cmocka_unit_test(shares_without_samples),
		cmocka_unit_test(bar_ascii),
		cmocka_unit_test(bar_utf8_eighths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
