/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command capture (--cmd 'SHELL COMMAND'): runs the user's commands with
 * /bin/sh -c at snapshot time, without ever blocking the event loop: each
 * run is a child in its own process group whose stdout and stderr come back
 * through a non-blocking pipe watched by the loop, bounded by an output cap,
 * and killed (the whole group) when it outlives its timeout. A command still
 * running at the next snapshot is not started twice (the skip is counted).
 * Commands only ever come from threadtop's own command line, and run
 * without threadtop's privileges (opts.creds, child_creds.h).
 */
#ifndef THREADTOP_CMDCAP_H
#define THREADTOP_CMDCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/capture_view.h"
#include "threadtop/events.h"
#include "child_creds.h"
#include "loop.h"

#define CMDCAP_MAX 16

struct cmdcap;

struct cmdcap_opts {
	const char *const *cmds;
	size_t nr;
	uint64_t timeout_ns;	  /* per run */
	size_t max_output;	  /* bytes kept per run; the rest is read and dropped */
	const char *shell;	  /* NULL: /bin/sh */
	struct child_creds creds; /* who each run runs as (child_creds_resolve) */
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
/*
 * Bounds the replayed output by b (not owned, NULL: none): a run whose
 * output does not fit is kept without it, marked truncated.
 */
struct dict_budget;
void cmdcap__set_budget(struct cmdcap *c, struct dict_budget *b);
/* Kills every running command's process group and reaps it. Accepts NULL. */
void cmdcap__free(struct cmdcap *c);

/* Starts every command that is not running. Returns how many started, or -errno. */
int cmdcap__run_all(struct cmdcap *c);
/* Whether any run is still under way. */
bool cmdcap__busy(const struct cmdcap *c);

#endif /* THREADTOP_CMDCAP_H */
