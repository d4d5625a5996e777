// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay control (see app.h), the TUI's time travel: opens a recording as
 * the source, plays it in time on a timer (or at full speed in batch mode),
 * pauses, changes speed, and jumps, steps or aggregates a range by seeking
 * the recording and replaying into a fresh model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "child_creds.h"
#include "export_app.h"
#include "recorded_names.h"
#include "log.h"
#include "replay_range.h"
#include "safe_file.h"
#include "source_replay.h"
#include "ttr_reader.h"
#include "user_file.h"
#include "util.h"

#include "app_internal.h"

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
	uint64_t ns = speed > 0 ? (uint64_t)(app->delay_s * 1e9 / speed) : 1000000;

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

int app_replay_add_play_timer(struct app *app)
{
	/* One interval per timer expiry. */
	app->play_timer = loop__add_timer(app->loop, 0, 0, on_play_timer, app);
	if (app->play_timer < 0)
		return app->play_timer;
	return arm_play_timer(app);
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
		.interval_s = app->delay_s,
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
	uint64_t interval_ns = (uint64_t)(app->delay_s * 1e9);
	uint64_t start = from_ns ? from_ns : time_ns;
	int err;

	if (time_ns > app->span_last_ns)
		time_ns = app->span_last_ns;
	if (start > time_ns)
		start = time_ns;
	start = start > 2 * interval_ns ? start - 2 * interval_ns : 0;
	model__reset(app->model);
	/* Trace lines and command runs replay again from the new position. */
	capture__free(app->capture);
	app->capture = NULL;
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
	app->last_mark_ns = 0; /* the marks before the seek point are not this one's */
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
	uint64_t interval_ns = (uint64_t)(app->delay_s * 1e9);

	if (!app->replay)
		return -ENOTSUP;
	if (dir < 0 && app->shown_start_ns)
		/* Back: the interval that ended where this one began (recorded
		 * intervals are as long as the box made them, not -d). */
		return show_at(app, 0, app->shown_start_ns);
	if (dir < 0) {
		/* No mark before this one since the seek: about one interval back. */
		uint64_t t = app->shown_ns + interval_ns / 2;

		return show_at(app, 0, t > 2 * interval_ns ? t - 2 * interval_ns : 0);
	}
	if (app->range_from_ns)
		/* Forward from a range: the interval after its end. */
		return show_at(app, 0, app->shown_ns + 1);
	app->range_from_ns = 0;
	return play_interval(app) < 0 ? -EBADMSG : 0;
}

/* Replays o->read_path: rate, interval and source name come from the file. */
/* Dictionaries and thread labels: the state the range starts from, always kept. */
static bool is_state(uint16_t type)
{
	switch (type) {
	case TT_EV_THREAD_INFO:
	case TT_EV_PROC_INFO:
	case TT_EV_STRING:
	case TT_EV_STACK:
	case TT_EV_THREAD_LABELS:
	case TT_EV_LABEL_NAME:
	case TT_EV_LUAJIT_FUNC:
	case TT_EV_FRAME_NAME:
	case TT_EV_BUILD_ID:
		return true;
	default:
		return false;
	}
}

/* Closes the last interval at --to itself and ends the run. */
static void cut_close(struct app *app)
{
	uint64_t to = app->cut_to_ns;

	app->cut_to_ns = 0;
	if (app->shown_ns < to) {
		struct tt_interval iv = {
			.hdr = {TT_EV_INTERVAL, TT_INTERVAL_VERSION, sizeof(iv), to},
			.realtime_ns = app->boot_time_ns
					       ? app->boot_time_ns + to
					       : app->interval_realtime_ns + (to - app->shown_ns),
		};

		app_emit(app, &iv.hdr);
	}
	app->cut_done = true;
	app_quit(app);
}

static uint64_t share_of(uint64_t v, double f)
{
	return (uint64_t)((double)v * f + 0.5);
}

/*
 * The part before --to of an interval's sums record ev, stamped at --to
 * (f: that part's share of the interval); other records past --to go.
 */
static void emit_sums_share(struct app *app, const struct tt_event_header *ev, double f)
{
	if (ev->type == TT_EV_OFFCPU && ev->size == sizeof(struct tt_offcpu)) {
		struct tt_offcpu r = *(const struct tt_offcpu *)ev;

		r.hdr.time_ns = app->cut_to_ns;
		r.total_ns = share_of(r.total_ns, f);
		r.count = share_of(r.count, f);
		if (r.total_ns && !r.count)
			r.count = 1;
		app_emit(app, &r.hdr);
	} else if (ev->type == TT_EV_SYSCALL_STATS && ev->size == sizeof(struct tt_syscall_stats)) {
		struct tt_syscall_stats r = *(const struct tt_syscall_stats *)ev;

		r.hdr.time_ns = app->cut_to_ns;
		r.count = share_of(r.count, f);
		r.total_ns = share_of(r.total_ns, f);
		for (int i = 0; i < TT_SYSCALL_HIST_BUCKETS; i++)
			r.hist[i] = (__u32)share_of(r.hist[i], f);
		if (r.count)
			app_emit(app, &r.hdr);
	} else if (ev->type == TT_EV_IO_STATS && ev->size == sizeof(struct tt_io_stats)) {
		struct tt_io_stats r = *(const struct tt_io_stats *)ev;

		r.hdr.time_ns = app->cut_to_ns;
		r.count = share_of(r.count, f);
		r.bytes = share_of(r.bytes, f);
		r.total_ns = share_of(r.total_ns, f);
		r.queue_ns = share_of(r.queue_ns, f);
		r.errors = share_of(r.errors, f);
		if (r.errors > r.count)
			r.errors = r.count;
		r.io_worker = (__u32)share_of(r.io_worker, f);
		if (r.io_worker > r.count)
			r.io_worker = (__u32)r.count;
		for (int i = 0; i < TT_IO_HIST_BUCKETS; i++)
			r.hist[i] = (__u32)share_of(r.hist[i], f);
		if (r.count)
			app_emit(app, &r.hdr);
	}
}

const struct tt_event_header *app_replay_cut(struct app *app, const struct tt_event_header *ev)
{
	uint64_t to = app->cut_to_ns;

	if (app->cut_done)
		return NULL;
	if (is_state(ev->type)) {
		/*
		 * Kept whatever its time, but stamped no later than --to: the
		 * model's clock follows every record, and a stack or name
		 * stamped past --to would stretch the last interval past it.
		 */
		if (!to || ev->time_ns <= to || ev->size > sizeof(app->cut_state))
			return ev;
		memcpy(app->cut_state.bytes, ev, ev->size);
		app->cut_state.hdr.time_ns = to;
		return &app->cut_state.hdr;
	}
	if (ev->time_ns < app->cut_from_ns ||
	    (ev->type == TT_EV_INTERVAL && ev->time_ns <= app->cut_from_ns))
		return NULL;
	if (!to || ev->time_ns <= to) {
		/* (not the shares emit_sums_share sends, stamped at --to) */
		if (!app->cut_draining &&
		    (ev->type == TT_EV_OFFCPU || ev->type == TT_EV_SYSCALL_STATS ||
		     ev->type == TT_EV_IO_STATS))
			app->cut_sums_ns = ev->time_ns;
		return ev;
	}
	/*
	 * Past --to. The exact sums of the interval --to falls in (off-CPU and
	 * run-queue time, syscall figures) arrive at that interval's end: their
	 * share before --to counts, then the last interval closes at --to.
	 */
	app->cut_draining = true;
	if (ev->type != TT_EV_INTERVAL) {
		/* The sums cover the time since the previous flush of sums. */
		uint64_t base = app->cut_sums_ns > app->shown_ns ? app->cut_sums_ns : app->shown_ns;

		if (base < to && ev->time_ns > base)
			emit_sums_share(app, ev,
					(double)(to - base) / (double)(ev->time_ns - base));
		return NULL;
	}
	cut_close(app);
	return NULL;
}

/* --from/--to as the recording's clock; the model's session starts at --from. */
static int set_range(struct app *app)
{
	struct replay_span sp = {app->span_first_ns, app->span_last_ns, app->boot_time_ns};
	const char *from_s = app->o->replay_from, *to_s = app->o->replay_to;
	uint64_t from = 0, to = 0;
	char err[384];

	if ((from_s && replay_time_parse("--from", from_s, &sp, &from, err, sizeof(err)) < 0) ||
	    (to_s && replay_time_parse("--to", to_s, &sp, &to, err, sizeof(err)) < 0)) {
		log_msg("%s", err);
		return -EINVAL;
	}
	if (from && to && from >= to) {
		log_msg("--from %s is not before --to %s: give a start before the end", from_s,
			to_s);
		return -EINVAL;
	}
	app->cut_from_ns = from;
	app->cut_to_ns = to;
	if (from)
		model__advance(app->model, from);
	return 0;
}

/*
 * A recording is outside data: parse it with nothing of root's. Opened first
 * (as the sudo user; without sudo a root-only file still replays), then
 * every capability goes and root becomes the sudo user or nobody
 * (child_creds.h), before its first byte is read. What it writes (--export, -w) is then written as that user: checked
 * again now rather than found out after the whole replay.
 */
static int drop_for_replay(const struct options *o)
{
	struct child_creds creds;
	char why[256];
	int err = child_creds_resolve(&creds, false, why, sizeof(why));

	if (err < 0) {
		log_msg("-r %s: %s; not replayed", o->read_path, why);
		return err;
	}
	err = child_creds_apply(&creds);
	if (err < 0) {
		log_msg("-r %s: cannot drop privileges to %s before reading it: %s; not replayed",
			o->read_path, creds.user, strerror(-err));
		return err;
	}
	log_info("-r %s: read as %s (uid %u) with no capabilities", o->read_path, creds.user,
		 (unsigned)geteuid());
	if (!creds.change_ids)
		return 0;
	err = export_app_check(o);
	if (!err && o->write_path && (err = safe_file_check(o->write_path, true)) < 0)
		log_msg("-w %s: %s", o->write_path, strerror(-err));
	if (err)
		log_msg("-r: a replay writes its files as %s (it reads the recording without root's "
			"privileges): write them where %s may, or run threadtop through sudo",
			creds.user, creds.user);
	return err ? -EPERM : 0;
}

int app_replay_start(struct app *app)
{
	struct event_sink sink = {app_emit, app};
	const struct ttr_reader *rd;
	char err[384] = "";
	const char *v;

	/* As the sudo user under sudo (user_file.h), as root without. */
	int fd = user_file_open(app->o->read_path, USER_FILE_READ, false, 0);

	if (fd < 0) {
		log_msg("%s: cannot open: %s", app->o->read_path,
			user_file_reason(fd, USER_FILE_READ));
		return fd;
	}
	if (drop_for_replay(app->o) < 0) {
		close(fd);
		return -EPERM;
	}
	app->source = replay_source__new_fd(fd, app->o->read_path, sink, err, sizeof(err));
	if (!app->source) {
		log_msg("%s", err);
		return -errno;
	}
	app->replay = true;
	/* Frames are named as the recording run named them (TT_EV_FRAME_NAME). */
	app->names = recorded_names__new();
	recorded_names__set_budget(app->names, app->budget);
	model__set_frame_namer(app->model, recorded_names__namer(app->names));
	rd = replay_source__reader(app->source);
	v = ttr_reader__info(rd, "source");
	snprintf(app->recorded_source, sizeof(app->recorded_source), "%s", v ? v : "unknown");
	/* The file is outside data: take its figures only within the CLI's bounds. */
	v = ttr_reader__info(rd, "hz");
	if (v && strtoul(v, NULL, 10) >= 1 && strtoul(v, NULL, 10) <= 100000)
		app->hz = (unsigned)strtoul(v, NULL, 10);
	v = ttr_reader__info(rd, "interval_s");
	if (v && strtod(v, NULL) >= 0.001 && strtod(v, NULL) <= 3600)
		app->delay_s = strtod(v, NULL);
	v = ttr_reader__info(rd, "trace_lines");
	if (v && strtoul(v, NULL, 10) >= 1 && strtoul(v, NULL, 10) <= 100000)
		app->trace_lines = strtoul(v, NULL, 10);
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
	v = ttr_reader__info(rd, "boot_time_ns");
	app->boot_time_ns = v ? strtoull(v, NULL, 10) : 0;
	return app->o->replay_from || app->o->replay_to ? set_range(app) : 0;
}
