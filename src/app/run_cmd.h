/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * threadtop run: starts a command with libthreadtop-sysprof.so preloaded,
 * held at a gate until the sources are attached, so that threadtop sees it
 * from its first instruction.
 */
#ifndef THREADTOP_RUN_CMD_H
#define THREADTOP_RUN_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "sysprof_lib.h"

/* The command of threadtop run, held at its gate until the sources are up. */
struct run_child {
	int pid;  /* 0 = none, or reaped */
	int gate; /* write end of the pipe that lets it exec, -1 once released */
};

/*
 * Forks o->run_argv with LD_PRELOAD set, its stdout and stderr to
 * o->child_output (appended, opened as the invoking user), else to /dev/null
 * (tui) or threadtop's stderr (batch: stdout carries the batch output),
 * stopped before exec; fills ret and adds the pid to o->pids (-p: what is
 * profiled). Returns 0 or a negative errno after printing why to stderr.
 */
int run_cmd__spawn(struct options *o, bool tui, struct run_child *ret);
/* Lets the command exec (closes the gate). A child without a command is left alone. */
void run_cmd__release(struct run_child *c);

#endif /* THREADTOP_RUN_CMD_H */
