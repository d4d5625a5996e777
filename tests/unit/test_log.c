// SPDX-License-Identifier: GPL-2.0-only
/*
 * The log escapes what it is given: messages carry paths and names other
 * users control (a program's file name, a thread's name), and stderr, the
 * log file and the TUI's message line must show them, not obey them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

static void test_hostile_path(void **state)
{
	/* A file named to retitle the terminal, clear it and start a new line. */
	const char *path = "/tmp/\x1b]0;owned\x07\x1b[2J\nfake line";
	const char *line;

	log_set_stderr(false);
	log_msg("LuaJIT (agentless): %s (pid %u) has build-id %s", path, 42u, "ab");
	line = log_line(0);
	assert_non_null(line);
	assert_null(strchr(line, '\x1b'));
	assert_null(strchr(line, '\x07'));
	assert_null(strchr(line, '\n'));
	assert_non_null(strstr(line, "/tmp/\\e]0;owned"));
	assert_non_null(strstr(line, "\\nfake line (pid 42) has build-id ab"));
}

static void test_plain_kept(void **state)
{
	log_set_stderr(false);
	log_info("start-up: bpf source ready after %d ms, %s", 453, "ünïcode ok");
	assert_string_equal(log_line(0), "start-up: bpf source ready after 453 ms, ünïcode ok");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_path),
		cmocka_unit_test(test_plain_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
