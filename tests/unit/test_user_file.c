// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for opening the files the user names (src/lib/user_file.c) and
 * for creating them as the sudo user (src/lib/invoker.c): no symlink is
 * written through, nothing existing is truncated, a FIFO, device or
 * directory is refused at once, and under SUDO_UID a file is created by that
 * user or not at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "invoker.h"
#include "user_file.h"
#include "scratch_dir.h"

#define NOBODY 65534

static int setup(void **state)
{
	(void)state;
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	return scratch_setup("tt_user_file");
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void write_str(int fd, const char *s)
{
	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
}

static void create_never_truncates(void **state)
{
	char *p = path_of("rec.ttr"), buf[64];
	struct stat st;

	write_str(user_file_open(p, USER_FILE_CREATE, false, 0640), "one");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640 & ~022 & 0777);
	assert_int_equal(user_file_open(p, USER_FILE_CREATE, false, 0644), -EEXIST);
	read_all(p, buf, sizeof(buf));
	assert_string_equal(buf, "one");
	/* forced: a new file, the old one removed rather than truncated in place */
	write_str(user_file_open(p, USER_FILE_CREATE, true, 0644), "two");
	read_all(p, buf, sizeof(buf));
	assert_string_equal(buf, "two");
}

static void symlinks_never_written_through(void **state)
{
	char victim[128], link[128], dangling[128], target[128], buf[64];
	struct stat st;
	int fd;

	/* path_of's buffers are reused: keep copies */
	strcpy(victim, path_of("victim"));
	strcpy(link, path_of("link"));
	strcpy(dangling, path_of("dangling"));
	strcpy(target, path_of("made_by_root"));
	put(victim, "precious");
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(user_file_open(link, USER_FILE_CREATE, false, 0644), -ELOOP);
	assert_int_equal(user_file_open(link, USER_FILE_APPEND, false, 0644), -ELOOP);
	assert_int_equal(user_file_open(link, USER_FILE_APPEND, true, 0644), -ELOOP);
	read_all(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious");
	assert_int_equal(symlink(target, dangling), 0);
	assert_int_equal(user_file_open(dangling, USER_FILE_CREATE, false, 0644), -ELOOP);
	assert_int_equal(user_file_open(dangling, USER_FILE_APPEND, false, 0644), -ELOOP);
	assert_int_equal(lstat(target, &st), -1); /* the link's target was not created */
	/* forced: the link itself is replaced, its target left alone */
	write_str(user_file_open(link, USER_FILE_CREATE, true, 0644), "new");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	read_all(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious");
	/* a reader follows links to regular files */
	assert_int_equal(symlink(victim, path_of("rlink")), 0);
	fd = user_file_open(path_of("rlink"), USER_FILE_READ, false, 0);
	assert_true(fd >= 0);
	close(fd);
}

static void append_keeps(void **state)
{
	char *p = path_of("log"), buf[64];

	write_str(user_file_open(p, USER_FILE_APPEND, false, 0640), "a\n");
	write_str(user_file_open(p, USER_FILE_APPEND, false, 0640), "b\n");
	read_all(p, buf, sizeof(buf));
	assert_string_equal(buf, "a\nb\n");
}

/* A FIFO is refused at once by every kind of open (no reader, no writer). */
static void fifo_device_dir_refused(void **state)
{
	char *fifo = path_of("fifo");
	static const enum user_file_how hows[] = {USER_FILE_READ, USER_FILE_CREATE,
						  USER_FILE_APPEND};

	assert_int_equal(mkfifo(fifo, 0600), 0);
	for (size_t i = 0; i < sizeof(hows) / sizeof(hows[0]); i++) {
		assert_int_equal(user_file_open(fifo, hows[i], false, 0644), -ENXIO);
		assert_int_equal(user_file_open(fifo, hows[i], true, 0644), -ENXIO);
		assert_int_equal(user_file_open("/dev/null", hows[i], true, 0644), -ENXIO);
		assert_int_equal(user_file_open(dir, hows[i], true, 0644), -EISDIR);
	}
	/* the FIFO and /dev/null are still there: force never removes them */
	assert_int_equal(access(fifo, F_OK), 0);
	assert_int_equal(access("/dev/null", F_OK), 0);
	assert_non_null(strstr(user_file_reason(-ENXIO, USER_FILE_READ), "regular file"));
	assert_non_null(strstr(user_file_reason(-EEXIST, USER_FILE_CREATE), "--force"));
}

/* In a child, as threadtop runs under sudo: SUDO_UID set, invoker_init, open. */
static int as_sudo_child(const char *path, enum user_file_how how, struct stat *ret_st)
{
	int pipefd[2], status, err = 0;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd, ret;

		setenv("SUDO_UID", "65534", 1);
		setenv("SUDO_GID", "65534", 1);
		ret = invoker_init();
		if (ret == 0) {
			fd = user_file_open(path, how, false, 0644);
			ret = fd < 0 ? fd : 0;
			if (fd >= 0)
				close(fd);
		}
		/* still root afterwards: the switch was undone */
		if (ret == 0 && (geteuid() != 0 || getuid() != 0))
			ret = -EFAULT;
		_exit(write(pipefd[1], &ret, sizeof(ret)) == sizeof(ret) ? 0 : 1);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &err, sizeof(err)), sizeof(err));
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!err && ret_st)
		assert_int_equal(lstat(path, ret_st), 0);
	return err;
}

static void created_as_sudo_user(void **state)
{
	char *p;
	struct stat st;

	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(mkdir(path_of("nobody"), 0700), 0);
	assert_int_equal(chown(path_of("nobody"), NOBODY, NOBODY), 0);
	assert_int_equal(mkdir(path_of("root0700"), 0700), 0);
	/* in the user's own 0700 directory: created, and theirs */
	p = path_of("nobody/rec.ttr");
	assert_int_equal(as_sudo_child(p, USER_FILE_CREATE, &st), 0);
	assert_int_equal(st.st_uid, NOBODY);
	assert_int_equal(st.st_gid, NOBODY);
	p = path_of("nobody/log");
	assert_int_equal(as_sudo_child(p, USER_FILE_APPEND, &st), 0);
	assert_int_equal(st.st_uid, NOBODY);
	/* where only root may write: refused, nothing created */
	p = path_of("root0700/rec.ttr");
	assert_int_equal(as_sudo_child(p, USER_FILE_CREATE, NULL), -EACCES);
	assert_int_equal(access(p, F_OK), -1);
	/* a root-owned file the user cannot write is not appended to */
	p = path_of("rootlog");
	put(p, "root's\n");
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(as_sudo_child(p, USER_FILE_APPEND, NULL), -EACCES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_never_truncates),
		cmocka_unit_test(symlinks_never_written_through),
		cmocka_unit_test(append_keeps),
		cmocka_unit_test(fifo_device_dir_refused),
		cmocka_unit_test(created_as_sudo_user),
	};

	umask(022);
	return cmocka_run_group_tests(tests, setup, teardown);
}
