// SPDX-License-Identifier: GPL-2.0-only
/* Tests of the perf-PID.map reader: lookups, overlaps, malformed lines. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
	assert_null(perfmap__read(TT_FIXTURES "/sym/no-such-perf.map", 0));
	assert_int_equal(errno, ENOENT);
	assert_null(perfmap__find(NULL, 1));
}

static struct perfmap *read_as(const char *path, unsigned uid)
{
	errno = 0;
	return perfmap__read(path, uid);
}

/* perf's rule: the process's user's or root's, writable by nobody else, no link followed. */
static void test_trust(void **state)
{
	char dir[] = "/tmp/tt-pm-XXXXXX", path[PATH_MAX], link[PATH_MAX];
	unsigned me = (unsigned)geteuid();
	struct perfmap *pm;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	snprintf(link, sizeof(link), "%s/perf-2.map", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1000 10 f\n", 10), 10);
	assert_int_equal(fchmod(fd, 0644), 0);
	pm = read_as(path, me);
	assert_non_null(pm);
	assert_int_equal(perfmap__count(pm), 1);
	perfmap__free(pm);
	/* Writable by the group or by anyone: someone else may have written it. */
	assert_int_equal(fchmod(fd, 0664), 0);
	assert_null(read_as(path, me));
	assert_int_equal(errno, EPERM);
	assert_int_equal(fchmod(fd, 0646), 0);
	assert_null(read_as(path, me));
	assert_int_equal(errno, EPERM);
	assert_int_equal(fchmod(fd, 0644), 0);
	/* A link to a trusted map is not followed. */
	assert_int_equal(symlink(path, link), 0);
	assert_null(read_as(link, me));
	assert_int_equal(errno, ELOOP);
	if (me == 0) {
		/* Root's map is trusted for any process; another user's only for that user's. */
		pm = read_as(path, 65534);
		assert_non_null(pm);
		perfmap__free(pm);
		assert_int_equal(fchown(fd, 65534, 65534), 0);
		assert_null(read_as(path, 0));
		assert_int_equal(errno, EPERM);
		assert_null(read_as(path, 1000));
		assert_int_equal(errno, EPERM);
		pm = read_as(path, 65534);
		assert_non_null(pm);
		perfmap__free(pm);
	} else {
		assert_null(read_as(path, me + 1));
		assert_int_equal(errno, EPERM);
	}
	close(fd);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_trust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
