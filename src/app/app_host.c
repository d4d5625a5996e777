// SPDX-License-Identifier: GPL-2.0-only
/*
 * The front end's host (see frontend.h): the application's calls a front
 * end may make, each a thin wrapper over app.c and app_replay.c.
 */
#include <errno.h>

#include "app_internal.h"
#include "capture.h"

static struct model *host_model(const struct frontend_host *h)
{
	return app_model(app_of_host(h));
}

static struct loop *host_loop(const struct frontend_host *h)
{
	return app_loop(app_of_host(h));
}

static const struct frontend_settings *host_settings(const struct frontend_host *h)
{
	return &app_of_host(h)->settings;
}

static const char *host_source_name(const struct frontend_host *h)
{
	return app_source_name(app_of_host(h));
}

static bool host_replaying(const struct frontend_host *h)
{
	return app_replaying(app_of_host(h));
}

static const struct tracer *host_tracer(const struct frontend_host *h)
{
	return capture__tracer(app_capture(app_of_host(h)));
}

static const struct cmdcap *host_cmds(const struct frontend_host *h)
{
	return capture__cmds(app_capture(app_of_host(h)));
}

static uint64_t host_interval_realtime_ns(const struct frontend_host *h)
{
	return app_interval_realtime_ns(app_of_host(h));
}

static void host_quit(const struct frontend_host *h)
{
	app_quit(app_of_host(h));
}

static bool host_record_status(const struct frontend_host *h, struct record_status *ret)
{
	return app_record_status(app_of_host(h), ret);
}

static bool host_replay_status(const struct frontend_host *h, struct replay_status *ret)
{
	return app_replay_status(app_of_host(h), ret);
}

static int host_replay_pause(const struct frontend_host *h, bool paused)
{
	return app_replay_pause(app_of_host(h), paused);
}

static int host_replay_speed(const struct frontend_host *h, int dir)
{
	return app_replay_speed(app_of_host(h), dir);
}

static int host_replay_step(const struct frontend_host *h, int dir)
{
	return app_replay_step(app_of_host(h), dir);
}

static int host_replay_jump(const struct frontend_host *h, uint64_t time_ns)
{
	return app_replay_jump(app_of_host(h), time_ns);
}

static int host_replay_range(const struct frontend_host *h, uint64_t from_ns, uint64_t to_ns)
{
	return app_replay_range(app_of_host(h), from_ns, to_ns);
}

static int host_set_delay(const struct frontend_host *h, double delay_s)
{
	struct app *app = app_of_host(h);
	uint64_t start_ns, interval_ns = (uint64_t)(delay_s * 1e9 + 0.5);

	if (app->replay)
		return -ENOTSUP;
	if (!(delay_s >= 0.1 && delay_s <= 3600))
		return -EINVAL;
	if (interval_ns < app->tick_ns)
		interval_ns = app->tick_ns;
	/*
	 * Intervals end on the clock (app.c on_tick): the current one keeps its
	 * start and ends at start + the new length, or at the next tick when
	 * that moment has passed.
	 */
	start_ns = app->interval_end_ns - app->interval_ns;
	app->delay_s = delay_s;
	app->settings.delay_s = delay_s;
	app->interval_ns = interval_ns;
	app->interval_end_ns = start_ns + interval_ns;
	return 0;
}

void app_host_init(struct app *app)
{
	app->settings = (struct frontend_settings){
		.hz = app->hz,
		.cpu_hz = app->o->cpu_hz,
		.delay_s = app->delay_s,
		.export_by = app->o->export_by,
		.io = app->o->io,
	};
	app->host = (struct frontend_host){
		.model = host_model,
		.loop = host_loop,
		.settings = host_settings,
		.source_name = host_source_name,
		.replaying = host_replaying,
		.tracer = host_tracer,
		.cmds = host_cmds,
		.interval_realtime_ns = host_interval_realtime_ns,
		.quit = host_quit,
		.record_status = host_record_status,
		.replay_status = host_replay_status,
		.replay_pause = host_replay_pause,
		.replay_speed = host_replay_speed,
		.replay_step = host_replay_step,
		.replay_jump = host_replay_jump,
		.replay_range = host_replay_range,
		.set_delay = host_set_delay,
	};
}
