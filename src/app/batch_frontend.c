// SPDX-License-Identifier: GPL-2.0-only
/* The batch front end (see app.h): batch output (batch.h) of every interval to stdout. */
#include <stdio.h>

#include "app_internal.h"
#include "batch.h"

static int batch_interval(void *ctx, const struct frontend_host *h, uint64_t now_ns)
{
	struct app *app = app_of_host(h);
	struct batch_info info = {h->source_name(h), app->hz,	   h->interval_realtime_ns(h),
				  h->replaying(h),   h->tracer(h), h->cmds(h),
				  app->o->cpu_hz};

	return batch_print_interval(h->model(h), app->o->format, &info, stdout);
}

const struct frontend batch_frontend = {
	.name = "batch",
	.interval = batch_interval,
};
