// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the names of the agentless LuaJIT unwinder's frames
 * (src/sources/ljvm_names.c): a prototype and its chunk name laid out as a
 * known build says, read from this very process, then the same with the
 * pointers and lengths a lying process could give: "[lua?]" or a cut
 * name, never a longer read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ljvm_names.h"

/* A GCproto and a GCstr as Debian 12's build lays them out (ljvm_builds.c). */
static unsigned char proto[104];
static unsigned char str[24 + 400];

static const struct ljvm_build *build(void)
{
	static const char *const ff[] = {NULL, NULL, "assert"};
	static struct ljvm_build b;

	b.proto_chunkname = 64;
	b.proto_firstline = 72;
	b.str_len = 20;
	b.str_data = 24;
	b.ffnames = ff;
	b.nr_ffnames = 3;
	return &b;
}

static void set_proto(uint64_t chunk, int32_t line)
{
	memcpy(proto + 64, &chunk, sizeof(chunk));
	memcpy(proto + 72, &line, sizeof(line));
}

static void set_str(const char *s, uint32_t len)
{
	memcpy(str + 20, &len, sizeof(len));
	memcpy(str + 24, s, strlen(s));
}

static size_t name(char *out, size_t cap)
{
	return ljvm_proto_name((uint32_t)getpid(), build(), (uintptr_t)proto, out, cap);
}

static void proto_named(void **state)
{
	char out[LJVM_NAME_MAX];

	(void)state;
	set_str("@app.lua", 8);
	/* A GC64 reference: a type tag above bit 47 is not part of the address. */
	set_proto((uintptr_t)str | 0xfffe800000000000ull, 12);
	assert_int_equal(name(out, sizeof(out)), strlen("@app.lua:12"));
	assert_string_equal(out, "@app.lua:12");
	assert_int_equal(name(out, 6), 5); /* cut to the buffer, NUL-terminated */
	assert_string_equal(out, "@app.");
}

static void lying_process(void **state)
{
	char out[LJVM_NAME_MAX], big[400];

	(void)state;
	set_str("@app.lua", 8);
	set_proto(0, 3); /* no chunk */
	name(out, sizeof(out));
	assert_string_equal(out, "[lua?]");
	set_proto(8, 3); /* a chunk where nothing is mapped */
	name(out, sizeof(out));
	assert_string_equal(out, "[lua?]");
	set_proto((uintptr_t)str, -1); /* a negative first line */
	name(out, sizeof(out));
	assert_string_equal(out, "[lua?]");
	assert_int_equal(ljvm_proto_name((uint32_t)getpid(), build(), 16, out, sizeof(out)), 6);
	assert_string_equal(out, "[lua?]"); /* a prototype where nothing is mapped */
	/* A length past the data: read up to LJVM_CHUNK_MAX bytes, no more. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	set_str(big, 0xffffffffu);
	set_proto((uintptr_t)str, 1);
	assert_int_equal(name(out, sizeof(out)), LJVM_CHUNK_MAX + 2);
	assert_int_equal(strspn(out, "x"), LJVM_CHUNK_MAX);
	assert_string_equal(out + LJVM_CHUNK_MAX, ":1");
}

static void ffunc_named(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(ljvm_ffunc_name(build(), 2, out, sizeof(out)), 6);
	assert_string_equal(out, "assert");
	ljvm_ffunc_name(build(), 1, out, sizeof(out));
	assert_string_equal(out, "[builtin#1]");
	ljvm_ffunc_name(build(), 200, out, sizeof(out));
	assert_string_equal(out, "[builtin#200]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(proto_named),
		cmocka_unit_test(lying_process),
		cmocka_unit_test(ffunc_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
