// SPDX-License-Identifier: GPL-2.0-only
/* --export in a run (see export_app.h): check at the start, write at the end. */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "export.h"
#include "app_internal.h"
#include "export_app.h"
#include "log.h"
#include "source_replay.h"
#include "ttr_reader.h"

static void opts_of(const struct options *o, struct export_opts *ret)
{
	*ret = (struct export_opts){
		.format = (enum export_format)o->export_format,
		.by = (enum export_by)o->export_by,
		.by_label = o->export_by_label,
		.force = o->force,
		.window = WIN_SESSION,
		.hz = o->hz,
		.cpu_hz = o->cpu_hz,
	};
}

int export_app_check(const struct options *o)
{
	struct export_opts eo;
	char err[512];
	int first = 0;

	opts_of(o, &eo);
	for (size_t i = 0; i < o->nr_exports; i++) {
		int e = export__check(o->exports[i], &eo, err, sizeof(err));

		if (e) {
			log_msg("%s", err);
			if (!first)
				first = e;
		}
	}
	return first;
}

/* --export-by label:NAME names a label this session has; else says so (the files are written). */
static void check_label_name(struct app *app, const char *name)
{
	char known[TT_LABEL_SLOTS * (TT_COMM_LEN + 2)] = "";
	size_t o = 0;

	for (unsigned i = 0; i < TT_LABEL_SLOTS; i++) {
		const char *n = model__label_name(app_model(app), i);

		if (n && !strcmp(n, name))
			return;
		if (n)
			o += (size_t)snprintf(known + o, sizeof(known) - o, "%s%s", o ? ", " : "",
					      n);
	}
	log_msg("--export-by label:%s: no label of that name in this session (%s); every "
		"sample gets the root frame [no %s]",
		name, o ? known : "no --label given", name);
}

int export_app_write(struct app *app)
{
	const struct options *o = app_options(app);
	struct export_opts eo;
	char err[512];
	int first = 0;

	if (!o->nr_exports)
		return 0;
	opts_of(o, &eo);
	eo.hz = app->hz; /* in a replay, the recording's */
	if (eo.by == EXPORT_BY_LABEL)
		check_label_name(app, eo.by_label);
	eo.source = app_source_name(app);
	eo.namer = model__exact_namer(app_model(app)); /* NULL in a replay: addresses */
	eo.tracer = capture__tracer(app_capture(app));
	if (app->replay) {
		/* The recording's machine and clock, not this one's. */
		const struct ttr_reader *rd = replay_source__reader(app->source);

		eo.host = ttr_reader__info(rd, "hostname");
		eo.kernel = ttr_reader__info(rd, "kernel");
		eo.realtime_ns = app->interval_realtime_ns;
	}
	eo.cmds = capture__cmds(app_capture(app));
	for (size_t i = 0; i < o->nr_exports; i++) {
		struct export_result res;
		int e = export__write(app_model(app), o->exports[i], &eo, &res, err, sizeof(err));

		if (e) {
			log_msg("%s", err);
			if (!first)
				first = e;
			continue;
		}
		for (size_t k = 0; k < res.nr; k++)
			log_msg("exported %s (%s, %zu bytes)", res.paths[k],
				export_format_name(eo.format
							   ? eo.format
							   : export_format_of_path(o->exports[i])),
				res.sizes[k]);
		export_result__release(&res);
	}
	return first;
}
