/* SPDX-License-Identifier: GPL-2.0-only */
/* What the export dispatcher (export.c) hands each format's writer. */
#ifndef THREADTOP_EXPORT_INTERNAL_H
#define THREADTOP_EXPORT_INTERNAL_H

#include <stdio.h>

#include "export.h"
#include "profile.h"

struct export_ctx {
	struct model *m;
	const struct profile *p;
	const struct export_opts *o;
	enum profile_kind kind; /* for the formats of one profile per file */
	const char *host;
	const char *kernel; /* kernel release of the profiled machine */
	uint64_t realtime_ns;
};

/* Each writes the whole file to f; returns 0 or a negative errno. */
int export_folded(const struct export_ctx *x, FILE *f);
int export_json(const struct export_ctx *x, FILE *f);
int export_pprof(const struct export_ctx *x, FILE *f);
int export_speedscope(const struct export_ctx *x, FILE *f);
int export_svg(const struct export_ctx *x, FILE *f);

/*
 * The root-first frames of a folded stack or flame graph: the label value
 * when x->o->by says so, the process name, then the thread or state when
 * x->o->by says so, then s's frames. Writes
 * each name with put(name, len, kernel flag, arg).
 */
void export_walk_frames(const struct export_ctx *x, const struct profile_sample *s,
			void (*put)(const char *name, unsigned flags, void *arg), void *arg);

/* Text of a frame name safe for one-line formats: control characters and
 * invalid UTF-8 as escapes (\e, \x9b), ';' as ':' (the folded separator). */
void export_plain_name(const char *name, char *out, size_t cap);

/* The flame graph's inline script (export_svg_script.c). */
extern const char export_svg_script[];

#endif /* THREADTOP_EXPORT_INTERNAL_H */
