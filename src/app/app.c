// SPDX-License-Identifier: GPL-2.0-only
/*
 * The application (see app.h): picks and starts a source, validates every
 * record before the model sees it, drives sampling ticks and output
 * intervals from timerfds, and ends cleanly on SIGINT, SIGTERM and SIGHUP.
 * The loop's clock and interval ends travel as records (TT_EV_CLOCK,
 * TT_EV_INTERVAL) through the same path as the source's, so a recording
 * (-w, a tee of that path) replays (-r) into exactly the same model states.
 * Starting the parts is in app_setup.c, replay control in app_replay.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "capture.h"
#include "cgroup_names.h"
#include "cmdcap.h"
#include "dict_budget.h"
#include "event_codec.h"
#include "export_app.h"
#include "invoker.h"
#include "lj_model.h"
#include "recorded_names.h"
#include "log.h"
#include "maps_cache.h"
#include "record.h"
#include "run_cmd.h"
#include "serve.h"
#include "source_replay.h"
#include "symbolizer.h"
#include "ttr_reader.h"
#include "use_sampler.h"
#include "user_file.h"
#include "util.h"

#include "app_internal.h"

struct model *app_model(struct app *app)
{
	return app->model;
}

struct loop *app_loop(struct app *app)
{
	return app->loop;
}

const struct capture *app_capture(struct app *app)
{
	return app->capture;
}

const struct options *app_options(struct app *app)
{
	return app->o;
}

const char *app_source_name(struct app *app)
{
	if (app->replay)
		return app->recorded_source;
	return app->source ? app->source->ops->name : "none";
}

bool app_replaying(struct app *app)
{
	return app->replay;
}

uint64_t app_interval_realtime_ns(struct app *app)
{
	return app->interval_realtime_ns;
}

void app_quit(struct app *app)
{
	loop__stop(app->loop);
}

/* Fails the run from inside a handler: the loop ends after it. */
static void app_fail(struct app *app, int err)
{
	if (!app->err)
		app->err = err;
	app_quit(app);
}

/*
 * An interval ended (live, or its mark was replayed): show it, then close it.
 * While a replay jumps, intervals before the target close unseen; while it
 * aggregates a range, the marks inside the range do not close the interval.
 */
/* Intervals a process may go unsymbolized before its symbol state is dropped. */
#define SYM_IDLE_INTERVALS 60

static void handle_interval(struct app *app, const struct tt_interval *iv)
{
	uint64_t t = iv->hdr.time_ns, start = app->last_mark_ns;
	int err = 0;

	app->last_mark_ns = t;
	model__advance(app->model, t);
	if (t < app->quiet_until_ns) {
		model__end_interval(app->model, t);
		if (app->replay && app->capture)
			capture__interval_next(app->capture);
		app->quiet_last_ns = t;
		return;
	}
	if (t < app->merge_until_ns)
		return;
	app->merge_until_ns = app->quiet_until_ns = 0;
	app->interval_realtime_ns = iv->realtime_ns;
	app->shown_ns = t;
	app->shown_start_ns = start < t ? start : 0;
	if (!app->shown_count++ && !app->replay)
		log_info("start-up: first interval shown %.0f ms after the start",
			 (double)(monotonic_ns() - app->started_ns) / 1e6);
	if (app->fe->interval)
		err = app->fe->interval(app->fe->ctx, &app->host, iv->hdr.time_ns);
	model__end_interval(app->model, iv->hdr.time_ns);
	serve__interval(app->serve); /* the interval just closed is WIN_LAST now */
	if (app->replay && app->capture)
		capture__interval_next(app->capture); /* a replay's: counts restart */
	if (app->sym)
		symbolizer__expire(app->sym, SYM_IDLE_INTERVALS);
	app_mem_log(app, t);
	if (err == -EPIPE) {
		app_fail(app, err); /* the reader went away (threadtop -b | head): a quiet end */
		return;
	}
	if (err) {
		log_msg("%s output failed: %s", app->fe->name, strerror(-err));
		app->output_failed = true;
		app_fail(app, err);
		return;
	}
	if (app->o->count && ++app->intervals >= app->o->count)
		app_quit(app);
}

static bool pid_wanted(const struct app *app, const struct tt_event_header *ev)
{
	uint32_t pid;

	if (ev->type == TT_EV_THREAD_SAMPLE)
		pid = ((const struct tt_thread_sample *)ev)->pid;
	else if (ev->type == TT_EV_THREAD_INFO)
		pid = ((const struct tt_thread_info *)ev)->pid;
	else if (ev->type == TT_EV_PROC_INFO)
		pid = ((const struct tt_proc_info *)ev)->pid;
	else
		return true;
	for (size_t i = 0; i < app->o->nr_pids; i++)
		if ((uint32_t)app->o->pids[i] == pid)
			return true;
	return false;
}

/* A replay's trace line or command output: to the replay's capture (made on the first). */
static void replay_capture(struct app *app, const struct tt_event_header *ev)
{
	if (!app->capture) {
		app->capture = capture__new_replay(app->trace_lines);
		capture__set_budget(app->capture, app->budget);
	}
	if (capture__replay_record(app->capture, ev) < 0 && !app->bad_capture_records++)
		log_msg("replay: skipped a %s record that does not fit the ones before it "
			"(a damaged recording?)",
			tt_event_type_name(ev->type));
}

/*
 * Exports are written when the run ends, when a process (the command of
 * "threadtop run") may be gone with its maps: a new user stack's frames are
 * named now, while it exists; the symbolizer keeps the names per address.
 */
static void name_stack_now(struct app *app, const struct tt_stack *st)
{
	const struct sym_frame *f;

	if (st->flags & TT_STACK_KERNEL)
		return;
	for (unsigned i = 0; i < st->nr; i++) /* at the addresses the model keeps */
		symbolizer__resolve(app->sym, st->pid, frame_lookup_addr(st->ips[i], i), false, &f);
}

/*
 * Recording live: the C functions a LuaJIT sample names only by address
 * (ids its library never named, as pmain: model_luajit.c names them as C
 * frames) are in no stack, so they are named here, as one-frame stacks of
 * the sample's process, for a replay to name them as this run does.
 */
static void record_lua_cfuncs(struct app *app, const struct tt_luajit_sample *s)
{
	const struct lj_model *lm = model__luajit(app->model);
	struct event_sink sink = {app_emit, app};
	union {
		struct tt_stack st;
		char buf[sizeof(struct tt_stack) + sizeof(uint64_t)];
	} u;

	for (unsigned i = 0; i < s->nr && i < TT_LJ_MAX_FRAMES; i++) {
		if (!s->frames[i] || lj_model__func_named(lm, s->pid, s->frames[i]))
			continue;
		memset(&u, 0, sizeof(u));
		u.st.hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION, sizeof(u.buf),
						    s->hdr.time_ns};
		u.st.pid = s->pid;
		u.st.nr = 1;
		u.st.ips[0] = s->frames[i];
		recorded_names__record_stack(app->names, symbolizer__namer(app->sym), &u.st, &sink,
					     s->hdr.time_ns);
	}
}

/*
 * A new user stack's files are made ready as it arrives (symbolizer__prepare):
 * their DWARF is then opened on a worker while the interval runs, rather than
 * on the loop when its first output names them (measured on a saturated box:
 * libc's debug file took 40 ms there, 4 of 100 ticks of the next interval).
 * What the files' symbol tables cost stays on the loop; at most
 * PREPARE_BUDGET_NS of it per tick, the rest is met at output as before.
 */
#define PREPARE_BUDGET_NS 2000000ull

static void prepare_stack(struct app *app, const struct tt_stack *st)
{
	uint64_t t0;

	if (st->flags & TT_STACK_KERNEL || app->prepare_ns >= PREPARE_BUDGET_NS)
		return;
	t0 = monotonic_ns();
	for (unsigned i = 0; i < st->nr; i++)
		symbolizer__prepare(app->sym, st->pid, frame_lookup_addr(st->ips[i], i));
	app->prepare_ns += monotonic_ns() - t0;
}

/* Every record passes here: a malformed one is counted, never ingested. */
void app_emit(void *ctx, const struct tt_event_header *ev)
{
	struct app *app = ctx;

	if (tt_event_validate(ev, ev->size) < 0) {
		if (!app->invalid_records++)
			log_msg("%s source: dropped a malformed %s record (size %u)",
				app_source_name(app), tt_event_type_name(ev->type), ev->size);
		return;
	}
	if (app->replay && app->o->nr_pids && !pid_wanted(app, ev))
		return;
	if ((app->cut_from_ns || app->cut_to_ns) && !(ev = app_replay_cut(app, ev)))
		return;
	if (app->rec && recorder__write(app->rec, ev) < 0)
		log_msg("%s; the live view goes on", recorder__error(app->rec));
	serve__record(app->serve, ev); /* profiles being taken follow the model */
	switch (ev->type) {
	case TT_EV_CLOCK:
		model__advance(app->model, ev->time_ns);
		break;
	case TT_EV_FRAME_NAME:
		if (app->replay)
			recorded_names__add(app->names, (const struct tt_frame_name *)ev);
		break;
	case TT_EV_BUILD_ID:
		if (app->replay)
			recorded_names__add_build_id(app->names, (const struct tt_build_id *)ev);
		break;
	case TT_EV_INTERVAL:
		handle_interval(app, (const struct tt_interval *)ev);
		break;
	case TT_EV_TRACE_LINE:
	case TT_EV_CMD_OUTPUT:
		if (app->replay)
			replay_capture(app, ev);
		break;
	default:
		model__ingest(app->model, ev);
		break;
	}
	/* Recording live: name a new stack's frames now, while its process exists. */
	if (ev->type == TT_EV_LUAJIT_SAMPLE && app->rec && app->sym && !app->replay) {
		record_lua_cfuncs(app, (const struct tt_luajit_sample *)ev);
	} else if (ev->type == TT_EV_STACK && app->rec && app->sym && !app->replay) {
		struct event_sink sink = {app_emit, app};

		recorded_names__record_stack(app->names, symbolizer__namer(app->sym),
					     (const struct tt_stack *)ev, &sink, ev->time_ns);
	} else if (ev->type == TT_EV_STACK && app->o->nr_exports && app->sym && !app->replay) {
		name_stack_now(app, (const struct tt_stack *)ev);
	} else if (ev->type == TT_EV_STACK && app->sym && !app->replay) {
		prepare_stack(app, (const struct tt_stack *)ev);
	}
}

/* The loop's clock moved: tells the model, and the recording. */
static void emit_clock(struct app *app, uint64_t now)
{
	struct tt_clock c = {{TT_EV_CLOCK, TT_CLOCK_VERSION, sizeof(c), now}};

	app_emit(app, &c.hdr);
}

/*
 * The interval ends at the pass at now, where its sums were read
 * (source_clock.ends_interval), not when its records are all in: the wall
 * clock of its end ("time" in JSON, the title, recordings) is now's, not
 * that of the flush after a pass a loaded box made slow (0.25 s of DWARF
 * unwinding under ASan set one interval's window that much late against a
 * workload's own log).
 */
static uint64_t realtime_at(uint64_t mono)
{
	uint64_t real = realtime_ns(), since = monotonic_ns() - mono;

	return real > since ? real - since : real;
}

static void emit_interval(struct app *app, uint64_t now)
{
	struct tt_interval iv = {
		.hdr = {TT_EV_INTERVAL, TT_INTERVAL_VERSION, sizeof(iv), now},
		.realtime_ns = realtime_at(now),
		.seq = app->interval_seq++,
	};

	app_emit(app, &iv.hdr);
}

/* Samples the USE metrics of the interval; says once what is missing. */
static void sample_use(struct app *app, uint64_t now)
{
	unsigned missing;

	if (!app->use)
		return;
	if (use_sampler__sample(app->use, now) < 0)
		return;
	missing = use_sampler__missing(app->use) & ~app->use_missing_said;
	for (unsigned bit = 0; bit < USE_MISSING_MAX_BIT; bit++)
		if (missing & (1u << bit))
			log_msg("%s", use_missing_text(1u << bit));
	app->use_missing_said |= missing;
}

static int end_interval(struct app *app, uint64_t now)
{
	sample_use(app, now);
	/* Records of this interval still in the source's buffer belong to it. */
	if (app->source->ops->flush)
		app->source->ops->flush(app->source, now);
	if (app->source->ops->fd(app->source) >= 0)
		app->source->ops->ready(app->source);
	if (app->capture)
		capture__interval_end(app->capture);
	if (app->capture && app->rec) {
		struct event_sink sink = {app_emit, app};

		capture__record(app->capture, &sink, now);
	}
	emit_interval(app, now);
	/* No new commands after the last interval. */
	if (app->capture && !(app->o->count && app->intervals >= app->o->count))
		capture__interval_next(app->capture);
	return app->err;
}

/*
 * Passes run on absolute monotonic time: tick k is due at origin + k x
 * period. A handler that runs late takes the latest tick due and counts the
 * ones it skipped (never a burst of late passes, whose samples would all
 * describe the same moment). An interval ends at the first pass at or past
 * its end on the clock, so -d holds however many passes a loaded box let
 * through; the model weighs samples by what was taken (model__rate).
 */
/*
 * The last interval of a -n run lasts until its --cmd commands are done
 * (they are stopped at --cmd-timeout): their output is often what the run
 * was for, and a loaded box can make them outlast -d.
 */
static bool last_waits(const struct app *app)
{
	const struct cmdcap *cmds = capture__cmds(app->capture);

	return cmds && app->o->count && app->intervals + 1 >= app->o->count && cmdcap__busy(cmds);
}

/* Whether the interval goes on past the pass at now. Half a tick early
 * counts as on time: the tick at the end may fire a hair before it. */
static bool interval_goes_on(const struct app *app, uint64_t now)
{
	return now + app->tick_ns / 2 < app->interval_end_ns || last_waits(app);
}

/*
 * What the first pass stands for: a source that counts from the clock's
 * start (its start op: tracers' sums and samples, the BPF source) has it
 * stand for the time since, however late it came (start_ticks); one whose
 * passes are all it has (/proc) for a period (0), so that a late first pass
 * makes a short first interval, not one of time nothing was sampled in.
 */
static uint64_t first_since(const struct app *app, uint64_t now)
{
	return app->source->ops->start ? now - app->tick_origin_ns : 0;
}

static int on_tick(void *ctx, uint64_t now, uint64_t expirations)
{
	struct app *app = ctx;
	uint64_t due = now > app->tick_origin_ns ? (now - app->tick_origin_ns) / app->tick_ns : 0;
	int err;

	(void)expirations; /* the clock says which tick is due, and so how many were missed */
	if (due <= app->tick_index)
		due = app->tick_index + 1;
	app->source->clock = (struct source_clock){
		.period_ns = app->tick_ns,
		.since_ns = app->last_pass_ns ? now - app->last_pass_ns : first_since(app, now),
		.missed = (uint32_t)(due - app->tick_index - 1),
		.ends_interval = !interval_goes_on(app, now),
	};
	app->ticks_missed += due - app->tick_index - 1;
	if (app->names_pending && !symbolizer__kernel_pending(app->sym)) {
		app->names_pending = false; /* kallsyms is in: names for the frame on screen */
		model__names_changed(app->model); /* what caches names of frames drops them */
		app->fe->names_changed(app->fe->ctx, &app->host);
	}
	app->tick_index = due;
	app->last_pass_ns = now;
	app->prepare_ns = 0;
	emit_clock(app, now);
	app_check_rt(app);
	if (app->use)
		use_sampler__tick(app->use, now);
	err = app->source->ops->tick(app->source, now);
	if (err < 0 && err != -EAGAIN)
		log_msg("%s source: sampling failed: %s", app_source_name(app), strerror(-err));
	app->ticks++;
	if (interval_goes_on(app, now))
		return 0;
	while (app->interval_end_ns <= now + app->tick_ns / 2)
		app->interval_end_ns += app->interval_ns;
	app->ticks = 0;
	return end_interval(app, now);
}

bool app_record_status(struct app *app, struct record_status *ret)
{
	if (!app->rec)
		return false;
	*ret = (struct record_status){app->o->write_path, recorder__bytes(app->rec),
				      recorder__stopped(app->rec)};
	return true;
}

static int on_source_fd(void *ctx, int fd, uint32_t events)
{
	struct app *app = ctx;
	int err = app->source->ops->ready(app->source);

	if (app->replay && err == SOURCE_EOF) {
		loop__remove_fd(app->loop, fd);
		app_quit(app);
		return 0;
	}
	if (app->replay && err < 0) {
		/* A damaged recording: one line naming file, offset and reason. */
		log_msg("%s", app->source->error);
		app->failed = true;
		app_quit(app);
		return 0;
	}
	if (err < 0 && err != -EAGAIN && err != -EINTR) {
		log_msg("%s source: %s", app_source_name(app), strerror(-err));
		return err;
	}
	return 0;
}

/* threadtop run: the command exited; show the interval it ended in, then stop. */
static int on_child(struct app *app)
{
	int status;
	pid_t pid = app->child->pid;

	if (pid <= 0 || waitpid(pid, &status, WNOHANG) != pid)
		return 0;
	app->child->pid = 0;
	/* threadtop run ends as its command did, as time(1) and strace do (shells: 128 + sig). */
	if (WIFEXITED(status))
		app->child_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		app->child_code = 128 + WTERMSIG(status);
	if (WIFEXITED(status) && WEXITSTATUS(status))
		log_msg("run: the command exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		log_msg("run: the command was killed by signal %d", WTERMSIG(status));
	if (app->ticks)
		end_interval(app, monotonic_ns());
	app_quit(app);
	return 0;
}

/* threadtop run: the command outlives threadtop only if threadtop was killed. */
static void stop_child(struct app *app)
{
	pid_t pid = app->child->pid;

	if (pid <= 0)
		return;
	if (app->child->gate >= 0) { /* never released: it exits without running */
		close(app->child->gate);
		app->child->gate = -1;
	} else {
		kill(pid, SIGTERM);
	}
	waitpid(pid, NULL, 0);
	app->child->pid = 0;
}

static int on_signal(void *ctx, int signo)
{
	struct app *app = ctx;

	switch (signo) {
	case SIGCHLD:
		return on_child(app);
	case SIGINT:
	case SIGTERM:
	case SIGHUP:
		app_quit(app);
		return 0;
	default:
		return app->fe->signal ? app->fe->signal(app->fe->ctx, &app->host, signo) : 0;
	}
}

/*
 * The sampling clock starts when the loop does: start-up work (loading BPF,
 * the front end's first paint) is neither a missed tick nor part of the
 * first interval. A source's sums and samples count from here, and so does
 * the first interval of a source that has them: its first pass stands for
 * the time since (first_since), and when the loop takes that pass late (a
 * slow machine, a stopped process) the ticks it skipped are missed ones.
 * Counting the interval from the first pass instead gave a first line of
 * 0.06 s with 4 s of two threads' off-CPU time in it.
 */
static int start_ticks(struct app *app)
{
	app->tick_origin_ns = monotonic_ns();
	if (app->source->ops->start)
		app->source->ops->start(app->source, app->tick_origin_ns);
	app->interval_end_ns = app->tick_origin_ns + app->first_interval_ns;
	return loop__add_timer_at(app->loop, app->tick_origin_ns + app->tick_ns, app->tick_ns,
				  on_tick, app);
}

#define FIRST_INTERVAL_MIN_NS (NSEC_PER_SEC / 10)

static int setup_loop(struct app *app)
{
	sigset_t set;
	int err, fd;

	app->tick_ns = NSEC_PER_SEC / app->hz;
	app->interval_ns = (uint64_t)(app->delay_s * 1e9 + 0.5);
	if (app->interval_ns < app->tick_ns)
		app->interval_ns = app->tick_ns;
	/* A live TUI shows a first, short interval (two passes, a tenth of a
	 * second at least) rather than a blank table for the whole of -d: its
	 * figures are over its real length, shown in the title (model__query
	 * counts CPU time from the first pass). Batch output keeps -d throughout. */
	app->first_interval_ns = app->interval_ns;
	if (app->fe->progress && !app->replay) {
		uint64_t first = 2 * app->tick_ns;

		if (first < FIRST_INTERVAL_MIN_NS)
			first = FIRST_INTERVAL_MIN_NS;
		if (first < app->interval_ns)
			app->first_interval_ns = first;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGWINCH);
	if (app->child->pid > 0)
		sigaddset(&set, SIGCHLD);
	err = loop__add_signals(app->loop, &set, on_signal, app);
	if (err < 0)
		return err;
	if (app->paced) {
		return app_replay_add_play_timer(app); /* the TUI plays it in time */
	}
	fd = app->source->ops->fd(app->source);
	if (fd >= 0) {
		err = loop__add_fd(app->loop, fd, on_source_fd, app);
		if (err < 0)
			return err;
	}
	return 0;
}

static int name_cgroup(void *ctx, uint64_t id, char *buf, size_t len)
{
	return cgroup_names__name(ctx, id, buf, len);
}

#define STARTUP_NICE -20
#define NO_NICE 100 /* no nice to restore */

/*
 * Start-up is CPU work (the kernel verifier, kallsyms): on a saturated box
 * a normal-priority threadtop got a few percent of a CPU for it and took
 * 5-10 s to show anything. The loop thread runs it at nice -20 (the
 * threads it starts meanwhile inherit it) and goes back to its nice once
 * the loop has its sampling priority (--sched), before any child is forked.
 * Returns the nice to go back to, or NO_NICE when it was not raised (no
 * CAP_SYS_NICE).
 */
static int raise_startup_priority(void)
{
	int old;

	errno = 0;
	old = getpriority(PRIO_PROCESS, 0); /* this thread's, on Linux */
	if ((old == -1 && errno) || old <= STARTUP_NICE ||
	    setpriority(PRIO_PROCESS, 0, STARTUP_NICE) < 0)
		return NO_NICE;
	return old;
}

static void restore_priority(int nice)
{
	if (nice != NO_NICE)
		setpriority(PRIO_PROCESS, 0, nice);
}

int app_run(const struct options *o, const struct frontend *fe, struct run_child *child)
{
	struct app app = {.o = o,
			  .hz = o->hz,
			  .delay_s = o->delay_s,
			  .trace_lines = o->trace_lines,
			  .child = child,
			  .fe = fe,
			  .play_timer = -1};
	int err, invoker_err, code = 1;
	bool started = false;
	int startup_nice = NO_NICE;

	app.started_ns = monotonic_ns();
	if (!o->read_path)
		startup_nice = raise_startup_priority();
	signal(SIGPIPE, SIG_IGN); /* a closed stdout is an EPIPE we handle */
	/* Before any file is opened and while CAP_SETUID is still held. */
	invoker_err = invoker_init();
	err = log_open(o->log_path);
	if (err < 0) {
		fprintf(stderr, "threadtop: --log %s: %s\n", o->log_path,
			user_file_reason(err, USER_FILE_APPEND));
		return 1;
	}
	app_progress(&app, o->read_path ? "reading the recording..." : "starting...");
	if (invoker_err < 0)
		log_info("cannot keep the sudo user's IDs for creating files: %s; files cannot be "
			 "created",
			 strerror(-invoker_err));
	if ((!o->read_path && app_check_pids(o) < 0) || export_app_check(o) < 0)
		goto out;
	app.loop = loop__new();
	app.model = model__new(&(struct model_opts){.retain_ns = (uint64_t)(o->retain_s * 1e9)});
	app.budget = dict_budget__new((size_t)o->dict_budget);
	model__set_budget(app.model, app.budget);
	if (!app.loop) {
		log_msg("cannot create the event loop: %s", strerror(errno));
		goto out;
	}
	if (!o->read_path) /* read once per process for the unwinder and the symbolizer */
		app.maps = maps_cache__new(NULL);
	if ((o->read_path ? app_replay_start(&app) : app_start_source(&app)) < 0)
		goto out;
	log_info("start-up: %s source ready after %.0f ms", app_source_name(&app),
		 (double)(monotonic_ns() - app.started_ns) / 1e6);
	if (o->write_path && app_start_recording(&app) < 0)
		goto out;
	if (!app.replay) {
		app_start_use(&app);
		/* Live addresses are this machine's: name them lazily, at output time.
		 * kallsyms (0.2-0.4 s on a loaded box; read beside the verifier, it
		 * slowed it as much) is read after the programs are loaded; the TUI's
		 * first frames do not wait for it (a placeholder names kernel frames
		 * until it is in), what is exported does. */
		app.sym = symbolizer__new(&(struct symbolizer_opts){.maps = app.maps});
		symbolizer__load_kernel_background(app.sym);
		model__set_frame_namer(app.model, fe->names_changed
							  ? symbolizer__namer_nowait(app.sym)
							  : symbolizer__namer(app.sym));
		model__set_exact_namer(app.model, symbolizer__namer(app.sym));
		app.names_pending = fe->names_changed && symbolizer__kernel_pending(app.sym);
		/* Containers, pods and units by the cgroup tree of this host. */
		app.cgroups = cgroup_names__new(o->sys_root);
		app.cg_namer = (struct cgroup_namer){name_cgroup, app.cgroups};
		model__set_cgroup_namer(app.model, &app.cg_namer);
	}
	err = setup_loop(&app);
	if (err < 0) {
		log_msg("cannot set up the event loop: %s", strerror(-err));
		goto out;
	}
	/* Before privileges drop: the token file may be root's only. */
	if (o->serve_addr && app_start_serve(&app) < 0)
		goto out;
	/* After setup_loop: SIGTERM is a loop event by now, so the instance is removed. */
	if (!app.replay && (o->nr_traces || o->nr_cmds) && app_start_capture(&app) < 0)
		goto out;
	if (!app.replay)
		emit_clock(&app, monotonic_ns());
	run_cmd__release(app.child); /* the sources are up: the command may start */
	app_host_init(&app);
	started = true; /* from here the front end owns the terminal, or says why not */
	if (fe->start && fe->start(fe->ctx, &app.host) < 0)
		goto out;
	app_start_rt(&app); /* before the capabilities go: it takes CAP_SYS_NICE */
	/* Not before: at nice 0 on a loaded box the loop waited 100+ ms here for a CPU. */
	restore_priority(startup_nice);
	startup_nice = NO_NICE;
	app_drop_privileges(&app);
	if (app.capture && (err = capture__start(app.capture)) < 0) {
		log_msg("--cmd: cannot start a command: %s", strerror(-err));
		goto out;
	}
	if (!app.replay && (err = start_ticks(&app)) < 0) {
		log_msg("cannot set up the event loop: %s", strerror(-err));
		goto out;
	}
	err = loop__run(app.loop);
	app_stop_rt(&app);
	if (!err)
		err = app.err;
	if (fe->stop)
		fe->stop(fe->ctx, &app.host);
	if ((err == 0 || err == -EPIPE) && !app.failed) /* EPIPE: the reader went away */
		code = 0;
	else if (err < 0 && !app.output_failed)
		log_msg("stopped: %s", strerror(-err));
	if (app.replay && !app.failed && app.o->count == 0 &&
	    !ttr_reader__finished(replay_source__reader(app.source)))
		log_msg("%s: no index at its end: the recorder did not finish (killed?); replayed "
			"every whole chunk",
			o->read_path);
	if (dict_budget__refused(app.budget))
		log_msg("%s: names and stacks reached --dict-budget (%zuM): %llu entries dropped, "
			"shown as [dropped] (dict_full); a larger --dict-budget keeps them",
			o->read_path ? o->read_path : "live", dict_budget__total(app.budget) >> 20,
			(unsigned long long)dict_budget__refused(app.budget));
	/* What was profiled is worth keeping even when the output failed. */
	if (export_app_write(&app) < 0)
		code = 1;
	if (!code && app.child_code > 0)
		code = app.child_code; /* threadtop's own failure says more than the command's */
out:
	restore_priority(startup_nice);
	if (!started)
		app_progress(&app, NULL);
	stop_child(&app);
	if (app.rec) {
		bool stopped = recorder__stopped(app.rec);

		err = recorder__close(app.rec);
		if (err < 0 && !stopped)
			log_msg("-w %s: could not finish the recording: %s; it still replays",
				o->write_path, strerror(-err));
	}
	serve__free(app.serve); /* before the model it reads */
	source__free(app.source);
	use_sampler__free(app.use);
	capture__free(app.capture);
	model__free(app.model);
	recorded_names__free(app.names);
	dict_budget__free(app.budget); /* after every user */
	symbolizer__free(app.sym);
	cgroup_names__free(app.cgroups); /* after the model that named with it */
	maps_cache__free(app.maps);	 /* after both its users */
	loop__free(app.loop);
	log_close();
	return code;
}
