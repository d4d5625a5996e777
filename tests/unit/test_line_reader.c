// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the bounded line iterator, over memory and over files: the last
 * line without '\n', NUL bytes inside lines, empty input, lines longer than
 * the bound (passed over, also across read chunks), the file size cap.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "line_reader.h"

static char tmp_path[64];

static const char *write_tmp(const void *data, size_t len)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/tt-line-reader-XXXXXX");
	fd = mkstemp(tmp_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return tmp_path;
}

/* The next line must be want (want_len bytes: it may hold NULs). */
static void expect_line(struct line_reader *lr, const char *want, size_t want_len)
{
	const char *line;
	size_t len;

	assert_int_equal(line_reader__next(lr, &line, &len), 1);
	assert_int_equal(len, want_len);
	assert_memory_equal(line, want, want_len);
}

static void expect_end(struct line_reader *lr)
{
	const char *line;
	size_t len;

	assert_int_equal(line_reader__next(lr, &line, &len), 0);
	assert_int_equal(line_reader__next(lr, &line, &len), 0); /* and stays there */
}

/* The same text over memory and as a file gives the same lines. */
static void both_ways(const char *text, size_t len, size_t max_line,
		      void (*check)(struct line_reader *lr))
{
	struct line_reader lr;

	line_reader__init_mem(&lr, text, len, max_line);
	check(&lr);
	line_reader__close(&lr);
	assert_int_equal(line_reader__open(&lr, write_tmp(text, len), max_line, 1 << 20), 0);
	check(&lr);
	assert_false(line_reader__truncated(&lr));
	line_reader__close(&lr);
	unlink(tmp_path);
}

static void check_plain(struct line_reader *lr)
{
	expect_line(lr, "one", 3);
	expect_line(lr, "", 0);
	expect_line(lr, "three", 5);
	expect_end(lr);
}

static void lines_and_last_without_newline(void **state)
{
	both_ways("one\n\nthree\n", 11, 100, check_plain);
	both_ways("one\n\nthree", 10, 100, check_plain);
}

static void check_empty(struct line_reader *lr)
{
	expect_end(lr);
	assert_int_equal(line_reader__skipped(lr), 0);
}

static void check_newline_only(struct line_reader *lr)
{
	expect_line(lr, "", 0);
	expect_end(lr);
}

static void empty_input(void **state)
{
	struct line_reader lr;

	both_ways("", 0, 100, check_empty);
	both_ways("\n", 1, 100, check_newline_only);
	line_reader__init_mem(&lr, NULL, 0, 100);
	check_empty(&lr);
	line_reader__close(&lr);
}

static void check_nul(struct line_reader *lr)
{
	expect_line(lr, "a\0b", 3);
	expect_line(lr, "\0", 1);
	expect_line(lr, "c", 1);
	expect_end(lr);
}

static void nul_bytes_are_content(void **state)
{
	both_ways("a\0b\n\0\nc", 7, 100, check_nul);
}

static void check_bound(struct line_reader *lr)
{
	expect_line(lr, "abc", 3); /* exactly max_line */
	expect_line(lr, "", 0);
	expect_line(lr, "xy", 2);
	expect_end(lr);
	assert_int_equal(line_reader__skipped(lr), 3);
}

static void long_lines_passed_over(void **state)
{
	both_ways("abcd\nabc\n\nlonger than three\nxy\nwxyz", 35, 3, check_bound);
}

/* Lines far longer than the read chunk, between short ones, in a file. */
static void long_lines_across_chunks(void **state)
{
	size_t big = 300000, n = 0, len;
	char *text = malloc(3 * big);
	struct line_reader lr;
	const char *line;

	assert_non_null(text);
	memcpy(text + n, "first\n", 6), n += 6;
	memset(text + n, 'x', big), n += big;
	text[n++] = '\n';
	memcpy(text + n, "middle\n", 7), n += 7;
	memset(text + n, 'y', 5000), n += 5000; /* ends the file, no '\n' */
	assert_int_equal(line_reader__open(&lr, write_tmp(text, n), 4096, 1 << 30), 0);
	expect_line(&lr, "first", 5);
	expect_line(&lr, "middle", 6);
	expect_end(&lr);
	assert_int_equal(line_reader__skipped(&lr), 2);
	line_reader__close(&lr);
	unlink(tmp_path);

	/* Many lines: every one comes back whole across chunk ends. */
	n = 0;
	for (int i = 0; i < 50000; i++)
		n += (size_t)sprintf(text + n, "line %d\n", i);
	assert_int_equal(line_reader__open(&lr, write_tmp(text, n), 64, 1 << 30), 0);
	for (int i = 0; i < 50000; i++) {
		char want[32];

		snprintf(want, sizeof(want), "line %d", i);
		assert_int_equal(line_reader__next(&lr, &line, &len), 1);
		assert_int_equal(len, strlen(want));
		assert_memory_equal(line, want, len);
	}
	expect_end(&lr);
	line_reader__close(&lr);
	unlink(tmp_path);
	free(text);
}

static void file_size_cap(void **state)
{
	static const char text[] = "aa\nbb\ncc\n";
	struct line_reader lr;
	const char *path = write_tmp(text, 9);

	/* Cut inside "cc": the partial line is dropped, the cut is said. */
	assert_int_equal(line_reader__open(&lr, path, 100, 7), 0);
	expect_line(&lr, "aa", 2);
	expect_line(&lr, "bb", 2);
	expect_end(&lr);
	assert_true(line_reader__truncated(&lr));
	line_reader__close(&lr);
	/* A cap at the file's size is no cut. */
	assert_int_equal(line_reader__open(&lr, path, 100, 9), 0);
	expect_line(&lr, "aa", 2);
	expect_line(&lr, "bb", 2);
	expect_line(&lr, "cc", 2);
	expect_end(&lr);
	assert_false(line_reader__truncated(&lr));
	line_reader__close(&lr);
	unlink(path);
}

static void missing_file(void **state)
{
	struct line_reader lr;

	assert_int_equal(line_reader__open(&lr, "/nonexistent/tt-no-such-file", 100, 100), -ENOENT);
	line_reader__close(&lr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_and_last_without_newline),
		cmocka_unit_test(empty_input),
		cmocka_unit_test(nul_bytes_are_content),
		cmocka_unit_test(long_lines_passed_over),
		cmocka_unit_test(long_lines_across_chunks),
		cmocka_unit_test(file_size_cap),
		cmocka_unit_test(missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
