/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The application: wires options, one source, the model and a front end
 * (batch output or the TUI) into the event loop, and owns their lifetimes.
 */
#ifndef THREADTOP_APP_H
#define THREADTOP_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "loop.h"
#include "model.h"
#include "threadtop/frontend.h"

struct capture;

struct app;

/* The batch front end (batch_frontend.c): prints each interval to stdout. */
extern const struct frontend batch_frontend;

struct run_child;

/*
 * Runs threadtop with o and fe until done (child: threadtop run's command,
 * released once the sources are up and reaped at the end; pid 0 = none).
 * Returns the process exit code.
 */
int app_run(const struct options *o, const struct frontend *fe, struct run_child *child);

struct model *app_model(struct app *app);
struct loop *app_loop(struct app *app);
const struct options *app_options(struct app *app);
/* "bpf" or "proc": which source is feeding the model (in a replay: recorded it). */
const char *app_source_name(struct app *app);
/* Whether the model is fed from a recording (-r). */
bool app_replaying(struct app *app);
/* --trace and --cmd of a live run; NULL when neither was asked for (or replaying). */
const struct capture *app_capture(struct app *app);
/* Wall-clock time of the interval being shown (recorded, in a replay). */
uint64_t app_interval_realtime_ns(struct app *app);
/* Ends the run after the current handler (a clean exit). */
void app_quit(struct app *app);

/* Fills ret and returns true while recording; false without -w. */
bool app_record_status(struct app *app, struct record_status *ret);

/* Replay control (see struct frontend_host, frontend.h). */
/* Fills ret and returns true in a replay; false live. */
bool app_replay_status(struct app *app, struct replay_status *ret);
int app_replay_pause(struct app *app, bool paused);
/* dir +1 faster, -1 slower: 1x, 2x, 10x, as fast as possible. */
int app_replay_speed(struct app *app, int dir);
/* dir +1: the next interval; -1: the previous one. */
int app_replay_step(struct app *app, int dir);
/* Shows the interval that ends at or after time_ns (a fresh model from there). */
int app_replay_jump(struct app *app, uint64_t time_ns);
/* Shows the intervals ending from from_ns to to_ns as one. */
int app_replay_range(struct app *app, uint64_t from_ns, uint64_t to_ns);

#endif /* THREADTOP_APP_H */
