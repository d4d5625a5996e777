/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * threadtop run: starts a command with libthreadtop-sysprof.so preloaded,
 * held at a gate until the sources are attached, so that threadtop sees it
 * from its first instruction; and finds that library for the BPF loader.
 */
#ifndef THREADTOP_RUN_CMD_H
#define THREADTOP_RUN_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "sysprof_lib.h"

/*
 * Forks o->run_argv with LD_PRELOAD set (tui: its stdio goes to /dev/null),
 * stopped before exec; sets o->run_pid, o->run_gate and adds the pid to
 * o->pids. Returns 0 or a negative errno after printing why to stderr.
 */
int run_cmd__spawn(struct options *o, bool tui);
/* Lets the command exec (closes the gate). */
void run_cmd__release(struct options *o);

#endif /* THREADTOP_RUN_CMD_H */
