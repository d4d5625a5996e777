/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The application's internals, shared by app.c (the loop and the record
 * path), app_setup.c (starting the parts of a run) and app_replay.c (replay
 * control).
 */
#ifndef THREADTOP_APP_INTERNAL_H
#define THREADTOP_APP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app.h"
#include "event_codec.h"
#include "model.h"

struct app {
	const struct options *o; /* as parsed; never changed */
	/* The run's pace: the options', in a replay the recording's. */
	unsigned hz;		 /* thread sampling rate */
	double delay_s;		 /* the interval */
	size_t trace_lines;	 /* --trace lines kept per tracepoint */
	struct run_child *child; /* threadtop run's command */
	const struct frontend *fe;
	struct loop *loop;
	struct model *model;
	struct source *source;
	struct recorder *rec;
	bool replay;
	char recorded_source[32];     /* in a replay: the source that recorded it */
	struct use_sampler *use;      /* USE metrics, sampled once per interval */
	struct recorded_names *names; /* recorded frame names: written live, read in a replay */
	struct dict_budget *budget;   /* of every dictionary (model, names, capture) */
	struct symbolizer *sym;	      /* names stack frames of a live run (none in a replay) */
	struct maps_cache *maps;      /* process maps of a live run: the unwinder's and sym's */
	unsigned use_missing_said;
	struct capture *capture;      /* --trace, --cmd; in a replay, what they recorded */
	struct serve *serve;	      /* --serve, or NULL */
	struct cgroup_names *cgroups; /* names the cgroups of a live run (none in a replay) */
	struct cgroup_namer cg_namer; /* the model's way to them */
	uint64_t bad_capture_records;
	long intervals;
	/*
	 * The sampling clock: tick k falls at tick_origin_ns + k x tick_ns;
	 * intervals end on the wall clock, at interval_end_ns (multiples of -d
	 * after the origin), not after a count of ticks.
	 */
	uint64_t tick_origin_ns, tick_ns, interval_ns;
	uint64_t tick_index;	    /* the latest tick taken */
	uint64_t last_pass_ns;	    /* when it was taken, 0 = none yet */
	uint64_t interval_end_ns;   /* the next interval ends at the first tick past this */
	uint64_t ticks_missed;	    /* session: ticks skipped because the loop was late */
	unsigned ticks;		    /* passes in the interval so far */
	bool rt;		    /* running at real-time priority (--sched rr) */
	uint64_t prepare_ns;	    /* spent this tick making new stacks' files ready */
	bool names_pending;	    /* the front end was shown placeholders for kernel frames */
	uint64_t first_interval_ns; /* the TUI's first interval: data on screen sooner */
	uint64_t started_ns;	    /* monotonic time app_run began, for start-up figures */
	uint32_t interval_seq;
	uint64_t interval_realtime_ns;
	uint64_t invalid_records;
	/* Replay control (the TUI's time travel); batch replays play at full speed. */
	bool paced; /* play in time on a timer, not as fast as possible */
	bool paused;
	bool at_end;		 /* the last interval of the file is shown */
	int speed;		 /* index into replay_speeds */
	int play_timer;		 /* loop timer id, -1 = none */
	uint64_t quiet_until_ns; /* a jump: intervals closing before this are not shown */
	uint64_t merge_until_ns; /* a range: intervals closing before this merge on */
	uint64_t range_from_ns;	 /* start of the range shown, 0 = one interval */
	uint64_t shown_ns;	 /* end of the interval shown */
	/* Its start: the mark before it (0 = none seen since the last seek). Intervals
	 * recorded on a loaded box are longer than -d: stepping back lands here. */
	uint64_t shown_start_ns;
	uint64_t last_mark_ns; /* the latest interval mark handled, shown or not */
	uint64_t shown_count;
	uint64_t quiet_last_ns; /* the last interval a jump closed unseen */
	uint64_t span_first_ns, span_last_ns;
	/* --from/--to: only the records in [cut_from_ns, cut_to_ns] are measured (0 = no bound). */
	uint64_t cut_from_ns, cut_to_ns;
	uint64_t boot_time_ns; /* the recording's wall clock at monotonic 0, 0 = unknown */
	bool cut_done;	       /* past --to: the run ends */
	bool cut_draining;     /* past --to: taking the last interval's sums, then the end */
	uint64_t cut_sums_ns;  /* the last sums record (off-CPU, syscalls) before --to */
	/* A dictionary record past --to, restamped at --to (app_replay_cut). */
	union {
		struct tt_event_header hdr;
		unsigned char bytes[TT_EVENT_MAX_SIZE];
	} cut_state;
	bool output_failed;		   /* already said why the run stopped */
	int err;			   /* a failure inside a handler that must end the run */
	bool failed;			   /* the run ends with exit code 1 */
	int child_code;			   /* run: its command's exit code, 128 + signal */
	struct frontend_host host;	   /* what the front end calls (app_host.c) */
	struct frontend_settings settings; /* what it is told of the options */
	uint64_t mem_logged_ns;		   /* --mem-log: when the last line was written */
	uint64_t mem_trimmed_ns;	   /* when the heap's free pages last went back */
};

/* The app a front end's host belongs to. */
static inline struct app *app_of_host(const struct frontend_host *h)
{
	return (struct app *)((char *)h - offsetof(struct app, host));
}
/* app_host.c: fills app->host and app->settings, before the front end starts. */
void app_host_init(struct app *app);

/* Says what start-up step begins, on the front end (the TUI paints it at once). */
static inline void app_progress(struct app *app, const char *step)
{
	if (app->fe->progress)
		app->fe->progress(app->fe->ctx, step);
}

/* Every record passes here (the sink of every source): validated, recorded, ingested. */
void app_emit(void *ctx, const struct tt_event_header *ev);

/* app_setup.c: each says why it failed in the log and returns -errno. */
int app_check_pids(const struct options *o);
/* The live source: BPF, falling back to /proc unless --source bpf. */
int app_start_source(struct app *app);
void app_start_use(struct app *app);
int app_start_capture(struct app *app);
int app_start_recording(struct app *app);
/* --serve: listens (loopback unless an address is given). */
int app_start_serve(struct app *app);
void app_drop_privileges(struct app *app);
/*
 * The sampler's priority (--sched): app_start_rt raises a live run to the
 * lowest real-time priority, bounded by RLIMIT_RTTIME; app_check_rt logs
 * once when that bound put it back; app_stop_rt lowers it when the loop ends.
 */
void app_start_rt(struct app *app);
void app_check_rt(struct app *app);
void app_stop_rt(struct app *app);

/* app_mem.c: at an interval's end: --mem-log's line and the heap's trim, when due. */
void app_mem_log(struct app *app, uint64_t now_ns);

/* app_replay.c: opens o->read_path as the source; rate, interval and source from the file. */
int app_replay_start(struct app *app);
/*
 * --from/--to: ev as the range keeps it: ev, a copy restamped at --to (a
 * dictionary record past it), or NULL (outside the range; past --to it
 * ends the run).
 */
const struct tt_event_header *app_replay_cut(struct app *app, const struct tt_event_header *ev);
/* The TUI plays the recording in time: adds and arms the timer that plays it. */
int app_replay_add_play_timer(struct app *app);

#endif
