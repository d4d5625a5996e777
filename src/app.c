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
#include <linux/capability.h>
#include <unistd.h>

#include "threadtop/app.h"
#include "threadtop/event_codec.h"
#include "threadtop/export_app.h"
#include "threadtop/log.h"
#include "threadtop/privileges.h"
#include "threadtop/record.h"
#include "threadtop/source_bpf.h"
#include "threadtop/source_proc.h"
#include "threadtop/source_replay.h"
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
	char recorded_source[32]; /* in a replay: the source that recorded it */
	struct use_sampler *use;  /* USE metrics, sampled once per interval */
	unsigned use_missing_said;
	long intervals;
	unsigned ticks_per_interval;
	unsigned ticks;
	uint32_t interval_seq;
	uint64_t interval_realtime_ns;
	uint64_t invalid_records;
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

/* An interval ended (live, or its mark was replayed): show it, then close it. */
static void handle_interval(struct app *app, const struct tt_interval *iv)
{
	int err = 0;

	app->interval_realtime_ns = iv->realtime_ns;
	model__advance(app->model, iv->hdr.time_ns);
	if (app->fe->interval)
		err = app->fe->interval(app->fe->ctx, app, iv->hdr.time_ns);
	model__end_interval(app->model, iv->hdr.time_ns);
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
	case TT_EV_INTERVAL:
		handle_interval(app, (const struct tt_interval *)ev);
		break;
	default:
		model__ingest(app->model, ev);
		break;
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
	emit_interval(app, now);
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

static int on_signal(void *ctx, int signo)
{
	struct app *app = ctx;

	switch (signo) {
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
	err = loop__add_signals(app->loop, &set, on_signal, app);
	if (err < 0)
		return err;
	if (!app->replay) {
		err = loop__add_timer(app->loop, tick_ns, tick_ns, on_tick, app);
		if (err < 0)
			return err;
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
	rd = replay_source__reader(app->source);
	v = ttr_reader__info(rd, "source");
	snprintf(app->recorded_source, sizeof(app->recorded_source), "%s", v ? v : "unknown");
	v = ttr_reader__info(rd, "hz");
	if (v && atoi(v) > 0)
		app->opts.hz = (unsigned)atoi(v);
	v = ttr_reader__info(rd, "interval_s");
	if (v && atof(v) > 0)
		app->opts.delay_s = atof(v);
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
	struct app app = {.opts = *given, .fe = fe};
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
	app.model = model__new(NULL);
	if (!app.loop) {
		log_msg("cannot create the event loop: %s", strerror(errno));
		goto out;
	}
	if ((o->read_path ? start_replay(&app) : start_source(&app)) < 0)
		goto out;
	if (o->write_path && start_recording(&app) < 0)
		goto out;
	if (!app.replay)
		start_use(&app);
	err = setup_loop(&app);
	if (err < 0) {
		log_msg("cannot set up the event loop: %s", strerror(-err));
		goto out;
	}
	if (!app.replay)
		emit_clock(&app, monotonic_ns());
	if (fe->start && fe->start(fe->ctx, &app) < 0)
		goto out;
	drop_privileges(&app);
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
	if (app.rec) {
		bool stopped = recorder__stopped(app.rec);

		err = recorder__close(app.rec);
		if (err < 0 && !stopped)
			log_msg("-w %s: could not finish the recording: %s; it still replays",
				o->write_path, strerror(-err));
	}
	source__free(app.source);
	use_sampler__free(app.use);
	model__free(app.model);
	loop__free(app.loop);
	log_close();
	return code;
}
