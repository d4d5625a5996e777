// SPDX-License-Identifier: GPL-2.0-only
/* JSON and text rendering of the USE metrics and the verdict (see use_report.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "use_report.h"

static void json_num(struct json *j, const char *key, double v, int decimals)
{
	if (isnan(v))
		json_null(j, key);
	else
		json_double(j, key, v, decimals);
}

static void component_json(struct json *j, const struct tt_use_metric *r)
{
	double aux = use_aux_value(r);

	json_begin_object(j, NULL);
	json_string(j, "kind", use_kind_name(r->kind));
	json_stringn(j, "name", r->name, strnlen(r->name, sizeof(r->name)));
	if (r->index != TT_USE_ALL && r->kind == TT_USE_CPU)
		json_u64(j, "cpu", r->index);
	json_double(j, "interval_s", (double)r->interval_ns / 1e9, 3);
	json_num(j, "util_pct", use_util_pct(r), 1);
	json_bool(j, "saturated", r->flags & TT_USE_SATURATED);
	if (r->sat_what) {
		json_begin_object(j, "saturation");
		json_string(j, "metric", use_figure_key(r->sat_what));
		json_num(j, "value", use_sat_value(r), 3);
		json_num(j, "limit", use_sat_limit(r), 3);
		json_end_object(j);
	}
	if (r->psi_some_milli != TT_USE_UNKNOWN)
		json_num(j, "psi_some_pct", use_psi_some_pct(r), 2);
	if (r->psi_full_milli != TT_USE_UNKNOWN)
		json_num(j, "psi_full_pct", use_psi_full_pct(r), 2);
	if (r->aux_what && !isnan(aux))
		json_double(j, use_figure_key(r->aux_what), aux, 3);
	if (r->flags & TT_USE_ERRORS_KNOWN)
		json_u64(j, "errors", r->errors);
	else
		json_null(j, "errors");
	json_end_object(j);
}

void use_report__verdict_json(struct json *j, const char *key, const struct use_verdict *v)
{
	json_begin_object(j, key);
	json_string(j, "level", use_verdict_level_name(v->level));
	if (v->name[0]) {
		json_begin_object(j, "component");
		json_string(j, "kind", use_kind_name(v->kind));
		json_string(j, "name", v->name);
		json_end_object(j);
	} else {
		json_null(j, "component");
	}
	json_string(j, "text", v->text);
	json_u64(j, "nr_saturated", v->nr_saturated);
	json_begin_array(j, "evidence");
	for (size_t i = 0; i < v->nr_evidence; i++) {
		json_begin_object(j, NULL);
		json_string(j, "metric", v->evidence[i].metric);
		json_num(j, "value", v->evidence[i].value, 3);
		json_num(j, "threshold", v->evidence[i].threshold, 3);
		json_string(j, "source", v->evidence[i].source);
		json_end_object(j);
	}
	json_end_array(j);
	json_begin_array(j, "errors");
	for (size_t i = 0; i < v->nr_errors; i++) {
		json_begin_object(j, NULL);
		json_string(j, "kind", use_kind_name(v->errors[i].kind));
		json_string(j, "name", v->errors[i].name);
		json_u64(j, "count", v->errors[i].count);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

void use_report__json(struct json *j, struct use_model *um, bool per_cpu)
{
	const struct use_component **cur;
	size_t n = use_model__current(um, &cur);
	struct use_verdict v;

	json_begin_array(j, "use");
	for (size_t i = 0; i < n; i++) {
		const struct tt_use_metric *r = &cur[i]->last;

		if (!per_cpu && r->kind == TT_USE_CPU && r->index != TT_USE_ALL)
			continue;
		component_json(j, r);
	}
	json_end_array(j);
	use_model__verdict(um, &v);
	use_report__verdict_json(j, "verdict", &v);
}

static void add(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n < len - *used ? (size_t)n : len - 1 - *used;
}

char *use_report__line(struct use_model *um, char *buf, size_t len)
{
	const struct use_component **cur;
	size_t n = use_model__current(um, &cur), used = 0;
	struct use_verdict v;
	char text[4 * sizeof(v.text)];

	if (!len)
		return buf;
	buf[0] = '\0';
	add(buf, len, &used, "USE");
	for (size_t i = 0; i < n; i++) {
		const struct tt_use_metric *r = &cur[i]->last;
		double util = use_util_pct(r), sat = use_sat_value(r);
		size_t nl = strnlen(r->name, sizeof(r->name));
		char name[4 * 32 + 1];

		if (r->kind == TT_USE_CPU && r->index != TT_USE_ALL)
			continue;
		if (r->kind == TT_USE_TCP && !(r->flags & TT_USE_SATURATED))
			continue;
		/* Cgroup and device names come from the filesystem: escaped, at most 32 bytes. */
		escape_for_terminal(r->name, nl < 32 ? nl : 32, name, sizeof(name));
		add(buf, len, &used, "  %s%s", name, r->flags & TT_USE_SATURATED ? "!" : "");
		if (!isnan(util))
			add(buf, len, &used, " %.0f%%", util);
		if (r->kind == TT_USE_CPU && !isnan(sat))
			add(buf, len, &used, " %.2f runnable/CPU", sat);
		else if (r->kind == TT_USE_DISK && !isnan(sat))
			add(buf, len, &used, " q %.2f", sat);
		else if (r->kind == TT_USE_NET && !isnan(use_aux_value(r)))
			add(buf, len, &used, " %.1f kB/s", use_aux_value(r) / 1e3);
	}
	use_model__verdict(um, &v);
	/* The verdict names a component, so it is escaped like the names. */
	add(buf, len, &used, "  | %s",
	    escape_for_terminal(v.text, strlen(v.text), text, sizeof(text)));
	return buf;
}
