/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command capture (--cmd 'SHELL COMMAND'): runs the user's commands with
 * /bin/sh -c at snapshot time, without ever blocking the event loop: each
 * run is a child in its own process group whose stdout and stderr come back
 * through a non-blocking pipe watched by the loop, bounded by an output cap,
 * and killed (the whole group) when it outlives its timeout. A command still
 * running at the next snapshot is not started twice (the skip is counted).
 * Commands only ever come from threadtop's own command line.
 */
#ifndef THREADTOP_CMDCAP_H
#define THREADTOP_CMDCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"
#include "threadtop/loop.h"

#define CMDCAP_MAX 16

struct cmdcap;

struct cmdcap_opts {
	const char *const *cmds;
	size_t nr;
	uint64_t timeout_ns; /* per run */
	size_t max_output;   /* bytes kept per run; the rest is read and dropped */
	const char *shell;   /* NULL: /bin/sh */
};

/* One finished run of a command (or none yet). */
struct cmd_result {
	const char *cmd;
	bool done;	      /* a run has finished: the fields below are its */
	bool running;	      /* a run is under way now */
	int exit_code;	      /* -1 when killed by a signal */
	int signal;	      /* the signal that ended it, 0 when it exited */
	bool timed_out;	      /* killed by threadtop at the timeout */
	bool truncated;	      /* output beyond max_output was dropped */
	uint64_t started_ns;  /* CLOCK_REALTIME of the start */
	uint64_t duration_ns; /* start to exit */
	const char *output;   /* stdout + stderr, output_len bytes (not NUL-safe) */
	size_t output_len;
	uint64_t runs;	  /* finished runs */
	uint64_t skipped; /* snapshots at which it was still running */
};

/* Adds nothing to the loop until a run starts. NULL with errno on failure. */
struct cmdcap *cmdcap__new(const struct cmdcap_opts *opts, struct loop *loop);
/* Commands with no processes (replays): results come from cmdcap__replay. */
struct cmdcap *cmdcap__new_offline(void);
/*
 * A replay's TT_EV_CMD_OUTPUT record (validated): the piece at offset 0
 * starts command index's new latest run, the others append to it in
 * order. Returns 0, or -EINVAL for a piece out of order.
 */
int cmdcap__replay(struct cmdcap *c, const struct tt_cmd_output *rec);
/* Kills every running command's process group and reaps it. Accepts NULL. */
void cmdcap__free(struct cmdcap *c);

/* Starts every command that is not running. Returns how many started, or -errno. */
int cmdcap__run_all(struct cmdcap *c);
/* Whether any run is still under way. */
bool cmdcap__busy(const struct cmdcap *c);

size_t cmdcap__count(const struct cmdcap *c);
/* The latest finished run of command i; valid until the next loop iteration. */
void cmdcap__result(const struct cmdcap *c, size_t i, struct cmd_result *ret);

#endif /* THREADTOP_CMDCAP_H */
