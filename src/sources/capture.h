/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The diagnostic attachments of a live run: kernel trace capture (trace.h)
 * and command capture (cmdcap.h), set up from their options and wired into
 * the event loop. The application calls it at each interval end; front
 * ends read the tracer and the commands to show and export them.
 */
#ifndef THREADTOP_CAPTURE_H
#define THREADTOP_CAPTURE_H

#include <stddef.h>

#include "cmdcap.h"
#include "loop.h"
#include "threadtop/source.h"
#include "trace.h"

struct capture;

/*
 * Sets up --trace (to) and --cmd (co); NULL or empty ones are not set up.
 * Must run while threadtop still holds its privileges (mounting tracefs,
 * creating the instance). NULL with errno and a one-line reason in
 * err on failure; note may hold a line for the user (tracefs was mounted).
 * Commands first run at capture__start.
 */
struct capture *capture__new(const struct tracer_opts *to, const struct cmdcap_opts *co,
			     struct loop *loop, char *err, size_t errlen, char *note,
			     size_t notelen);
/* Kills running commands, removes the trace instance. Before the loop is freed. */
void capture__free(struct capture *c);

/* The first snapshot period begins: starts the commands. 0 or -errno. */
int capture__start(struct capture *c);
/* Before an interval is shown: reads what trace_pipe holds. */
void capture__interval_end(struct capture *c);
/* After it was shown: interval counts restart, commands run again. */
void capture__interval_next(struct capture *c);

/*
 * Recording: the records of what this interval captured, through sink at
 * time now: a TT_EV_TRACE_LINE per line the interval kept, oldest first,
 * and the TT_EV_CMD_OUTPUT pieces of every run finished since the last
 * call. Call after capture__interval_end, before the interval's mark.
 */
void capture__record(struct capture *c, const struct event_sink *sink, uint64_t now);

/*
 * A replay's capture: no tracefs, no processes; lines and command runs
 * come from capture__replay_record. trace_lines: lines kept per tracepoint.
 */
struct capture *capture__new_replay(size_t trace_lines);
/* Takes a validated TT_EV_TRACE_LINE or TT_EV_CMD_OUTPUT record. 0 or -EINVAL. */
int capture__replay_record(struct capture *c, const struct tt_event_header *ev);
/*
 * Bounds the trace lines and replayed command output kept by b (not owned,
 * NULL: none): cmdcap__set_budget, tracer__set_budget.
 */
struct dict_budget;
void capture__set_budget(struct capture *c, struct dict_budget *b);

/* NULL when not tracing / no commands. Owned by the capture. */
const struct tracer *capture__tracer(const struct capture *c);
const struct cmdcap *capture__cmds(const struct capture *c);

#endif /* THREADTOP_CAPTURE_H */
