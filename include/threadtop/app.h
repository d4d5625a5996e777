/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The application: wires options, one source, the model and a front end
 * (batch output or the TUI) into the event loop, and owns their lifetimes.
 */
#ifndef THREADTOP_APP_H
#define THREADTOP_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "threadtop/cli.h"
#include "threadtop/loop.h"
#include "threadtop/model.h"

struct app;

/* What shows the model: batch output, or the TUI (ui/). */
struct frontend {
	const char *name;
	/* After the source started; may add fds (stdin) to the loop. */
	int (*start)(void *ctx, struct app *app);
	/* Every -d seconds, before the interval closes. */
	int (*interval)(void *ctx, struct app *app, uint64_t now_ns);
	/* A signal other than the ones that end the run (SIGWINCH). */
	int (*signal)(void *ctx, struct app *app, int signo);
	/* Before the app frees the model; undoes start. */
	void (*stop)(void *ctx, struct app *app);
	void *ctx;
};

/* The batch front end (batch.c): prints each interval to stdout. */
extern const struct frontend batch_frontend;

/* Runs threadtop with o and fe until done; returns the process exit code. */
int app_run(const struct options *o, const struct frontend *fe);

struct model *app_model(struct app *app);
struct loop *app_loop(struct app *app);
const struct options *app_options(struct app *app);
/* "bpf" or "proc": which source is feeding the model (in a replay: recorded it). */
const char *app_source_name(struct app *app);
/* Whether the model is fed from a recording (-r). */
bool app_replaying(struct app *app);
/* Wall-clock time of the interval being shown (recorded, in a replay). */
uint64_t app_interval_realtime_ns(struct app *app);
/* Ends the run after the current handler (a clean exit). */
void app_quit(struct app *app);

#endif /* THREADTOP_APP_H */
