// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the USE pane's sparklines (ui/sparkline.c): the glyph of
 * each level in UTF-8 and ASCII, unknown values, clamping, right
 * alignment, a buffer too small, and the binning that lets one line span
 * the whole history.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "sparkline.h"

static void test_utf8_levels(void **state)
{
	const float v[] = {0, 50, 100, NAN, 1000, -5, 3};
	char buf[64];

	assert_int_equal(sparkline_render(v, 7, 100, true, 7, buf, sizeof(buf)), 7);
	/* 0 is the lowest block (measured, idle), 50 the middle, NaN a space,
	 * over the top clamps to the full block, below 0 to the lowest, a small
	 * load is never drawn as idle. */
	assert_string_equal(buf, "▁▅█ █▁▂");
}

static void test_ascii_levels(void **state)
{
	const float v[] = {0, 50, 100, NAN, 1000, -5, 3};
	char buf[64];

	assert_int_equal(sparkline_render(v, 7, 100, false, 7, buf, sizeof(buf)), 7);
	assert_string_equal(buf, ".+@ @.:");
}

static void test_width(void **state)
{
	const float v[] = {100, 0, 100};
	char buf[64];

	/* Fewer values than cells: right-aligned, the newest at the right edge. */
	sparkline_render(v, 3, 100, false, 5, buf, sizeof(buf));
	assert_string_equal(buf, "  @.@");
	/* More values than cells: the newest ones. */
	sparkline_render(v, 3, 100, false, 2, buf, sizeof(buf));
	assert_string_equal(buf, ".@");
	/* A buffer too small for every cell: whole cells only, terminated. */
	assert_int_equal(sparkline_render(v, 3, 100, true, 3, buf, 7), 2);
	assert_string_equal(buf, "█▁");
	/* full <= 0: nothing can be scaled, every cell is blank. */
	sparkline_render(v, 3, 0, false, 3, buf, sizeof(buf));
	assert_string_equal(buf, "   ");
}

static void test_bin(void **state)
{
	const float v[] = {NAN, NAN, 10, 20, 30, 40, NAN};
	float out[8];

	/* Bins of 2 end at the newest value: [40 NaN] [20 30] [NaN 10] [NaN]. */
	assert_int_equal(sparkline_bin(v, 7, 2, out, 8), 4);
	assert_true(isnan(out[0]));
	assert_float_equal(out[1], 10, 1e-6);
	assert_float_equal(out[2], 25, 1e-6);
	assert_float_equal(out[3], 40, 1e-6);
	/* cap keeps the newest bins. */
	assert_int_equal(sparkline_bin(v, 7, 2, out, 2), 2);
	assert_float_equal(out[0], 25, 1e-6);
	assert_float_equal(out[1], 40, 1e-6);
	/* per 0 is taken as 1: a copy. */
	assert_int_equal(sparkline_bin(v, 7, 0, out, 8), 7);
	assert_float_equal(out[5], 40, 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_levels),
		cmocka_unit_test(test_ascii_levels),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_bin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
