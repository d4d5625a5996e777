// SPDX-License-Identifier: GPL-2.0-only
/*
 * threadtop run (see run_cmd.h). The child waits on a pipe: one byte means
 * exec, end of file (threadtop failed before its sources were up) means
 * exit 127 without running the command. Before it waits it drops every
 * privilege (child_creds.h) and checks, as its new user, that it can read
 * the library it will preload, and reports both to the parent. The
 * command's stdout never is threadtop's: batch output (NDJSON) must stay
 * parseable, and the TUI owns the terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child_creds.h"
#include "run_cmd.h"
#include "user_file.h"

/* What the child reports before it waits at the gate: 0, or why it will not run. */
struct child_report {
	int stage; /* 0: ready, 1: dropping privileges failed, 2: the library is unreadable */
	int err;   /* errno */
};

static void report(int fd, int stage, int err)
{
	struct child_report r = {stage, err};

	if (write(fd, &r, sizeof(r)) != sizeof(r)) {
		/* the parent is gone: it exits without running anything either way */
	}
	close(fd);
}

/*
 * Where the command's stdout and stderr go: --child-output's file (out),
 * else in the TUI nowhere (the screen is threadtop's), else threadtop's
 * stderr for stdout (its stdout carries the batch output) and stderr as is.
 */
static void redirect_output(int out, bool tui)
{
	int null;

	if (out >= 0) {
		dup2(out, 1);
		dup2(out, 2);
		close(out);
	} else if (tui) {
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
	} else {
		dup2(2, 1);
	}
	if (tui) {
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0)
			dup2(null, 0);
	}
}

static void child(struct options *o, int gate, int status, const struct child_creds *creds,
		  const char *lib, bool tui, int out)
{
	const char *old = getenv("LD_PRELOAD");
	char *pre;
	char c;
	int fd, err_fd, err = child_creds_apply(creds);

	if (err < 0) {
		report(status, 1, -err);
		_exit(126);
	}
	/* As that user: ld.so would only warn and run the command unobserved. */
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		report(status, 2, errno);
		_exit(126);
	}
	close(fd);
	report(status, 0, 0);
	if (read(gate, &c, 1) != 1)
		_exit(127); /* threadtop did not start: do not run unobserved */
	close(gate);
	if (old && *old) {
		if (asprintf(&pre, "%s:%s", lib, old) < 0)
			_exit(127);
	} else {
		pre = (char *)lib;
	}
	setenv("LD_PRELOAD", pre, 1);
	err_fd = fcntl(2, F_DUPFD_CLOEXEC, 3); /* threadtop's stderr, for the exec's failure */
	redirect_output(out, tui);
	execvp(o->run_argv[0], o->run_argv);
	dprintf(err_fd >= 0 ? err_fd : 2, "threadtop run: cannot run %s: %s\n", o->run_argv[0],
		strerror(errno));
	_exit(127);
}

/* Waits for the child's report; on a failure says why in one line and reaps it. */
static int check_child(pid_t pid, int status, const struct child_creds *creds, const char *lib)
{
	struct child_report r = {1, EPIPE};
	ssize_t n;

	do
		n = read(status, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	close(status);
	if (n == sizeof(r) && r.stage == 0)
		return 0;
	if (r.stage == 2)
		fprintf(stderr,
			"threadtop run: %s (the command's user) cannot read %s: %s; install "
			"threadtop (cmake --install) or point THREADTOP_SYSPROF_LIB at a copy "
			"that user can read\n",
			creds->user, lib, strerror(r.err));
	else
		fprintf(stderr,
			"threadtop run: cannot drop privileges to run the command as %s: %s; "
			"not run\n",
			creds->user, strerror(r.err));
	waitpid(pid, NULL, 0);
	return -(r.err ? r.err : EPERM);
}

int run_cmd__spawn(struct options *o, bool tui, struct run_child *ret)
{
	char paths[LJ_LIB_MAX_PATHS][PATH_MAX], why[256];
	struct child_creds creds;
	int fds[2], status[2], err, out = -1;
	pid_t pid;

	if (lj_lib_paths(paths, LJ_LIB_MAX_PATHS) < 1) {
		fprintf(stderr,
			"threadtop run: cannot find %s (next to the threadtop binary or in %s); "
			"set THREADTOP_SYSPROF_LIB to its path\n",
			LJ_LIB_NAME, TT_INSTALL_LIBDIR);
		return -ENOENT;
	}
	if (o->nr_pids == MAX_PIDS) {
		fprintf(stderr, "threadtop run: -p already names %d processes\n", MAX_PIDS);
		return -EINVAL;
	}
	err = child_creds_resolve(&creds, o->cmd_as_root, why, sizeof(why));
	if (err < 0) {
		fprintf(stderr, "threadtop run: %s\n", why);
		return err;
	}
	if (o->child_output) {
		/* Opened here, as the invoking user (user_file.h), before privileges drop. */
		out = user_file_open(o->child_output, USER_FILE_APPEND, false, 0644);
		if (out < 0) {
			fprintf(stderr, "threadtop run: --child-output %s: %s\n", o->child_output,
				user_file_reason(out, USER_FILE_APPEND));
			return out;
		}
	}
	if (pipe2(fds, O_CLOEXEC) < 0 || pipe2(status, O_CLOEXEC) < 0) {
		err = -errno;
		fprintf(stderr, "threadtop run: pipe: %s\n", strerror(-err));
		if (out >= 0)
			close(out);
		return err;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		fprintf(stderr, "threadtop run: fork: %s\n", strerror(e));
		close(fds[0]);
		close(fds[1]);
		close(status[0]);
		close(status[1]);
		if (out >= 0)
			close(out);
		return -e;
	}
	if (pid == 0) {
		close(fds[1]);
		close(status[0]);
		child(o, fds[0], status[1], &creds, paths[0], tui, out);
	}
	if (out >= 0)
		close(out);
	close(fds[0]);
	close(status[1]);
	err = check_child(pid, status[0], &creds, paths[0]);
	if (err < 0) {
		close(fds[1]);
		return err;
	}
	ret->pid = pid;
	ret->gate = fds[1];
	o->pids[o->nr_pids++] = pid;
	return 0;
}

void run_cmd__release(struct run_child *c)
{
	if (c->pid <= 0 || c->gate < 0)
		return;
	if (write(c->gate, "g", 1) != 1) {
		/* The child is gone already: SIGCHLD ends the run. */
	}
	close(c->gate);
	c->gate = -1;
}
