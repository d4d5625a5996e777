// SPDX-License-Identifier: GPL-2.0-only
/* Tests of the perf-PID.map reader: lookups, overlaps, malformed lines. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "perfmap.h"

static void test_lookup(void **state)
{
	static const char text[] = "7f0000001000 100 LuaJIT trace #1\n"
				   "0x7f0000002000 0x80 JS:~foo bar.js:10\r\n"
				   "garbage line\n"
				   "7f0000003000 zz bad size\n"
				   "7f0000004000 0 zero size\n"
				   "7f0000001000 40 trace #1 reused\n"
				   "ffffffffffffff00 1000 wraps\n"
				   "7f0000005000 1000 long\n"
				   "7f0000005800 10 inner";
	struct perfmap *pm = perfmap__parse(text, strlen(text));
	const struct perfmap_sym *s;

	assert_non_null(pm);
	assert_int_equal(perfmap__count(pm), 4);
	s = perfmap__find(pm, 0x7f0000001010ull);
	assert_non_null(s);
	assert_string_equal(s->name, "trace #1 reused"); /* the later line wins */
	assert_null(perfmap__find(pm, 0x7f0000001040ull));
	s = perfmap__find(pm, 0x7f000000207full);
	assert_string_equal(s->name, "JS:~foo bar.js:10");
	assert_null(perfmap__find(pm, 0x7f0000002080ull));
	assert_null(perfmap__find(pm, 0x7f0000004000ull));
	assert_string_equal(perfmap__find(pm, 0x7f0000005805ull)->name, "inner");
	assert_string_equal(perfmap__find(pm, 0x7f0000005900ull)->name, "long");
	assert_null(perfmap__find(pm, 0));
	perfmap__free(pm);
}

static void test_missing(void **state)
{
	errno = 0;
	assert_null(perfmap__read(TT_FIXTURES "/sym/no-such-perf.map"));
	assert_int_equal(errno, ENOENT);
	assert_null(perfmap__find(NULL, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
