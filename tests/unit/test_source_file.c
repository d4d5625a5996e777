// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for source lines (source_file.c): lines by number, tabs as
 * spaces, the last line without a newline, a line cut at the buffer; the
 * file under the process's root first; what it refuses: a relative path,
 * a FIFO (never opened, so never blocking), a file past the size bound.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "source_file.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/tt_src_XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	const char *names[] = {"a.c", "fifo", "big.c"};
	char path[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}

static void lines_by_number(void **state)
{
	struct source_files *sf = source_files__new(NULL);
	char path[128], buf[64], small[6];

	put("a.c", "int main(void)\n{\n\treturn 0;\n}");
	snprintf(path, sizeof(path), "%s/a.c", dir);
	assert_int_equal(source_files__line(sf, 0, path, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "int main(void)");
	assert_int_equal(source_files__line(sf, 0, path, 3, buf, sizeof(buf)), 0);
	assert_string_equal(buf, " return 0;");
	assert_int_equal(source_files__line(sf, 0, path, 4, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "}");
	assert_int_equal(source_files__line(sf, 0, path, 5, buf, sizeof(buf)), -ERANGE);
	assert_int_equal(source_files__line(sf, 0, path, 0, buf, sizeof(buf)), -ERANGE);
	assert_int_equal(source_files__line(sf, 0, path, 1, small, sizeof(small)), 0);
	assert_string_equal(small, "int m");
	/* Under this process's root (/proc/self/root is /): the same file. */
	assert_int_equal(source_files__line(sf, (uint32_t)getpid(), path, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "{");
	/* Read once: changed on disk, the cached text stands. */
	put("a.c", "changed\n");
	assert_int_equal(source_files__line(sf, 0, path, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "int main(void)");
	source_files__free(sf);
}

static void refused(void **state)
{
	struct source_files *sf = source_files__new(NULL);
	char path[128], buf[64];
	FILE *f;

	assert_int_equal(source_files__line(sf, 0, "a.c", 1, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(source_files__line(sf, 0, "/nonexistent/x.c", 1, buf, sizeof(buf)),
			 -ENOENT);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(source_files__line(sf, 0, path, 1, buf, sizeof(buf)), -ENXIO);
	snprintf(path, sizeof(path), "%s/big.c", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), SOURCE_FILE_MAX + 1), 0);
	fclose(f);
	assert_int_equal(source_files__line(sf, 0, path, 1, buf, sizeof(buf)), -EFBIG);
	source_files__free(sf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_by_number),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
