/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What front ends and exporters read of the diagnostic captures: the lines
 * of --trace (a struct tracer, sources/trace.h) and the runs of --cmd (a
 * struct cmdcap, sources/cmdcap.h). The sources fill them, live or from a
 * recording; readers get them from the front end's host (frontend.h) and
 * use only these read-only calls, so output/ and ui/ need nothing else of
 * the sources.
 */
#ifndef THREADTOP_CAPTURE_VIEW_H
#define THREADTOP_CAPTURE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_EVENTS 16 /* tracepoints per run */
#define TRACE_LINE_MAX 1024 /* longer lines are cut */

struct tracer;
struct cmdcap;

struct trace_stats {
	const char *event; /* "sched:sched_process_exec" */
	uint64_t total;	   /* lines since the start */
	uint64_t interval; /* lines in this interval */
	size_t kept;	   /* lines in the ring (at most max_lines) */
};

size_t tracer__count(const struct tracer *t);
void tracer__stats(const struct tracer *t, size_t i, struct trace_stats *ret);
/*
 * The j-th newest kept line of event i (0 = newest), NUL-terminated, owned
 * by the tracer until the next read; NULL past the end. ret_this_interval
 * (if given) says whether it arrived in the current interval.
 */
const char *tracer__line(const struct tracer *t, size_t i, size_t j, bool *ret_this_interval);
/* Lines the tracer could not attribute to an event (should stay 0). */
uint64_t tracer__unmatched(const struct tracer *t);
/* Events the kernel dropped because we read too slowly ("[LOST N EVENTS]"). */
uint64_t tracer__lost(const struct tracer *t);

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

size_t cmdcap__count(const struct cmdcap *c);
/* The latest finished run of command i; valid until the next loop iteration. */
void cmdcap__result(const struct cmdcap *c, size_t i, struct cmd_result *ret);

#endif /* THREADTOP_CAPTURE_VIEW_H */
