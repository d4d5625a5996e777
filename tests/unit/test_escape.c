// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for terminal escaping and the JSON writer's string escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "escape.h"
#include "json.h"

static const char *esc(const char *s, size_t cap)
{
	static char out[256];

	return escape_for_terminal(s, strlen(s), out, cap);
}

static void terminal(void **state)
{
	assert_string_equal(esc("nginx", 64), "nginx");
	assert_string_equal(esc("\x1b[2Jevil", 64), "\\e[2Jevil");
	assert_string_equal(esc("a\nb\tc\x07", 64), "a\\nb\\tc\\x07");
	assert_string_equal(esc("caf\xc3\xa9", 64), "caf\xc3\xa9"); /* valid UTF-8 kept */
	assert_string_equal(esc("bad\xff\xc3", 64), "bad\\xff\\xc3");
	assert_string_equal(esc("\xc2\x9b"
				"31m",
				64),
			    "\\xc2\\x9b31m"); /* C1 CSI */
	assert_string_equal(esc("back\\slash", 64), "back\\\\slash");
	/* Truncation never splits an escape. */
	assert_string_equal(esc("ab\x1b", 5), "ab\\e");
	assert_string_equal(esc("ab\x1b", 4), "ab");
	assert_string_equal(esc("abc", 1), "");
}

/* Bidirectional controls reorder the rest of a terminal line: escaped like controls. */
static void terminal_bidi(void **state)
{
	assert_string_equal(esc("evil\xe2\x80\xaetxt.exe", 64), "evil\\u202etxt.exe"); /* RLO */
	assert_string_equal(esc("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 64),
			    "\\u202a\\u202b\\u202c\\u202d");
	assert_string_equal(esc("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", 64),
			    "\\u2066\\u2067\\u2068\\u2069"); /* isolates */
	/* Their neighbours are printable and kept: U+2029, U+202F, U+2065, U+206A. */
	assert_string_equal(esc("\xe2\x80\xa9\xe2\x80\xaf", 64), "\xe2\x80\xa9\xe2\x80\xaf");
	assert_string_equal(esc("\xe2\x81\xa5\xe2\x81\xaa", 64), "\xe2\x81\xa5\xe2\x81\xaa");
	/* Truncation never splits the escape. */
	assert_string_equal(esc("ab\xe2\x80\xae", 9), "ab\\u202e");
	assert_string_equal(esc("ab\xe2\x80\xae", 8), "ab");
	assert_int_equal(utf8_bidi_control((const unsigned char *)"\xe2\x80\xae", 3), 0x202e);
	assert_int_equal(utf8_bidi_control((const unsigned char *)"\xe2\x82\xac", 3), 0);
}

static char *json_of(const char *s, size_t len)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	json_write_escaped(f, s, len);
	fclose(f);
	return buf;
}

static void json_strings(void **state)
{
	assert_string_equal(json_of("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	assert_string_equal(json_of("\x1b[0m\n", 5), "\"\\u001b[0m\\n\"");
	assert_string_equal(json_of("x\xffy", 3), "\"x\\ufffdy\"");
	assert_string_equal(json_of("\xe2\x82\xac", 3), "\"\xe2\x82\xac\"");
	assert_string_equal(json_of("a\0b", 3), "\"a\\u0000b\"");
	/* Bidi controls as \uXXXX: still the same string to a JSON reader. */
	assert_string_equal(json_of("a\xe2\x80\xae"
				    "b",
				    5),
			    "\"a\\u202eb\"");
	assert_string_equal(json_of("\xe2\x81\xa9", 3), "\"\\u2069\"");
}

static void json_document(void **state)
{
	char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json j;

	json_init(&j, f);
	json_begin_object(&j, NULL);
	json_u64(&j, "a", 1);
	json_begin_array(&j, "b");
	json_i64(&j, NULL, -2);
	json_double(&j, NULL, 0.5, 2);
	json_double(&j, NULL, 0.0 / 0.0, 2);
	json_end_array(&j);
	json_begin_object(&j, "c");
	json_end_object(&j);
	json_bool(&j, "d", true);
	json_string(&j, "e", NULL);
	json_end_object(&j);
	fclose(f);
	assert_string_equal(buf, "{\"a\":1,\"b\":[-2,0.50,null],\"c\":{},\"d\":true,\"e\":null}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(terminal),
		cmocka_unit_test(terminal_bidi),
		cmocka_unit_test(json_strings),
		cmocka_unit_test(json_document),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
