/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A scratch directory for the file tests (test_safe_file.c, test_user_file.c):
 * SCRATCH_DIR(prefix) defines setup/teardown for cmocka_run_group_tests that
 * make and remove /tmp/<prefix>.XXXXXX, and path_of(name) gives a path in it
 * (two alternating buffers, so two paths can be used in one call), read_all
 * a file's text. Include after cmocka.h.
 */
#ifndef THREADTOP_TEST_SCRATCH_DIR_H
#define THREADTOP_TEST_SCRATCH_DIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];

static int scratch_setup(const char *prefix)
{
	snprintf(dir, sizeof(dir), "/tmp/%s.XXXXXX", prefix);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static char *path_of(const char *name)
{
	static char buf[2][128];
	static int n;

	n ^= 1;
	snprintf(buf[n], sizeof(buf[n]), "%s/%s", dir, name);
	return buf[n];
}

/* The text of path into buf (cap bytes, NUL-terminated); the file must exist. */
static void read_all(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
}

#endif /* THREADTOP_TEST_SCRATCH_DIR_H */
