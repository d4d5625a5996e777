/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Batch output, the headless face of the model (like top -b): one readable
 * table or one NDJSON object (schema in README.md, "schema": 1) per interval.
 */
#ifndef THREADTOP_BATCH_H
#define THREADTOP_BATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "threadtop/capture_view.h"
#include "model.h"

#define BATCH_SCHEMA_VERSION 1

/* --format: a readable table, or one JSON object per interval per line. */
enum output_format { FORMAT_TEXT, FORMAT_JSON };

struct batch_info {
	const char *source; /* "bpf", "proc" */
	unsigned hz;
	uint64_t realtime_ns;	     /* wall-clock time of the interval's end */
	bool replay;		     /* the data comes from a recording (-r) */
	const struct tracer *tracer; /* --trace lines, or NULL */
	const struct cmdcap *cmds;   /* --cmd results, or NULL */
	unsigned cpu_hz;	     /* --cpu-hz: the weight of an on-CPU sample (0: 99) */
};

/* Prints the model's current interval to out in the given format. */
int batch_print_interval(struct model *m, enum output_format format, const struct batch_info *info,
			 FILE *out);

struct json;
/* The "luajit" array of the JSON line, and its text form (batch_luajit.c). */
void batch_luajit_json(struct json *j, struct model *m);
/* The same over window, only threads of pid and tid (0 = any): the JSON report's "luajit". */
void batch_luajit_json_window(struct json *j, struct model *m, enum model_window window,
			      uint32_t pid, uint32_t tid);
void batch_luajit_text(FILE *out, struct model *m);

#endif /* THREADTOP_BATCH_H */
