/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one interface between the application and a front end (batch output,
 * the TUI): the application calls a struct frontend's hooks, and a front end
 * reaches back only through the struct frontend_host it is handed, never
 * into the application's code, so ui/ builds without src/app/.
 */
#ifndef THREADTOP_FRONTEND_H
#define THREADTOP_FRONTEND_H

#include <stdbool.h>
#include <stdint.h>

struct cmdcap;
struct loop;
struct model;
struct tracer;

/* The run's settings a front end shows or passes on (from the command line). */
struct frontend_settings {
	unsigned hz;	 /* thread sampling rate */
	unsigned cpu_hz; /* on-CPU stack sampling per CPU, 0 = off */
	double delay_s;	 /* -d: the interval */
	int export_by;	 /* --export-by, an enum export_by */
	bool io;	 /* --io: block I/O requests are traced */
};

/* The recording (-w) in progress, for the header. */
struct record_status {
	const char *path;
	uint64_t bytes;
	bool stopped; /* a full disk or --max-size ended it */
};

/*
 * Replay control, the TUI's time travel (times are the recording's
 * CLOCK_MONOTONIC ns). A batch replay plays at full speed; an interactive
 * one plays in time, one interval per -d seconds divided by the speed.
 */
struct replay_status {
	bool paused;
	bool at_end;		    /* the last interval of the file is shown */
	double speed;		    /* 1, 2, 10, or 0 = as fast as possible */
	uint64_t first_ns, last_ns; /* the recording's span */
	uint64_t shown_ns;	    /* end of the interval shown (0 before the first) */
	uint64_t shown_realtime_ns;
	uint64_t range_from_ns; /* start of the range shown ([ ]), 0 = one interval */
	double interval_s;
	const char *host; /* where it was recorded; owned by the app */
};

/*
 * What the application offers a front end. Every call takes the host it
 * was called through; pointers returned live until the front end's stop.
 */
struct frontend_host {
	/* The model shown (a replay's jump replaces it: ask again each frame). */
	struct model *(*model)(const struct frontend_host *h);
	struct loop *(*loop)(const struct frontend_host *h);
	const struct frontend_settings *(*settings)(const struct frontend_host *h);
	/* "bpf" or "proc": which source feeds the model (in a replay: recorded it). */
	const char *(*source_name)(const struct frontend_host *h);
	/* Whether the model is fed from a recording (-r). */
	bool (*replaying)(const struct frontend_host *h);
	/* --trace lines and --cmd results (live or recorded); NULL when not asked for. */
	const struct tracer *(*tracer)(const struct frontend_host *h);
	const struct cmdcap *(*cmds)(const struct frontend_host *h);
	/* Wall-clock time of the interval being shown (recorded, in a replay). */
	uint64_t (*interval_realtime_ns)(const struct frontend_host *h);
	/* Ends the run after the current handler (a clean exit). */
	void (*quit)(const struct frontend_host *h);
	/* Fills ret and returns true while recording; false without -w. */
	bool (*record_status)(const struct frontend_host *h, struct record_status *ret);
	/* Fills ret and returns true in a replay; false live. */
	bool (*replay_status)(const struct frontend_host *h, struct replay_status *ret);
	/* Each of these returns 0 or a negative errno (-ENOTSUP when live). */
	int (*replay_pause)(const struct frontend_host *h, bool paused);
	/* dir +1 faster, -1 slower: 1x, 2x, 10x, as fast as possible. */
	int (*replay_speed)(const struct frontend_host *h, int dir);
	/* dir +1: the next interval; -1: the previous one. */
	int (*replay_step)(const struct frontend_host *h, int dir);
	/* Shows the interval that ends at or after time_ns (a fresh model from there). */
	int (*replay_jump)(const struct frontend_host *h, uint64_t time_ns);
	/* Shows the intervals ending from from_ns to to_ns as one. */
	int (*replay_range)(const struct frontend_host *h, uint64_t from_ns, uint64_t to_ns);
	/*
	 * Changes the interval (-d) of a live run to delay_s seconds (0.1 to
	 * 3600), from the next interval on (top's d). 0, -EINVAL out of range,
	 * -ENOTSUP in a replay (its intervals are the recording's).
	 */
	int (*set_delay)(const struct frontend_host *h, double delay_s);
};

/* What shows the model: batch output, or the TUI (ui/). */
struct frontend {
	const char *name;
	/*
	 * Start-up, before start: step says what begins ("loading BPF programs
	 * (kernel verifier)..."), so a slow start never shows a blank screen. A
	 * NULL step means start-up failed: give the terminal back. Optional.
	 */
	void (*progress)(void *ctx, const char *step);
	/* After the source started; may add fds (stdin) to the loop. */
	int (*start)(void *ctx, const struct frontend_host *host);
	/* Every -d seconds, before the interval closes. */
	int (*interval)(void *ctx, const struct frontend_host *host, uint64_t now_ns);
	/* A signal other than the ones that end the run (SIGWINCH). */
	int (*signal)(void *ctx, const struct frontend_host *host, int signo);
	/* Names shown as placeholders meanwhile (kallsyms, read in the
	 * background) are in: show the frame again. Optional. */
	void (*names_changed)(void *ctx, const struct frontend_host *host);
	/* Before the app frees the model; undoes start. */
	void (*stop)(void *ctx, const struct frontend_host *host);
	void *ctx;
};

#endif /* THREADTOP_FRONTEND_H */
