/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The USE part of the model: the latest TT_EV_USE_METRIC record of every
 * component, a history of its utilization and saturation for sparklines,
 * and the bottleneck verdict (use_verdict.c). Built from records only, so
 * live runs and replays give the same figures. No output formats here:
 * use_report.h renders it.
 */
#ifndef THREADTOP_USE_MODEL_H
#define THREADTOP_USE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"

/* PSI stall shares that count as saturation (% x 1000 of the interval). */
#define USE_PSI_SOME_LIMIT_MILLI 20000
#define USE_PSI_FULL_LIMIT_MILLI 5000
/* Utilization thresholds of the verdict (atop's: busy, and 80 % of it). */
#define USE_BUSY_PCT 90.0
#define USE_ALMOST_PCT 72.0

/* Intervals of history kept per component (5 minutes at -d 1). */
#define USE_HISTORY 300

struct use_model;

struct use_component {
	struct tt_use_metric last; /* the newest record */
	float util[USE_HISTORY];   /* % (NaN unknown), ring, newest at head - 1 */
	float sat[USE_HISTORY];	   /* saturation figure / its limit (NaN unknown) */
	size_t head, filled;
};

struct use_model *use_model__new(void);
void use_model__free(struct use_model *um);

/* Takes one validated TT_EV_USE_METRIC record. */
void use_model__ingest(struct use_model *um, const struct tt_use_metric *rec);

/*
 * Components of the latest interval (those whose newest record is at most
 * two intervals older than the newest record), in first-seen order.
 * Returns their count; *ret points into the model, valid until the next
 * ingest.
 */
size_t use_model__current(struct use_model *um, const struct use_component ***ret);

/* Copies the last n values of a component's history, oldest first, into
 * out (NaN where unknown or before the first record). sat: the saturation
 * ratio instead of utilization. */
void use_component_history(const struct use_component *c, bool sat, float *out, size_t n);

/* Figures of a record as doubles; NAN when unknown. */
double use_util_pct(const struct tt_use_metric *r);
double use_sat_value(const struct tt_use_metric *r);
double use_sat_limit(const struct tt_use_metric *r);
double use_aux_value(const struct tt_use_metric *r);
double use_psi_some_pct(const struct tt_use_metric *r);
double use_psi_full_pct(const struct tt_use_metric *r);
/* Whether PSI says this record's resource is saturated. */
bool use_psi_saturated(const struct tt_use_metric *r);

/* "cpu", "memory", "disk", "net", "tcp", "cgroup_cpu". */
const char *use_kind_name(unsigned kind);
/* The JSON key of a figure ("runnable_per_cpu", "await_ms", ...), "" for none. */
const char *use_figure_key(unsigned fig);
/* A short label for text ("runnable/CPU", "ms await", ...), "" for none. */
const char *use_figure_label(unsigned fig);

enum use_verdict_level {
	USE_VERDICT_NO_DATA = 0, /* no interval measured yet */
	USE_VERDICT_OK,		 /* nothing saturated, nothing busy */
	USE_VERDICT_ALMOST,	 /* nothing saturated, something >= USE_ALMOST_PCT busy */
	USE_VERDICT_BUSY,	 /* nothing saturated, something >= USE_BUSY_PCT busy */
	USE_VERDICT_SATURATED,	 /* a component is saturated: the likely bottleneck */
};

/* The evidence behind a verdict: one figure against its threshold. */
struct use_evidence {
	const char *metric; /* "runnable_per_cpu", "psi_some_pct", "util_pct", ... */
	double value;
	double threshold;
	const char *source; /* "/proc/loadavg", "/proc/pressure/cpu", ... */
};

#define USE_VERDICT_MAX_EVIDENCE 4
#define USE_VERDICT_MAX_ERRORS 8

struct use_verdict {
	enum use_verdict_level level;
	unsigned kind;		    /* of the named component */
	char name[2 * TT_COMM_LEN]; /* the named component ("cpu", "vda"), "" when none */
	char text[256]; /* one line: "CPU saturated: 2.00 runnable per CPU > 1.00, 100% busy" */
	struct use_evidence evidence[USE_VERDICT_MAX_EVIDENCE];
	size_t nr_evidence;
	size_t nr_saturated; /* components saturated (the named one included) */
	/* Components with errors in the interval, at any load. */
	struct {
		char name[2 * TT_COMM_LEN];
		unsigned kind;
		uint64_t count;
	} errors[USE_VERDICT_MAX_ERRORS];
	size_t nr_errors;
};

/* "CPU", "disk vda", "cgroup NAME CPU quota": a component in the verdict's words. */
void use_component_label(unsigned kind, const char *name, char *buf, size_t len);

/*
 * The verdict in shorter words (use_wording.c), for a line too narrow for
 * its text: wording 0 is v->text; 1 drops the thresholds; 2 keeps the
 * first figure and a count of the components with errors; 3 says only
 * the component and the level ("CPU saturated, errors"). Writes wording
 * `which` into buf; false when there is no such wording (past the last).
 */
bool use_verdict_wording(const struct use_verdict *v, int which, char *buf, size_t len);

/* Applies the verdict rule (use_verdict.c) to the components of the latest interval. */
void use_model__verdict(struct use_model *um, struct use_verdict *ret);

/* "ok", "almost", "busy", "saturated", "no_data": the JSON "level". */
const char *use_verdict_level_name(enum use_verdict_level level);

/* The rule itself, over any set of records (tests feed it directly). */
void use_verdict_compute(const struct tt_use_metric *const *recs, size_t nr,
			 struct use_verdict *ret);

#endif /* THREADTOP_USE_MODEL_H */
