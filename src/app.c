// SPDX-License-Identifier: GPL-2.0-only
/*
 * The application (see app.h): picks and starts a source, validates every
 * record before the model sees it, drives sampling ticks and output
 * intervals from timerfds, and ends cleanly on SIGINT, SIGTERM and SIGHUP.
 * The loop's clock and interval ends travel as records (TT_EV_CLOCK,
 * TT_EV_INTERVAL) through the same path as the source's, so a recording
 * (-w, a tee of that path) replays (-r) into exactly the same model states.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <unistd.h>

#include "threadtop/app.h"
#include "threadtop/capture.h"
#include "threadtop/event_codec.h"
#include "threadtop/export_app.h"
#include "threadtop/frame_names.h"
#include "threadtop/log.h"
#include "threadtop/privileges.h"
#include "threadtop/record.h"
#include "threadtop/run_cmd.h"
#include "threadtop/source_bpf.h"
#include "threadtop/source_proc.h"
#include "threadtop/source_replay.h"
#include "threadtop/symbolizer.h"
#include "threadtop/ttr_reader.h"
#include "threadtop/use_sampler.h"
#include "threadtop/util.h"

struct app {
	struct options opts; /* as given; in a replay, rate and interval of the recording */
	const struct options *o;
	const struct frontend *fe;
	struct loop *loop;
	struct model *model;
	struct source *source;
	struct recorder *rec;
	bool replay;
	char recorded_source[32];  /* in a replay: the source that recorded it */
	struct use_sampler *use;   /* USE metrics, sampled once per interval */
	struct frame_names *names; /* recorded frame names: written live, read in a replay */
	struct symbolizer *sym;	   /* names stack frames of a live run (none in a replay) */
	unsigned use_missing_said;
	struct capture *capture; /* --trace, --cmd */
	long intervals;
	unsigned ticks_per_interval;
	unsigned ticks;
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
	uint64_t shown_count;
	uint64_t quiet_last_ns; /* the last interval a jump closed unseen */
	uint64_t span_first_ns, span_last_ns;
	bool output_failed; /* already said why the run stopped */
	int err;	    /* a failure inside a handler that must end the run */
	bool failed;	    /* the run ends with exit code 1 */
};

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
	uint64_t t = iv->hdr.time_ns;
	int err = 0;

	model__advance(app->model, t);
	if (t < app->quiet_until_ns) {
		model__end_interval(app->model, t);
		app->quiet_last_ns = t;
		return;
	}
	if (t < app->merge_until_ns)
		return;
	app->merge_until_ns = app->quiet_until_ns = 0;
	app->interval_realtime_ns = iv->realtime_ns;
	app->shown_ns = t;
	app->shown_count++;
	if (app->fe->interval)
		err = app->fe->interval(app->fe->ctx, app, iv->hdr.time_ns);
	model__end_interval(app->model, iv->hdr.time_ns);
	if (app->sym)
		symbolizer__expire(app->sym, SYM_IDLE_INTERVALS);
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
	else
		return true;
	for (size_t i = 0; i < app->o->nr_pids; i++)
		if ((uint32_t)app->o->pids[i] == pid)
			return true;
	return false;
}

/* Every record passes here: a malformed one is counted, never ingested. */
static void app_emit(void *ctx, const struct tt_event_header *ev)
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
	if (app->rec && recorder__write(app->rec, ev) < 0)
		log_msg("%s; the live view goes on", recorder__error(app->rec));
	switch (ev->type) {
	case TT_EV_CLOCK:
		model__advance(app->model, ev->time_ns);
		break;
	case TT_EV_FRAME_NAME:
		if (app->replay)
			frame_names__add(app->names, (const struct tt_frame_name *)ev);
		break;
	case TT_EV_INTERVAL:
		handle_interval(app, (const struct tt_interval *)ev);
		break;
	default:
		model__ingest(app->model, ev);
		break;
	}
	/* Recording live: name a new stack's frames now, while its process exists. */
	if (ev->type == TT_EV_STACK && app->rec && app->sym && !app->replay) {
		struct event_sink sink = {app_emit, app};

		frame_names__record_stack(app->names, symbolizer__namer(app->sym),
					  (const struct tt_stack *)ev, &sink, ev->time_ns);
	}
}

/* The loop's clock moved: tells the model, and the recording. */
static void emit_clock(struct app *app, uint64_t now)
{
	struct tt_clock c = {{TT_EV_CLOCK, TT_CLOCK_VERSION, sizeof(c), now}};

	app_emit(app, &c.hdr);
}

static void emit_interval(struct app *app, uint64_t now)
{
	struct tt_interval iv = {
		.hdr = {TT_EV_INTERVAL, TT_INTERVAL_VERSION, sizeof(iv), now},
		.realtime_ns = realtime_ns(),
		.seq = app->interval_seq++,
	};

	app_emit(app, &iv.hdr);
}

static int check_pids(const struct options *o)
{
	int root = open(o->proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (root < 0) {
		log_msg("cannot open %s: %s", o->proc_root, strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < o->nr_pids; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%d", o->pids[i]);
		if (faccessat(root, name, F_OK, 0) < 0) {
			log_msg("-p %d: no such process (it may have exited; check with ps -p %d)",
				o->pids[i], o->pids[i]);
			close(root);
			return -ESRCH;
		}
	}
	close(root);
	return 0;
}

static void warn_line(const char *msg)
{
	log_msg("%s", msg);
}

static int start_source(struct app *app)
{
	const struct options *o = app->o;
	struct event_sink sink = {app_emit, app};
	char err[256] = "";

	if (o->source != SOURCE_PROC) {
		struct bpf_source_opts bo = {
			.pids = o->nr_pids ? o->pids : NULL,
			.nr_pids = o->nr_pids,
			.hz = o->hz,
			.self_pid = getpid(),
			.cpu_hz = o->cpu_hz,
			.syscalls = o->syscalls,
			.offcpu = o->offcpu,
			/* Timing each run costs more than a tracer's run itself. */
			.bpf_stats = o->bpf_stats < 0 ? !o->syscalls && !o->offcpu : o->bpf_stats,
			.labels = o->labels.nr_defs ? &o->labels : NULL,
			.warn = warn_line,
		};
		const char *why;

		app->source = bpf_source__new(&bo, sink, err, sizeof(err));
		if (app->source)
			return 0;
		/* libbpf's own words (the verifier log) go to the log file only. */
		why = bpf_source__libbpf_log();
		if (*why && log_file_text(why) == 0)
			snprintf(err + strlen(err), sizeof(err) - strlen(err),
				 " (libbpf and verifier log in %s)", o->log_path);
		else if (*why)
			snprintf(err + strlen(err), sizeof(err) - strlen(err),
				 " (rerun with --log FILE to keep the verifier log)");
		if (o->source == SOURCE_BPF) {
			log_msg("%s", err);
			return -ENOTSUP;
		}
		log_msg("%s; falling back to /proc", err);
	}
	if (o->syscalls || o->offcpu)
		log_msg("--syscalls and --offcpu need the BPF source: not traced");
	if (o->labels.nr_defs)
		log_msg("--label needs the BPF source (uprobes): no labels in this run");
	struct proc_source_opts po = {
		.proc_root = o->proc_root,
		.pids = o->nr_pids ? o->pids : NULL,
		.nr_pids = o->nr_pids,
		.hz = o->hz,
		.self_pid = getpid(),
	};
	app->source = proc_source__new(&po, sink, err, sizeof(err));
	if (!app->source) {
		log_msg("%s", err);
		return -errno;
	}
	if (geteuid() != 0)
		log_msg("not root: /proc shows syscalls and wait channels only for your own processes; "
			"run as root to see all");
	return 0;
}

/* USE metrics are optional: without them the thread views still work. */
static void start_use(struct app *app)
{
	struct use_sampler_opts uo = {app->o->proc_root, app->o->sys_root};
	struct event_sink sink = {app_emit, app};

	app->use = use_sampler__new(&uo, sink, monotonic_ns());
	if (!app->use)
		log_msg("USE metrics off: cannot read %s/stat or %s/meminfo: %s", uo.proc_root,
			uo.proc_root, strerror(errno));
}

/* --trace and --cmd: only live, while threadtop still holds its privileges. */
static int start_capture(struct app *app)
{
	char err[512], note[256];

	app->capture = capture__new(app->o, app->loop, err, sizeof(err), note, sizeof(note));
	if (!app->capture) {
		log_msg("%s", err);
		return -1;
	}
	if (note[0])
		log_msg("%s", note);
	return 0;
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
	emit_interval(app, now);
	/* No new commands after the last interval. */
	if (app->capture && !(app->o->count && app->intervals >= app->o->count))
		capture__interval_next(app->capture);
	return app->err;
}

/*
 * Intervals are counted in ticks, not timed separately, so every interval
 * holds exactly round(delay x hz) sampling passes.
 */
static int on_tick(void *ctx, uint64_t now, uint64_t expirations)
{
	struct app *app = ctx;
	int err;

	emit_clock(app, now);
	if (app->use)
		use_sampler__tick(app->use, now);
	err = app->source->ops->tick(app->source, now);
	if (err < 0 && err != -EAGAIN)
		log_msg("%s source: sampling failed: %s", app_source_name(app), strerror(-err));
	if (++app->ticks < app->ticks_per_interval)
		return 0;
	app->ticks = 0;
	return end_interval(app, now);
}

static const double replay_speeds[] = {1, 2, 10, 0}; /* 0: as fast as possible */

/* Plays the recording up to the next interval shown; 1 at its end, or -errno. */
static int play_interval(struct app *app)
{
	uint64_t shown = app->shown_count;
	int err = 0;

	while (app->shown_count == shown && !app->err) {
		err = app->source->ops->ready(app->source);
		if (err != 0)
			break;
	}
	if (err == SOURCE_EOF) {
		app->at_end = true;
		return 1;
	}
	if (err < 0) {
		log_msg("%s", app->source->error);
		app->at_end = true;
		return err;
	}
	return 0;
}

static int arm_play_timer(struct app *app)
{
	double speed = replay_speeds[app->speed];
	uint64_t ns = speed > 0 ? (uint64_t)(app->o->delay_s * 1e9 / speed) : 1000000;

	if (app->play_timer < 0)
		return 0;
	if (app->paused || app->at_end)
		ns = 0;
	return loop__set_timer(app->loop, app->play_timer, ns, ns);
}

static int on_play_timer(void *ctx, uint64_t now, uint64_t expirations)
{
	struct app *app = ctx;

	app->range_from_ns = 0; /* playing on shows single intervals again */
	if (play_interval(app) != 0)
		arm_play_timer(app); /* stops at the end or at damage */
	return 0;
}

bool app_record_status(struct app *app, struct record_status *ret)
{
	if (!app->rec)
		return false;
	*ret = (struct record_status){app->o->write_path, recorder__bytes(app->rec),
				      recorder__stopped(app->rec)};
	return true;
}

bool app_replay_status(struct app *app, struct replay_status *ret)
{
	if (!app->replay)
		return false;
	*ret = (struct replay_status){
		.paused = app->paused,
		.at_end = app->at_end,
		.speed = replay_speeds[app->speed],
		.first_ns = app->span_first_ns,
		.last_ns = app->span_last_ns,
		.shown_ns = app->shown_ns,
		.shown_realtime_ns = app->interval_realtime_ns,
		.range_from_ns = app->range_from_ns,
		.interval_s = app->o->delay_s,
		.host = ttr_reader__info(replay_source__reader(app->source), "hostname"),
	};
	if (!ret->host)
		ret->host = "?";
	return true;
}

int app_replay_pause(struct app *app, bool paused)
{
	if (!app->replay)
		return -ENOTSUP;
	app->paused = paused;
	return arm_play_timer(app);
}

int app_replay_speed(struct app *app, int dir)
{
	int n = (int)ARRAY_SIZE(replay_speeds);

	if (!app->replay)
		return -ENOTSUP;
	app->speed = app->speed + dir < 0 ? 0 : (app->speed + dir >= n ? n - 1 : app->speed + dir);
	return arm_play_timer(app);
}

/*
 * Shows the interval that ends at or after time_ns, merged back to from_ns
 * when from_ns is not 0 (a range): a fresh model, dictionaries from the
 * nearest snapshot, then the records from a little before.
 */
static int show_at(struct app *app, uint64_t from_ns, uint64_t time_ns)
{
	uint64_t interval_ns = (uint64_t)(app->o->delay_s * 1e9);
	uint64_t start = from_ns ? from_ns : time_ns;
	int err;

	if (time_ns > app->span_last_ns)
		time_ns = app->span_last_ns;
	if (start > time_ns)
		start = time_ns;
	start = start > 2 * interval_ns ? start - 2 * interval_ns : 0;
	model__reset(app->model);
	err = replay_source__seek(app->source, start);
	if (err < 0) {
		log_msg("%s",
			err == -ERANGE ? "jump past the end of the recording" : app->source->error);
		return err;
	}
	app->at_end = false;
	app->quiet_until_ns = from_ns ? from_ns : time_ns;
	app->merge_until_ns = from_ns ? time_ns : 0;
	app->range_from_ns = from_ns;
	app->quiet_last_ns = 0;
	err = play_interval(app);
	if (err == 1 && app->quiet_until_ns && app->quiet_last_ns && app->quiet_last_ns < time_ns) {
		/* Past the last interval (End): show the last one there is. */
		return show_at(app, from_ns && from_ns < app->quiet_last_ns ? from_ns : 0,
			       app->quiet_last_ns);
	}
	app->quiet_until_ns = app->merge_until_ns = 0;
	arm_play_timer(app);
	return err < 0 ? err : 0;
}

int app_replay_jump(struct app *app, uint64_t time_ns)
{
	if (!app->replay)
		return -ENOTSUP;
	return show_at(app, 0, time_ns);
}

int app_replay_range(struct app *app, uint64_t from_ns, uint64_t to_ns)
{
	if (!app->replay)
		return -ENOTSUP;
	if (from_ns > to_ns) {
		uint64_t t = from_ns;

		from_ns = to_ns;
		to_ns = t;
	}
	return show_at(app, from_ns, to_ns);
}

int app_replay_step(struct app *app, int dir)
{
	uint64_t interval_ns = (uint64_t)(app->o->delay_s * 1e9);

	if (!app->replay)
		return -ENOTSUP;
	if (dir < 0 || app->range_from_ns) {
		/* Back: the interval whose end is about one interval before this one's. */
		uint64_t t = app->shown_ns + interval_ns / 2;

		t = dir < 0 ? (t > 2 * interval_ns ? t - 2 * interval_ns : 0) : t;
		return show_at(app, 0, t);
	}
	app->range_from_ns = 0;
	return play_interval(app) < 0 ? -EBADMSG : 0;
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
	pid_t pid = app->opts.run_pid;

	if (pid <= 0 || waitpid(pid, &status, WNOHANG) != pid)
		return 0;
	app->opts.run_pid = 0;
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
	pid_t pid = app->opts.run_pid;

	if (pid <= 0)
		return;
	if (app->opts.run_gate >= 0) { /* never released: it exits without running */
		close(app->opts.run_gate);
		app->opts.run_gate = -1;
	} else {
		kill(pid, SIGTERM);
	}
	waitpid(pid, NULL, 0);
	app->opts.run_pid = 0;
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
		return app->fe->signal ? app->fe->signal(app->fe->ctx, app, signo) : 0;
	}
}

static int setup_loop(struct app *app)
{
	uint64_t tick_ns = NSEC_PER_SEC / app->o->hz;
	double per_interval = app->o->delay_s * app->o->hz + 0.5;
	sigset_t set;
	int err, fd;

	app->ticks_per_interval = per_interval < 1 ? 1 : (unsigned)per_interval;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGWINCH);
	if (app->o->run_pid > 0)
		sigaddset(&set, SIGCHLD);
	err = loop__add_signals(app->loop, &set, on_signal, app);
	if (err < 0)
		return err;
	if (!app->replay) {
		err = loop__add_timer(app->loop, tick_ns, tick_ns, on_tick, app);
		if (err < 0)
			return err;
	}
	if (app->paced) {
		/* The TUI plays the recording in time: one interval per timer expiry. */
		app->play_timer = loop__add_timer(app->loop, 0, 0, on_play_timer, app);
		if (app->play_timer < 0)
			return app->play_timer;
		return arm_play_timer(app);
	}
	fd = app->source->ops->fd(app->source);
	if (fd >= 0) {
		err = loop__add_fd(app->loop, fd, on_source_fd, app);
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * Everything that needs privilege (loading BPF, attaching, opening files
 * and tracefs) is done by now: keep only what the running loop still uses.
 */
static void drop_privileges(struct app *app)
{
	static const struct capability_need bpf_needs[] = {
		{CAP_BPF, "drain BPF maps, re-run the thread iterator"},
		{CAP_PERFMON, "BPF tracing, uprobes on processes that start later"},
	};
	static const struct capability_need proc_needs[] = {
		{CAP_SYS_PTRACE, "read syscall, maps and stacks of every process"},
		{CAP_DAC_READ_SEARCH, "read every user's /proc files and binaries for symbols"},
		{CAP_SYSLOG, "kernel addresses in /proc/kallsyms"},
		{CAP_CHECKPOINT_RESTORE,
		 "open deleted binaries via /proc/PID/map_files for symbols"},
	};
	struct capability_need keep[8];
	unsigned uid, gid;
	size_t n = 0;
	char desc[512];
	int err;

	if (!app->replay && !strcmp(app_source_name(app), "bpf"))
		for (size_t i = 0; i < ARRAY_SIZE(bpf_needs); i++)
			keep[n++] = bpf_needs[i];
	for (size_t i = 0; i < ARRAY_SIZE(proc_needs); i++)
		keep[n++] = proc_needs[i];
	if (privileges_invoker(&uid, &gid))
		keep[n++] = (struct capability_need){CAP_CHOWN, "give files to the sudo user"};
	err = privileges_drop(keep, n, desc, sizeof(desc));
	if (err < 0)
		log_msg("cannot drop capabilities: %s; going on with them", strerror(-err));
	else
		log_info("capabilities: kept %s; dropped all others", desc[0] ? desc : "none");
}

/* Replays o->read_path: rate, interval and source name come from the file. */
static int start_replay(struct app *app)
{
	struct event_sink sink = {app_emit, app};
	const struct ttr_reader *rd;
	char err[384] = "";
	const char *v;

	app->source = replay_source__new(app->o->read_path, sink, err, sizeof(err));
	if (!app->source) {
		log_msg("%s", err);
		return -errno;
	}
	app->replay = true;
	/* Frames are named as the recording run named them (TT_EV_FRAME_NAME). */
	app->names = frame_names__new();
	model__set_frame_namer(app->model, frame_names__namer(app->names));
	rd = replay_source__reader(app->source);
	v = ttr_reader__info(rd, "source");
	snprintf(app->recorded_source, sizeof(app->recorded_source), "%s", v ? v : "unknown");
	/* The file is outside data: take its figures only within the CLI's bounds. */
	v = ttr_reader__info(rd, "hz");
	if (v && strtoul(v, NULL, 10) >= 1 && strtoul(v, NULL, 10) <= 100000)
		app->opts.hz = (unsigned)strtoul(v, NULL, 10);
	v = ttr_reader__info(rd, "interval_s");
	if (v && strtod(v, NULL) >= 0.001 && strtod(v, NULL) <= 3600)
		app->opts.delay_s = strtod(v, NULL);
	app->paced = !app->o->batch;
	for (size_t i = 0; i < ttr_reader__nr_chunks(rd); i++) {
		const struct ttr_chunk *c = ttr_reader__chunk(rd, i);

		if (c->kind != TTR_KIND_EVENTS)
			continue;
		if (!app->span_first_ns)
			app->span_first_ns = c->first_ns;
		app->span_last_ns = c->last_ns;
	}
	if (ttr_reader__skipped(rd))
		log_msg("%s: skipped records of types this threadtop does not know (a newer "
			"threadtop recorded it)",
			app->o->read_path);
	return 0;
}

static int start_recording(struct app *app)
{
	char err[320] = "", pids[MAX_PIDS * 12] = "";
	size_t n = 0;
	struct recorder_opts ro = {
		.path = app->o->write_path,
		.max_size = app->o->max_size,
		.source = app_source_name(app),
		.hz = app->o->hz,
		.interval_s = app->o->delay_s,
	};

	for (size_t i = 0; i < app->o->nr_pids && n < sizeof(pids); i++)
		n += (size_t)snprintf(pids + n, sizeof(pids) - n, "%s%d", i ? "," : "",
				      app->o->pids[i]);
	ro.pids = app->o->nr_pids ? pids : NULL;
	app->rec = recorder__new(&ro, err, sizeof(err));
	if (app->rec && !app->names)
		app->names = frame_names__new();
	if (!app->rec) {
		log_msg("%s", err);
		return -errno;
	}
	/* Run through sudo: the recording belongs to the user, not to root. */
	if (privileges_give_to_invoker(recorder__fd(app->rec)) < 0)
		log_msg("-w %s: cannot give the file to the sudo user", ro.path);
	return 0;
}

int app_run(const struct options *given, const struct frontend *fe)
{
	struct app app = {.opts = *given, .fe = fe, .play_timer = -1};
	const struct options *o = &app.opts;
	int err, code = 1;

	app.o = o;

	signal(SIGPIPE, SIG_IGN); /* a closed stdout is an EPIPE we handle */
	err = log_open(o->log_path);
	if (err < 0) {
		fprintf(stderr, "threadtop: --log %s: %s\n", o->log_path, strerror(-err));
		return 1;
	}
	if ((!o->read_path && check_pids(o) < 0) || export_app_check(o) < 0)
		goto out;
	app.loop = loop__new();
	app.model = model__new(&(struct model_opts){.retain_ns = (uint64_t)(o->retain_s * 1e9)});
	if (!app.loop) {
		log_msg("cannot create the event loop: %s", strerror(errno));
		goto out;
	}
	if ((o->read_path ? start_replay(&app) : start_source(&app)) < 0)
		goto out;
	if (o->write_path && start_recording(&app) < 0)
		goto out;
	if (!app.replay) {
		start_use(&app);
		/* Live addresses are this machine's: name them lazily, at output time. */
		app.sym = symbolizer__new(NULL);
		model__set_frame_namer(app.model, symbolizer__namer(app.sym));
	}
	err = setup_loop(&app);
	if (err < 0) {
		log_msg("cannot set up the event loop: %s", strerror(-err));
		goto out;
	}
	/* After setup_loop: SIGTERM is a loop event by now, so the instance is removed. */
	if (!app.replay && (o->nr_traces || o->nr_cmds) && start_capture(&app) < 0)
		goto out;
	if (!app.replay)
		emit_clock(&app, monotonic_ns());
	run_cmd__release(&app.opts); /* the sources are up: the command may start */
	if (fe->start && fe->start(fe->ctx, &app) < 0)
		goto out;
	drop_privileges(&app);
	if (app.capture && (err = capture__start(app.capture)) < 0) {
		log_msg("--cmd: cannot start a command: %s", strerror(-err));
		goto out;
	}
	err = loop__run(app.loop);
	if (!err)
		err = app.err;
	if (fe->stop)
		fe->stop(fe->ctx, &app);
	if ((err == 0 || err == -EPIPE) && !app.failed) /* EPIPE: the reader went away */
		code = 0;
	else if (err < 0 && !app.output_failed)
		log_msg("stopped: %s", strerror(-err));
	if (app.replay && !app.failed && app.o->count == 0 &&
	    !ttr_reader__finished(replay_source__reader(app.source)))
		log_msg("%s: no index at its end: the recorder did not finish (killed?); replayed "
			"every whole chunk",
			o->read_path);
	/* What was profiled is worth keeping even when the output failed. */
	if (export_app_write(&app) < 0)
		code = 1;
out:
	stop_child(&app);
	if (app.rec) {
		bool stopped = recorder__stopped(app.rec);

		err = recorder__close(app.rec);
		if (err < 0 && !stopped)
			log_msg("-w %s: could not finish the recording: %s; it still replays",
				o->write_path, strerror(-err));
	}
	source__free(app.source);
	use_sampler__free(app.use);
	capture__free(app.capture);
	model__free(app.model);
	frame_names__free(app.names);
	symbolizer__free(app.sym);
	loop__free(app.loop);
	log_close();
	return code;
}
