// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the shortening of names and prose (ui/elide.c): names
 * lose their middle at word boundaries (::, ., _, /) and keep their tag,
 * one long word is cut in its middle, prose is cut after a whole word,
 * every shortened text carries the marker and fits its width, in UTF-8
 * and in ASCII.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "elide.h"

static int setup(void **state)
{
	(void)state;
	return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

static void name(const char *s, int width, const char *want)
{
	char buf[256];

	elide_name(s, width, true, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_true(elide_width(buf) <= width);
}

static void test_fits(void **state)
{
	name("main", 10, "main");
	name("chain_exe_leaf [k]", 18, "chain_exe_leaf [k]");
}

static void test_boundaries(void **state)
{
	/* The tag stays, the middle goes where words meet. */
	name("finish_task_switch.isra.0 [k]", 22, "finish_task…isra.0 [k]");
	name("std::vector<int>::_M_realloc_insert", 30, "std::vector<int…realloc_insert");
	name("hot_loop @/tmp/a_rather/long_directory_name/w.lua:1", 30,
	     "hot_loop @/tmp/a…name/w.lua:1");
	name("entry_SYSCALL_64_after_hwframe [k]", 20, "entry…hwframe [k]");
	/* Neither side shrinks to a fragment ("tt…an_eighty_column_terminal"). */
	name("tt_leaf_function_whose_name_is_far_too_long_for_an_eighty_column_terminal", 28,
	     "tt_leaf_function…terminal");
}

static void test_one_word(void **state)
{
	/* No boundary keeps half of what fits: the word is cut in its middle. */
	name("abcdefghijklmnopqrstuvwxyz", 11, "abcde…vwxyz");
	name("x_abcdefghijklmnopqrstuvwxyz_y", 11, "x_abc…xyz_y");
	/* Boundaries that keep under three quarters of what fits: a character cut. */
	name("wait=\\e[31mLock:\\x07relation", 24, "wait=\\e[31mL…x07relation");
}

static void test_narrow(void **state)
{
	char buf[64];

	/* Too narrow for anything useful: still within the width, still marked. */
	elide_name("irqentry_exit_to_user_mode [k]", 6, true, buf, sizeof(buf));
	assert_true(elide_width(buf) <= 6);
	assert_non_null(strstr(buf, "…"));
	elide_name("long_name", 0, true, buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* A buffer too small is terminated. */
	elide_name("finish_task_switch.isra.0", 12, true, buf, 5);
	assert_int_equal(strlen(buf), 4);
}

static void test_ascii(void **state)
{
	char buf[64];

	elide_name("finish_task_switch.isra.0 [k]", 22, false, buf, sizeof(buf));
	assert_string_equal(buf, "finish_task~isra.0 [k]");
	elide_end("capabilities: kept cap_kill (stop commands)", 24, false, buf, sizeof(buf));
	assert_string_equal(buf, "capabilities: kept~");
}

static void test_wide_chars(void **state)
{
	char buf[64];

	/* Widths are columns: each of these takes two. */
	assert_int_equal(elide_width("日本語"), 6);
	elide_name("日本語_関数_名前", 9, true, buf, sizeof(buf));
	assert_true(elide_width(buf) <= 9);
	assert_non_null(strstr(buf, "…"));
}

static void path(const char *s, int width, const char *want)
{
	char buf[256];

	elide_path(s, width, true, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_true(elide_width(buf) <= width);
}

/* A path keeps its file's name whole, however long, and as much of its start as fits. */
static void test_path(void **state)
{
	(void)state;
	path("/tmp/x", 10, "/tmp/x");
	/* elide_name dropped this name's end: "/newroot/tmp/tmp…". */
	path("/newroot/tmp/tmp.AbCdEfGhIj/fi\\e[31mfo\\nx", 20, "/newr…/fi\\e[31mfo\\nx");
	path("/var/lib/postgresql/15/main/base/16384/2619", 12, "/var/l…/2619");
	/* A name wider than the column: as elide_name, its middle goes. */
	path("/tmp/a_very_long_file_name_indeed", 12, "/tmp…indeed");
	/* No path: as elide_name. */
	path("tcp 127.0.0.1:4000->127.0.0.1:5000", 20, "tcp 127.0…0.0.1:5000");
}

static void test_prose(void **state)
{
	char buf[128];

	elide_end("capabilities: kept cap_kill (stop commands run as another user)", 30, true, buf,
		  sizeof(buf));
	assert_string_equal(buf, "capabilities: kept cap_kill…");
	elide_end("short", 30, true, buf, sizeof(buf));
	assert_string_equal(buf, "short");
	/* One long word: cut in the word, marked. */
	elide_end("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bb", 10, true, buf, sizeof(buf));
	assert_string_equal(buf, "aaaaaaaaa…");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits),	 cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_one_word), cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_ascii),	 cmocka_unit_test(test_wide_chars),
		cmocka_unit_test(test_prose),	 cmocka_unit_test(test_path),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
