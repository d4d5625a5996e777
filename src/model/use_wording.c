// SPDX-License-Identifier: GPL-2.0-only
/*
 * The USE verdict in shorter words (see use_verdict_wording in
 * use_model.h): the header and the USE pane show the longest wording
 * that fits their line rather than cutting the verdict's text, so at 80
 * columns the verdict still names the component, the level and, where
 * room is left, its figures and the errors. Made from the verdict's
 * fields, so every wording says the same as the text.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "use_model.h"

/* Appends printf output to buf (len bytes) at *o. */
static void put(char *buf, size_t len, size_t *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*o >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *o, len - *o, fmt, ap);
	va_end(ap);
	if (n > 0)
		*o += (size_t)n;
}

/* One figure of the evidence without its threshold: "2.90 runnable per CPU", "PSI some 89%". */
static void put_figure(const struct use_evidence *e, char *buf, size_t len, size_t *o)
{
	if (!strcmp(e->metric, "psi_full_pct")) {
		put(buf, len, o, "PSI full %.0f%%", e->value);
	} else if (!strcmp(e->metric, "psi_some_pct")) {
		put(buf, len, o, "PSI some %.0f%%", e->value);
	} else if (!strcmp(e->metric, "util_pct")) {
		put(buf, len, o, "%.0f%% busy", e->value);
	} else {
		const char *what = "";

		for (unsigned f = 0; f < TT_USE_FIG_MAX; f++)
			if (!strcmp(use_figure_key(f), e->metric))
				what = use_figure_label(f);
		put(buf, len, o, "%.2f %s", e->value, what);
	}
}

/* The errors, as much as the wording keeps: all named (1), a count (2), a word (3). */
static void put_errors(const struct use_verdict *v, int which, char *buf, size_t len, size_t *o)
{
	if (!v->nr_errors)
		return;
	if (which == 3) {
		put(buf, len, o, ", errors");
	} else if (which == 2) {
		put(buf, len, o, "; errors on %zu", v->nr_errors);
	} else {
		for (size_t i = 0; i < v->nr_errors; i++)
			put(buf, len, o, "%s %s %llu", i ? "," : "; errors:", v->errors[i].name,
			    (unsigned long long)v->errors[i].count);
	}
}

bool use_verdict_wording(const struct use_verdict *v, int which, char *buf, size_t len)
{
	char who[96];
	size_t o = 0;

	if (which < 0 || which > 3 || !len)
		return false;
	if (!which) {
		snprintf(buf, len, "%s", v->text);
		return true;
	}
	buf[0] = '\0';
	use_component_label(v->kind, v->name, who, sizeof(who));
	switch (v->level) {
	case USE_VERDICT_SATURATED:
		put(buf, len, &o, "%s saturated", who);
		for (size_t i = 0; which < 3 && i < v->nr_evidence && (which == 1 || !i); i++) {
			put(buf, len, &o, "%s", i ? ", " : ": ");
			put_figure(&v->evidence[i], buf, len, &o);
		}
		break;
	case USE_VERDICT_BUSY:
	case USE_VERDICT_ALMOST:
		put(buf, len, &o, "%s %s", who,
		    v->level == USE_VERDICT_BUSY ? "busy" : "almost critical");
		if (which < 3 && v->nr_evidence)
			put(buf, len, &o, ": %.0f%%", v->evidence[0].value);
		if (which == 1)
			put(buf, len, &o, ", nothing saturated");
		break;
	case USE_VERDICT_OK:
		put(buf, len, &o, "%s", which == 3 ? "ok" : "nothing saturated");
		break;
	default:
		put(buf, len, &o, "no data yet");
		break;
	}
	put_errors(v, which, buf, len, &o);
	return true;
}
