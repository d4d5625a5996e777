// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for --from/--to times of a replay (replay_range.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "replay_range.h"
#include "util.h"

/* A recording from 2026-11-29T13:20:00Z for 300 s: monotonic 1000 s to 1300 s. */
#define START_WALL 1795958400ull /* 2026-11-29T13:20:00Z */
static const struct replay_span span = {
	.first_ns = 1000 * NSEC_PER_SEC,
	.last_ns = 1300 * NSEC_PER_SEC,
	.boot_time_ns = (START_WALL - 1000) * NSEC_PER_SEC,
};

static uint64_t at(const char *text)
{
	char err[256] = "";
	uint64_t t = 0;

	assert_int_equal(replay_time_parse("--from", text, &span, &t, err, sizeof(err)), 0);
	return t;
}

static void offsets(void **state)
{
	assert_int_equal(at("0"), 1000 * NSEC_PER_SEC);
	assert_int_equal(at("90"), 1090 * NSEC_PER_SEC);
	assert_int_equal(at("90s"), 1090 * NSEC_PER_SEC);
	assert_int_equal(at("+1.5m"), 1090 * NSEC_PER_SEC);
	assert_int_equal(at("0.05h"), 1180 * NSEC_PER_SEC);
	assert_int_equal(at("300.5"), 1300 * NSEC_PER_SEC); /* within a second of the end */
}

static void wall_clock(void **state)
{
	assert_int_equal(at("13:21:30"), 1090 * NSEC_PER_SEC);
	assert_int_equal(at("13:20"), 1000 * NSEC_PER_SEC);
	assert_int_equal(at("2026-11-29T13:25:00Z"), 1300 * NSEC_PER_SEC);
	assert_int_equal(at("2026-11-29 13:22:00"), 1120 * NSEC_PER_SEC);
}

static void errors(void **state)
{
	const char *bad[] = {"",     "abc", "10x", "25:00:00", "13:61", "-5", "2026-13-01T00:00:00",
			     "1e400"};
	char err[256];
	uint64_t t;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(replay_time_check(bad[i]), -EINVAL);
		assert_int_equal(replay_time_parse("--to", bad[i], &span, &t, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "--to"));
	}
	/* Outside the recording: the message gives its span. */
	assert_int_equal(replay_time_parse("--from", "400", &span, &t, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "outside the recording"));
	assert_non_null(strstr(err, "2026-11-29T13:20:00Z to 2026-11-29T13:25:00Z"));
	assert_int_equal(replay_time_parse("--from", "12:00:00", &span, &t, err, sizeof(err)),
			 -ERANGE);
	/* No wall clock in the recording: only offsets. */
	{
		struct replay_span nowall = span;

		nowall.boot_time_ns = 0;
		assert_int_equal(
			replay_time_parse("--from", "13:21:30", &nowall, &t, err, sizeof(err)),
			-EINVAL);
		assert_non_null(strstr(err, "wall-clock"));
		assert_int_equal(replay_time_parse("--from", "10", &nowall, &t, err, sizeof(err)),
				 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(offsets),
		cmocka_unit_test(wall_clock),
		cmocka_unit_test(errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
