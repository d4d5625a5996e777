// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for F2 Setup's rc file (ui/setup.c over src/lib/rc_file.c): the
 * column choice written is the choice read back; the path follows
 * XDG_CONFIG_HOME; a bad line names the file and line and keeps the
 * defaults; an oversized file is refused; a symlink is never written through.
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

#include "panes.h"
#include "rc_file.h"
#include "setup.h"
#include "view.h"
#include "scratch_dir.h"

static int setup(void **state)
{
	(void)state;
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	return scratch_setup("tt_ui_setup");
}

static const char *parse_cb(void *ctx, const char *key, const char *value)
{
	return setup_parse(ctx, key, value);
}

/* The index of col among the view's Setup columns. */
static int index_of(bool procs, int col)
{
	const int *all;
	size_t n = pane_threads_setup_cols(procs, &all);

	for (size_t i = 0; i < n; i++)
		if (all[i] == col)
			return (int)i;
	return -1;
}

static void round_trip(void **state)
{
	struct view v, back;
	char text[1024], path[4096], err[256];
	int user = index_of(false, COL_USER), res = index_of(true, COL_RES);

	assert_true(user >= 0 && res >= 0);
	view_init(&v);
	assert_false(v.cols_on[0] & (1u << user)); /* USER is off by default in the thread view */
	v.cols_on[0] |= 1u << user;
	v.cols_on[1] &= ~(1u << res);
	setup_format(&v, text, sizeof(text));
	assert_non_null(strstr(text, "thread_columns=pid tid user comm"));
	setenv("XDG_CONFIG_HOME", dir, 1);
	assert_int_equal(rc_file_path(path, sizeof(path)), 0);
	assert_string_equal(path, path_of("threadtop/threadtoprc"));
	assert_int_equal(rc_file_write(path, text, err, sizeof(err)), 0); /* makes the directory */
	view_init(&back);
	assert_int_equal(rc_file_read(path, parse_cb, &back, err, sizeof(err)), 2);
	assert_int_equal(back.cols_on[0], v.cols_on[0]);
	assert_int_equal(back.cols_on[1], v.cols_on[1]);
	/* Written again over the old file (replaced, not appended). */
	assert_int_equal(rc_file_write(path, text, err, sizeof(err)), 0);
	assert_int_equal(rc_file_read(path, parse_cb, &back, err, sizeof(err)), 2);
	unsetenv("XDG_CONFIG_HOME");
}

static void bad_files(void **state)
{
	struct view v;
	uint32_t defaults;
	char err[256];
	char *path = path_of("bad");
	FILE *f = fopen(path, "w");

	view_init(&v);
	defaults = v.cols_on[0];
	fprintf(f, "# comment\n\nthread_columns=pid bogus\n");
	fclose(f);
	assert_int_equal(rc_file_read(path, parse_cb, &v, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad:3: unknown column 'bogus'"));
	assert_int_equal(v.cols_on[0], defaults); /* the bad line changed nothing */
	f = fopen(path, "w");
	fprintf(f, "colour=red\n");
	fclose(f);
	assert_int_equal(rc_file_read(path, parse_cb, &v, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown setting 'colour'"));
	f = fopen(path, "w");
	fprintf(f, "no equals sign\n");
	fclose(f);
	assert_int_equal(rc_file_read(path, parse_cb, &v, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a key=value line"));
	/* Larger than the bound: refused whole. */
	f = fopen(path, "w");
	for (int i = 0; i < RC_FILE_MAX; i++)
		fputc('#', f);
	fputs("\n", f);
	fclose(f);
	assert_int_equal(rc_file_read(path, parse_cb, &v, err, sizeof(err)), -EFBIG);
	/* A missing file is no error: the defaults. */
	assert_int_equal(rc_file_read(path_of("none"), parse_cb, &v, err, sizeof(err)), 0);
}

static void no_symlink_written(void **state)
{
	char err[256], *target = path_of("target"), *link_path = path_of("link");
	FILE *f = fopen(target, "w");

	fputs("keep\n", f);
	fclose(f);
	assert_int_equal(symlink(target, link_path), 0);
	/* The link itself is replaced, never the file it points to. */
	assert_int_equal(rc_file_write(link_path, "thread_columns=pid\n", err, sizeof(err)), 0);
	read_all(target, err, sizeof(err));
	assert_string_equal(err, "keep\n");
	read_all(link_path, err, sizeof(err));
	assert_string_equal(err, "thread_columns=pid\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(bad_files),
		cmocka_unit_test(no_symlink_written),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
