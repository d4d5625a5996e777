// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bottleneck verdict: which resource most likely limits the box, with
 * the evidence. The rule (Gregg's USE method, ranked as atop does):
 *
 * 1. Candidates are the whole-resource components of the latest interval:
 *    all CPUs, memory, each disk, each network interface, TCP, each
 *    CPU-limited cgroup. Single CPUs are shown but never named (one busy
 *    CPU is not a box bottleneck).
 * 2. A component is saturated when its saturation figure is over its limit
 *    (runnable threads per CPU > 1.0; pages swapped or direct-scanned > 100/s;
 *    disk average queue > 1.0; drops > 10/s; TCP retransmits > 1 % of
 *    segments sent, at least 10; cgroup throttled > 1 % of the time) or when
 *    PSI says so (some >= 20 % of the interval, or full >= 5 % except for
 *    CPU, whose system-wide full is always 0).
 * 3. Among saturated components the verdict names the one ranked first by:
 *    PSI full share (counted only when over its limit), then PSI some share
 *    (likewise), then saturation figure / limit, then utilization.
 *    "CPU saturated: 2.00 runnable per CPU > 1.00, PSI some 96% >= 20%, 100% busy".
 * 4. With nothing saturated, the busiest component by utilization is named
 *    when it is at least 90 % busy ("busy"), or at least 72 % (80 % of 90,
 *    "almost critical"); otherwise the verdict is "nothing saturated".
 * 5. Errors (OOM kills, interface errors, TCP InErrs, disk I/O errors) are
 *    listed at any load, whatever the verdict.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "use_model.h"

static bool is_candidate(const struct tt_use_metric *r)
{
	return !(r->kind == TT_USE_CPU && r->index != TT_USE_ALL);
}

void use_component_label(unsigned kind, const char *name, char *buf, size_t len)
{
	switch (kind) {
	case TT_USE_CPU:
		snprintf(buf, len, "CPU");
		break;
	case TT_USE_MEMORY:
		snprintf(buf, len, "memory");
		break;
	case TT_USE_DISK:
		snprintf(buf, len, "disk %.32s", name);
		break;
	case TT_USE_NET:
		snprintf(buf, len, "network %.32s", name);
		break;
	case TT_USE_TCP:
		snprintf(buf, len, "TCP");
		break;
	case TT_USE_CGROUP_CPU:
		snprintf(buf, len, "cgroup %.32s CPU quota", name);
		break;
	default:
		snprintf(buf, len, "%.32s", name);
	}
}

/* The label of record r (its name is not terminated when it fills the field). */
static void label(const struct tt_use_metric *r, char *buf, size_t len)
{
	char name[sizeof(r->name) + 1];

	snprintf(name, sizeof(name), "%.*s", (int)sizeof(r->name), r->name);
	use_component_label(r->kind, name, buf, len);
}

static const char *sat_source(const struct tt_use_metric *r)
{
	switch (r->kind) {
	case TT_USE_CPU:
		return "/proc/loadavg";
	case TT_USE_MEMORY:
		return "/proc/vmstat";
	case TT_USE_DISK:
		return "/proc/diskstats";
	case TT_USE_NET:
		return "/proc/net/dev";
	case TT_USE_TCP:
		return "/proc/net/snmp";
	case TT_USE_CGROUP_CPU:
		return "cpu.stat";
	default:
		return "";
	}
}

static const char *util_source(const struct tt_use_metric *r)
{
	switch (r->kind) {
	case TT_USE_CPU:
		return "/proc/stat";
	case TT_USE_MEMORY:
		return "/proc/meminfo";
	case TT_USE_DISK:
		return "/proc/diskstats";
	case TT_USE_NET:
		return "/proc/net/dev, /sys/class/net/IF/speed";
	case TT_USE_CGROUP_CPU:
		return "cpu.stat, cpu.max";
	default:
		return "";
	}
}

static const char *psi_source(const struct tt_use_metric *r)
{
	switch (r->kind) {
	case TT_USE_CPU:
		return "/proc/pressure/cpu";
	case TT_USE_MEMORY:
		return "/proc/pressure/memory";
	case TT_USE_DISK:
		return "/proc/pressure/io";
	default:
		return "";
	}
}

/* A ranked figure: its value when it counts as saturation evidence, else 0. */
static double psi_full_rank(const struct tt_use_metric *r)
{
	if (r->kind == TT_USE_CPU || r->psi_full_milli == TT_USE_UNKNOWN ||
	    r->psi_full_milli < USE_PSI_FULL_LIMIT_MILLI)
		return 0;
	return r->psi_full_milli;
}

static double psi_some_rank(const struct tt_use_metric *r)
{
	if (r->psi_some_milli == TT_USE_UNKNOWN || r->psi_some_milli < USE_PSI_SOME_LIMIT_MILLI)
		return 0;
	return r->psi_some_milli;
}

static double sat_ratio(const struct tt_use_metric *r)
{
	double v = use_sat_value(r), limit = use_sat_limit(r);

	if (isnan(v) || isnan(limit) || v <= limit)
		return 0;
	return limit > 0 ? v / limit : INFINITY;
}

static double util_rank(const struct tt_use_metric *r)
{
	double u = use_util_pct(r);

	return isnan(u) ? -1 : u;
}

/* Whether a ranks before b (rule 3). */
static bool ranks_before(const struct tt_use_metric *a, const struct tt_use_metric *b)
{
	double ka[4] = {psi_full_rank(a), psi_some_rank(a), sat_ratio(a), util_rank(a)};
	double kb[4] = {psi_full_rank(b), psi_some_rank(b), sat_ratio(b), util_rank(b)};

	for (int i = 0; i < 4; i++)
		if (ka[i] != kb[i])
			return ka[i] > kb[i];
	return false;
}

static void add_evidence(struct use_verdict *v, const char *metric, double value, double threshold,
			 const char *source)
{
	if (v->nr_evidence < USE_VERDICT_MAX_EVIDENCE)
		v->evidence[v->nr_evidence++] =
			(struct use_evidence){metric, value, threshold, source};
}

/* Appends printf output to v->text. */
static void append(struct use_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void append(struct use_verdict *v, const char *fmt, ...)
{
	size_t used = strlen(v->text);
	va_list ap;

	if (used >= sizeof(v->text) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(v->text + used, sizeof(v->text) - used, fmt, ap);
	va_end(ap);
}

static void name_component(struct use_verdict *v, const struct tt_use_metric *r)
{
	v->kind = r->kind;
	snprintf(v->name, sizeof(v->name), "%.*s", (int)sizeof(r->name), r->name);
}

static void describe_saturated(struct use_verdict *v, const struct tt_use_metric *r)
{
	double sat = use_sat_value(r), limit = use_sat_limit(r), util = use_util_pct(r);
	char who[64];

	label(r, who, sizeof(who));
	append(v, "%s saturated:", who);
	if (sat_ratio(r) > 0) {
		append(v, " %.2f %s > %.2f", sat, use_figure_label(r->sat_what), limit);
		add_evidence(v, use_figure_key(r->sat_what), sat, limit, sat_source(r));
	}
	if (psi_full_rank(r) > 0) {
		append(v, "%s PSI full %.0f%% >= %d%%", v->nr_evidence ? "," : "",
		       use_psi_full_pct(r), USE_PSI_FULL_LIMIT_MILLI / 1000);
		add_evidence(v, "psi_full_pct", use_psi_full_pct(r),
			     USE_PSI_FULL_LIMIT_MILLI / 1000.0, psi_source(r));
	}
	if (psi_some_rank(r) > 0) {
		append(v, "%s PSI some %.0f%% >= %d%%", v->nr_evidence ? "," : "",
		       use_psi_some_pct(r), USE_PSI_SOME_LIMIT_MILLI / 1000);
		add_evidence(v, "psi_some_pct", use_psi_some_pct(r),
			     USE_PSI_SOME_LIMIT_MILLI / 1000.0, psi_source(r));
	}
	if (!isnan(util)) {
		append(v, ", %.0f%% busy", util);
		add_evidence(v, "util_pct", util, USE_BUSY_PCT, util_source(r));
	}
}

static void collect_errors(struct use_verdict *v, const struct tt_use_metric *const *recs,
			   size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		const struct tt_use_metric *r = recs[i];

		if (!(r->flags & TT_USE_ERRORS_KNOWN) || !r->errors)
			continue;
		if (v->nr_errors < USE_VERDICT_MAX_ERRORS) {
			snprintf(v->errors[v->nr_errors].name, sizeof(v->errors[0].name), "%.*s",
				 (int)sizeof(r->name), r->name);
			v->errors[v->nr_errors].kind = r->kind;
			v->errors[v->nr_errors].count = r->errors;
		}
		append(v, "%s %.32s %llu", v->nr_errors ? "," : "; errors:", r->name,
		       (unsigned long long)r->errors);
		v->nr_errors++;
	}
	if (v->nr_errors > USE_VERDICT_MAX_ERRORS)
		v->nr_errors = USE_VERDICT_MAX_ERRORS;
}

void use_verdict_compute(const struct tt_use_metric *const *recs, size_t nr,
			 struct use_verdict *ret)
{
	const struct tt_use_metric *best = NULL, *busiest = NULL;
	struct use_verdict v = {0};

	for (size_t i = 0; i < nr; i++) {
		const struct tt_use_metric *r = recs[i];

		if (!is_candidate(r))
			continue;
		if ((r->flags & TT_USE_SATURATED) && (!best || ranks_before(r, best)))
			best = r;
		if (!isnan(use_util_pct(r)) &&
		    (!busiest || use_util_pct(r) > use_util_pct(busiest)))
			busiest = r;
		if (r->flags & TT_USE_SATURATED)
			v.nr_saturated++;
	}
	if (best) {
		v.level = USE_VERDICT_SATURATED;
		name_component(&v, best);
		describe_saturated(&v, best);
	} else if (busiest && use_util_pct(busiest) >= USE_ALMOST_PCT) {
		double u = use_util_pct(busiest);
		bool busy = u >= USE_BUSY_PCT;
		char who[64];

		v.level = busy ? USE_VERDICT_BUSY : USE_VERDICT_ALMOST;
		name_component(&v, busiest);
		label(busiest, who, sizeof(who));
		append(&v, "%s %s: %.0f%% busy >= %.0f%%, nothing saturated", who,
		       busy ? "busy" : "almost critical", u, busy ? USE_BUSY_PCT : USE_ALMOST_PCT);
		add_evidence(&v, "util_pct", u, busy ? USE_BUSY_PCT : USE_ALMOST_PCT,
			     util_source(busiest));
	} else if (nr) {
		v.level = USE_VERDICT_OK;
		if (busiest) {
			char who[64];

			label(busiest, who, sizeof(who));
			append(&v, "nothing saturated (busiest: %s %.0f%%)", who,
			       use_util_pct(busiest));
		} else {
			append(&v, "nothing saturated");
		}
	} else {
		v.level = USE_VERDICT_NO_DATA;
		append(&v, "no USE data yet");
	}
	collect_errors(&v, recs, nr);
	*ret = v;
}

const char *use_verdict_level_name(enum use_verdict_level level)
{
	switch (level) {
	case USE_VERDICT_OK:
		return "ok";
	case USE_VERDICT_ALMOST:
		return "almost";
	case USE_VERDICT_BUSY:
		return "busy";
	case USE_VERDICT_SATURATED:
		return "saturated";
	default:
		return "no_data";
	}
}
