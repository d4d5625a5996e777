// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of the replay timeline's time parsing (ui/timeline.c): what b accepts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "timeline.h"
#include "util.h"

#define S NSEC_PER_SEC
#define DAY (86400ull * 20000) /* some day, in seconds since the epoch */

static const struct replay_status st = {
	.first_ns = 50 * S,
	.last_ns = 4000 * S,
	.shown_ns = 100 * S,
	.shown_realtime_ns = (DAY + 10 * 3600) * S, /* 10:00:00 UTC */
	.interval_s = 1,
};

static void test_relative(void **state)
{
	assert_int_equal(timeline_parse(&st, "-30s"), 70 * S);
	assert_int_equal(timeline_parse(&st, "-30"), 70 * S);
	assert_int_equal(timeline_parse(&st, "+2m"), 220 * S);
	assert_int_equal(timeline_parse(&st, " 90"), 190 * S);
	assert_int_equal(timeline_parse(&st, "-1.5m"), 10 * S);
	/* Before the start of time: the start of the recording. */
	assert_int_equal(timeline_parse(&st, "-1h"), 50 * S);
}

static void test_absolute(void **state)
{
	assert_int_equal(timeline_parse(&st, "10:00:30"), 130 * S);
	assert_int_equal(timeline_parse(&st, "09:59"), 40 * S);
	assert_int_equal(timeline_parse(&st, "11:00"), 3700 * S);
}

static void test_not_a_time(void **state)
{
	assert_int_equal(timeline_parse(&st, ""), 0);
	assert_int_equal(timeline_parse(&st, "soon"), 0);
	assert_int_equal(timeline_parse(&st, "-30x"), 0);
	assert_int_equal(timeline_parse(&st, "25:00"), 0);
	assert_int_equal(timeline_parse(&st, "10:61"), 0);
	assert_int_equal(timeline_parse(&st, "10"), 110 * S); /* seconds ahead, not an hour */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relative),
		cmocka_unit_test(test_absolute),
		cmocka_unit_test(test_not_a_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
