// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of the shared helpers every parser and lookup uses (util.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util.h"

static bool hex(const char *s, uint64_t *ret, size_t *ret_used)
{
	const char *p = s;
	bool ok = scan_hex_u64(&p, s + strlen(s), ret);

	*ret_used = (size_t)(p - s);
	return ok;
}

static void scans_hex(void **state)
{
	uint64_t v = 7;
	size_t used;

	assert_true(hex("ffffffff81000000 T x", &v, &used));
	assert_true(v == 0xffffffff81000000ull);
	assert_int_equal(used, 16);
	assert_true(hex("aB9-", &v, &used));
	assert_true(v == 0xab9);
	assert_int_equal(used, 3);
	v = 7;
	assert_false(hex("", &v, &used));
	assert_false(hex("x1", &v, &used));
	assert_false(hex("10000000000000000", &v, &used)); /* 17 digits: would wrap */
	assert_true(v == 7);				   /* untouched on failure */
	/* Bounded by end, not by a NUL. */
	{
		const char buf[] = {'1', '2', '3'};
		const char *p = buf;

		assert_true(scan_hex_u64(&p, buf + 2, &v));
		assert_true(v == 0x12);
	}
}

struct ent {
	uint32_t pad;
	uint64_t start;
};

static void finds_upper_bound(void **state)
{
	static const struct ent e[] = {{0, 10}, {0, 20}, {0, 20}, {0, 30}};
	size_t off = offsetof(struct ent, start);

	assert_int_equal(upper_bound_u64(e, 0, sizeof(e[0]), off, 100), 0);
	assert_int_equal(upper_bound_u64(e, 4, sizeof(e[0]), off, 9), 0);
	assert_int_equal(upper_bound_u64(e, 4, sizeof(e[0]), off, 10), 1);
	assert_int_equal(upper_bound_u64(e, 4, sizeof(e[0]), off, 19), 1);
	assert_int_equal(upper_bound_u64(e, 4, sizeof(e[0]), off, 20), 3); /* past equal keys */
	assert_int_equal(upper_bound_u64(e, 4, sizeof(e[0]), off, 29), 3);
	assert_int_equal(upper_bound_u64(e, 4, sizeof(e[0]), off, UINT64_MAX), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scans_hex),
		cmocka_unit_test(finds_upper_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
