// SPDX-License-Identifier: GPL-2.0-only
/*
 * threadtop run (see run_cmd.h). The child waits on a pipe: one byte means
 * exec, end of file (threadtop failed before its sources were up) means
 * exit 127 without running the command.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_cmd.h"

static void child(struct options *o, int gate, const char *lib, bool tui)
{
	const char *old = getenv("LD_PRELOAD");
	char *pre;
	char c;

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
	if (tui) { /* the screen is threadtop's */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
	}
	execvp(o->run_argv[0], o->run_argv);
	fprintf(stderr, "threadtop run: cannot run %s: %s\n", o->run_argv[0], strerror(errno));
	_exit(127);
}

int run_cmd__spawn(struct options *o, bool tui, struct run_child *ret)
{
	char paths[LJ_LIB_MAX_PATHS][PATH_MAX];
	int fds[2];
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
	if (pipe2(fds, O_CLOEXEC) < 0) {
		fprintf(stderr, "threadtop run: pipe: %s\n", strerror(errno));
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		fprintf(stderr, "threadtop run: fork: %s\n", strerror(e));
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	if (pid == 0) {
		close(fds[1]);
		child(o, fds[0], paths[0], tui);
	}
	close(fds[0]);
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
