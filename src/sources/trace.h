/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel trace capture (--trace SUBSYSTEM:EVENT): enables tracepoints in a
 * private tracefs instance (instances/threadtop-PID, so the global trace
 * buffer and other tools are untouched), reads the instance's trace_pipe
 * without blocking from the event loop, and keeps the last N formatted
 * lines of each tracepoint with its counts. The instance is removed by
 * tracer__free, which every exit path of the application reaches; instances
 * left by a threadtop that was killed are removed at the next start.
 */
#ifndef THREADTOP_TRACE_H
#define THREADTOP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/capture_view.h"

struct tracer;

struct tracer_opts {
	const char *const *events; /* "sched:sched_process_exec", ... */
	size_t nr_events;
	size_t max_lines;    /* kept per tracepoint (1 to 100000) */
	const char *tracefs; /* NULL: /sys/kernel/tracing (mounted there when absent) */
};

/* Whether s is a well-formed SUBSYSTEM:EVENT (letters, digits, '_'), no paths. */
bool trace_event_name_ok(const char *s);

/*
 * Sets up the instance and enables every event. On failure returns NULL
 * with errno set and a one-line reason in err (what, why, what to do). On
 * success note holds a line to tell the user, or is empty (note: "mounted
 * tracefs at /sys/kernel/tracing").
 */
struct tracer *tracer__new(const struct tracer_opts *opts, char *err, size_t errlen, char *note,
			   size_t notelen);
/* A tracer with no kernel side (tests, replays): lines come from tracer__feed. */
struct tracer *tracer__new_offline(const struct tracer_opts *opts);
/*
 * Bounds the lines kept by b (not owned, NULL: none): a line that does not
 * fit is counted, not kept (the ring keeps its older lines).
 */
struct dict_budget;
void tracer__set_budget(struct tracer *t, struct dict_budget *b);
/*
 * A replay's line: event (added when new, at most TRACE_MAX_EVENTS) gets
 * line, and its total and the lost count become the recorded ones. Returns
 * 0, -EINVAL for a malformed event name, -ENOSPC past TRACE_MAX_EVENTS.
 */
int tracer__add_line(struct tracer *t, const char *event, const char *line, uint64_t total,
		     uint64_t lost);
/* Routes len bytes of trace_pipe text (lines may span calls). */
void tracer__feed(struct tracer *t, const char *data, size_t len);
/* Disables the events, closes the pipe and removes the instance. Accepts NULL. */
void tracer__free(struct tracer *t);

/* The trace_pipe fd to poll (non-blocking). */
int tracer__fd(const struct tracer *t);
/* Reads everything available now. Returns lines read or a negative errno. */
int tracer__read(struct tracer *t);
/* Closes the interval: interval counts restart. */
void tracer__end_interval(struct tracer *t);

/*
 * Parsing seam for tests: which of events (SUBSYSTEM:EVENT) an ftrace line
 * "comm-pid [cpu] flags ts: EVENT: fields" belongs to; -1 when none.
 */
int trace_match_line(const char *line, const char *const *events, size_t nr);

#endif /* THREADTOP_TRACE_H */
