// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for safe file writing (src/lib/safe_file.c): no overwrite unless
 * forced, symlinks replaced and never followed, a failing write (file size
 * limit standing in for a full disk) leaves no file and no temporary.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "safe_file.h"
#include "scratch_dir.h"

static int setup(void **state)
{
	(void)state;
	return scratch_setup("tt_safe_file");
}

static int write_file(const char *path, bool force, const char *text)
{
	struct safe_file *sf = safe_file__open(path, force);
	size_t size = 0;
	int err;

	if (!sf)
		return -errno;
	fputs(text, safe_file__stream(sf));
	err = safe_file__commit(sf, &size);
	if (!err)
		assert_int_equal(size, strlen(text));
	return err;
}

/* Entries of the test directory (temporary files included). */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void create_and_refuse(void **state)
{
	char *p = path_of("out.txt");
	mode_t mask = umask(022);
	char buf[64];
	struct stat st;

	umask(mask);
	assert_int_equal(write_file(p, false, "one\n"), 0);
	read_all(p, buf, sizeof(buf));
	assert_string_equal(buf, "one\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666 & ~mask); /* not mkstemp's 0600 */
	assert_int_equal(safe_file_check(p, false), -EEXIST);
	assert_int_equal(write_file(p, false, "two\n"), -EEXIST);
	read_all(p, buf, sizeof(buf));
	assert_string_equal(buf, "one\n");
	assert_int_equal(write_file(p, true, "three\n"), 0);
	read_all(p, buf, sizeof(buf));
	assert_string_equal(buf, "three\n");
	assert_int_equal(entries(), 1);
	unlink(p);
}

static void symlinks_not_followed(void **state)
{
	char *victim = path_of("victim"), *link_path = path_of("link.folded");
	char buf[64];
	struct stat st;

	assert_int_equal(write_file(victim, false, "precious\n"), 0);
	assert_int_equal(symlink(victim, link_path), 0);
	assert_int_equal(write_file(link_path, false, "evil\n"), -EEXIST);
	/* Forced: the link itself is replaced by a file, its target untouched. */
	assert_int_equal(write_file(link_path, true, "data\n"), 0);
	assert_int_equal(lstat(link_path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	read_all(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious\n");
	unlink(victim);
	unlink(link_path);
}

static void bad_targets(void **state)
{
	assert_int_equal(safe_file_check(path_of("nodir/x.json"), false), -ENOENT);
	assert_int_equal(safe_file_check(dir, true), -EISDIR);
	assert_int_equal(safe_file_check("", false), -EINVAL);
	assert_null(safe_file__open(path_of("nodir/x.json"), false));
	assert_int_equal(errno, ENOENT);
	safe_file__abort(NULL);
	/* a FIFO or device is never replaced, even forced */
	assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
	assert_int_equal(safe_file_check(path_of("fifo"), true), -ENXIO);
	assert_int_equal(safe_file_check("/dev/null", true), -ENXIO);
	assert_int_equal(unlink(path_of("fifo")), 0);
}

static void abort_leaves_nothing(void **state)
{
	struct safe_file *sf = safe_file__open(path_of("gone.svg"), false);

	assert_non_null(sf);
	fputs("half", safe_file__stream(sf));
	safe_file__abort(sf);
	assert_int_equal(entries(), 0);
}

/* A write that fails half way (the file size limit acts as a full disk). */
static void failed_write_leaves_nothing(void **state)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {65536, 65536};
		struct safe_file *sf;
		char block[4096];
		int err;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		sf = safe_file__open(path_of("big.json"), false);
		if (!sf)
			_exit(10);
		memset(block, 'x', sizeof(block));
		for (int i = 0; i < 64; i++)
			fwrite(block, 1, sizeof(block), safe_file__stream(sf));
		err = safe_file__commit(sf, NULL);
		_exit(err == -EFBIG ? 0 : 11);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(entries(), 0); /* neither big.json nor its temporary */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_and_refuse),
		cmocka_unit_test(symlinks_not_followed),
		cmocka_unit_test(bad_targets),
		cmocka_unit_test(abort_leaves_nothing),
		cmocka_unit_test(failed_write_leaves_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
