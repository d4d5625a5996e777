// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the /proc/PID/maps parser: a fixture with deleted files, paths
 * with spaces, pseudo and anonymous mappings, malformed and unsorted lines;
 * hostile inputs; this process's own maps.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc_maps.h"

static void test_fixture(void **state)
{
	struct proc_maps *maps = proc_maps__read(TT_FIXTURES "/sym/proc", 4242);
	const struct proc_map *m;

	assert_non_null(maps);
	assert_int_equal(proc_maps__count(maps), 9);
	assert_int_equal(proc_maps__bad_lines(maps), 3);
	/* Sorted although [stack] came after [vdso]. */
	for (size_t i = 1; i < proc_maps__count(maps); i++)
		assert_true(proc_maps__get(maps, i - 1)->start < proc_maps__get(maps, i)->start);

	m = proc_maps__find(maps, 0x55d0c0002000ull);
	assert_non_null(m);
	assert_string_equal(m->path, "/usr/bin/app");
	assert_int_equal(m->offset, 0x2000);
	assert_int_equal(m->inode, 1001);
	assert_int_equal(m->dev, makedev(0xfe, 0));
	assert_true(m->flags & PROC_MAP_EXEC);
	assert_true(m->flags & PROC_MAP_READ);
	assert_false(m->flags & PROC_MAP_WRITE);
	/* end is exclusive */
	m = proc_maps__find(maps, 0x55d0c0008000ull - 1);
	assert_int_equal(m->offset, 0x2000);
	m = proc_maps__find(maps, 0x55d0c0008000ull);
	assert_int_equal(m->offset, 0x8000);
	assert_null(proc_maps__find(maps, 0x55d0c000a000ull));
	assert_null(proc_maps__find(maps, 0x1000));

	m = proc_maps__find(maps, 0x7f0000000100ull);
	assert_true(m->flags & PROC_MAP_ANON);
	assert_string_equal(m->path, "");
	m = proc_maps__find(maps, 0x7f0000150000ull);
	assert_string_equal(m->path, "/opt/my app/lib with spaces.so");
	assert_int_equal(m->dev, makedev(0xfe, 1));
	m = proc_maps__find(maps, 0x7f0000300010ull);
	assert_string_equal(m->path, "/tmp/gone");
	assert_true(m->flags & PROC_MAP_DELETED);
	m = proc_maps__find(maps, 0x7ffd00000010ull);
	assert_string_equal(m->path, "[vdso]");
	assert_true(m->flags & PROC_MAP_PSEUDO);
	m = proc_maps__find(maps, 0x55d0c1000000ull);
	assert_true(m->flags & PROC_MAP_WRITE);
	assert_true(m->flags & PROC_MAP_PSEUDO);
	proc_maps__free(maps);
}

static void test_missing(void **state)
{
	errno = 0;
	assert_null(proc_maps__read(TT_FIXTURES "/sym/proc", 999999));
	assert_int_equal(errno, ENOENT);
}

static void test_hostile(void **state)
{
	static const char *bad[] = {
		"1000-2000",
		"1000-2000 r-xp",
		"1000-2000 r-xp 0 fe:00",
		"1000-2000 r-xp 0 fe:00 x /a",
		"10000000000000000-20000000000000000 r-xp 0 fe:00 1 /a",
		"-2000 r-xp 0 fe:00 1 /a",
		"1000-2000 r-xp 0 fffffff:00 1 /a",
		"1000-2000 r-xp 0 fe:00 123456789012345678901234 /a",
		"1000-1000 r-xp 0 fe:00 1 /empty-range",
	};
	struct proc_maps *maps;
	char *big;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		maps = proc_maps__parse(bad[i], strlen(bad[i]));
		assert_non_null(maps);
		assert_int_equal(proc_maps__count(maps), 0);
		assert_int_equal(proc_maps__bad_lines(maps), 1);
		proc_maps__free(maps);
	}
	/* A path longer than PATH_MAX is refused; the next line still parses. */
	big = malloc(PATH_MAX + 200);
	strcpy(big, "1000-2000 r-xp 0 fe:00 1 /");
	memset(big + strlen(big), 'p', PATH_MAX + 10);
	strcpy(big + 26 + PATH_MAX + 10, "\n3000-4000 r-xp 0 fe:00 1 /ok");
	maps = proc_maps__parse(big, strlen(big));
	assert_int_equal(proc_maps__count(maps), 1);
	assert_string_equal(proc_maps__find(maps, 0x3000)->path, "/ok");
	proc_maps__free(maps);
	free(big);
	/* No trailing newline, CR-free text, NUL bytes inside: no overrun. */
	maps = proc_maps__parse("1000-2000 r-xp 0 fe:00 1 /a\0b", 29);
	assert_int_equal(proc_maps__count(maps), 1);
	proc_maps__free(maps);
	maps = proc_maps__parse("", 0);
	assert_null(proc_maps__find(maps, 0));
	proc_maps__free(maps);
}

static void test_self(void **state)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct proc_maps *maps = proc_maps__read(NULL, (uint32_t)getpid());
	const struct proc_map *m;

	assert_true(n > 0);
	exe[n] = '\0';
	assert_non_null(maps);
	m = proc_maps__find(maps, (uint64_t)(uintptr_t)test_self);
	assert_non_null(m);
	assert_string_equal(m->path, exe);
	assert_true(m->flags & PROC_MAP_EXEC);
	proc_maps__free(maps);
}

/* The vdso has no file: its bytes come from the process's memory. */
static void test_copy_vdso(void **state)
{
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	struct proc_maps *maps = proc_maps__read(NULL, (uint32_t)getpid());
	const struct proc_map *m;
	void *copy;

	assert_non_null(maps);
	if (!vdso) {
		proc_maps__free(maps);
		skip(); /* a kernel without a vdso */
	}
	m = proc_maps__find(maps, vdso);
	assert_non_null(m);
	assert_string_equal(m->path, "[vdso]");
	copy = proc_map__copy_mem("/proc", (uint32_t)getpid(), m, 1u << 20);
	assert_non_null(copy);
	assert_memory_equal(copy, (const void *)(uintptr_t)m->start, m->end - m->start);
	free(copy);
	errno = 0;
	assert_null(proc_map__copy_mem("/proc", (uint32_t)getpid(), m, m->end - m->start - 1));
	assert_int_equal(errno, EFBIG);
	errno = 0;
	assert_null(proc_map__copy_mem("/nonexistent-proc", (uint32_t)getpid(), m, 1u << 20));
	assert_int_equal(errno, ENOENT);
	proc_maps__free(maps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),	  cmocka_unit_test(test_missing),
		cmocka_unit_test(test_hostile),	  cmocka_unit_test(test_self),
		cmocka_unit_test(test_copy_vdso),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
