// SPDX-License-Identifier: GPL-2.0-only
/*
 * The USE pane: the bottleneck verdict with its evidence at the top, the
 * sources this run lacks (said once, from the records, so a replay says
 * the same), then one row per component (CPU overall and per CPU, memory,
 * each disk and NIC, TCP, cgroup CPU throttling) with utilization,
 * saturation (flag and figure), errors and a sparkline of utilization over
 * the history the model keeps. Everything comes from use_model.h: live and
 * replay draw the same.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "elide.h"
#include "screen.h"
#include "sparkline.h"
#include "escape.h"
#include "use_model.h"
#include "tui_internal.h"

#define NAME_W 16
#define UTIL_W 7
#define SAT_W 36 /* "SAT 25.50 runnable/CPU >1 psi 100%" and a gap */
#define ERR_W 8

static size_t use_pane_rows(const struct tui *t)
{
	const struct use_component **cs;

	return use_model__current(model__use(t->model), &cs);
}

/* The component's name for the screen: escaped (cgroup paths come from the filesystem). */
static void component_name(const struct tt_use_metric *r, char *buf, size_t len)
{
	char raw[2 * TT_COMM_LEN + 8];

	snprintf(raw, sizeof(raw), "%s%.*s",
		 r->kind == TT_USE_CPU && r->index != TT_USE_ALL ? "  " : "",
		 (int)strnlen(r->name, sizeof(r->name)), r->name);
	escape_for_terminal(raw, strlen(raw), buf, len);
}

static bool use_pane_match(struct tui *t, size_t row, const char *text)
{
	const struct use_component **cs;
	size_t n = use_model__current(model__use(t->model), &cs);
	char name[4 * 2 * TT_COMM_LEN + 16];

	if (row >= n)
		return false;
	component_name(&cs[row]->last, name, sizeof(name));
	return strcasestr(name, text) || strcasestr(use_kind_name(cs[row]->last.kind), text);
}

/* Labels short enough for the saturation column (use_figure_label is for prose). */
static const char *short_label(unsigned fig)
{
	static const char *const labels[TT_USE_FIG_MAX] = {
		[TT_USE_FIG_RUNNABLE_PER_CPU] = "runnable/CPU",
		[TT_USE_FIG_WAITING] = "waiting",
		[TT_USE_FIG_PAGING] = "paging/s",
		[TT_USE_FIG_SCAN] = "kswapd scan/s",
		[TT_USE_FIG_QUEUE] = "queue",
		[TT_USE_FIG_AWAIT_MS] = "ms await",
		[TT_USE_FIG_DROPS] = "drops/s",
		[TT_USE_FIG_BYTES] = "B/s",
		[TT_USE_FIG_RETRANS_PCT] = "% retrans",
		[TT_USE_FIG_THROTTLED_PCT] = "% throttled",
	};

	return fig < TT_USE_FIG_MAX && labels[fig] ? labels[fig] : "";
}

/* "SAT 1.60 runnable/CPU >1.00", "ok 0.01 ms await", "psi 3.1%": the saturation cell. */
void use_pane_saturation(const struct tt_use_metric *r, char *buf, size_t len)
{
	double v = use_sat_value(r), lim = use_sat_limit(r);
	const char *flag = r->flags & TT_USE_SATURATED ? "SAT" : "ok ";
	size_t o;

	o = (size_t)snprintf(buf, len, "%s", flag);
	if (o < len && r->sat_what && !isnan(v))
		o += (size_t)snprintf(buf + o, len - o, " %.2f %s", v, short_label(r->sat_what));
	if (o < len && r->sat_what && !isnan(v) && !isnan(lim))
		o += (size_t)snprintf(buf + o, len - o, " >%g", lim);
	if (o < len && r->psi_some_milli != TT_USE_UNKNOWN)
		o += (size_t)snprintf(buf + o, len - o, " psi %.1f%%", use_psi_some_pct(r));
	if (o < len && !r->sat_what && r->psi_some_milli == TT_USE_UNKNOWN)
		snprintf(buf + o, len - o, " -");
}

/*
 * What this run could not measure, from the records: PSI unknown on the CPU
 * record (kernels built with CONFIG_PSI_DEFAULT_DISABLED), no error counts
 * for disks, no link speed for NICs; each in a long and a short wording
 * (what stands in for it is the first to go on a narrow screen). Returns
 * the lines written into lines.
 */
static size_t missing_lines(const struct use_component *const *cs, size_t n, const char *lines[][2],
			    size_t cap)
{
	bool cpu = false, psi = false, disk_err = false, nic_speed = false;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tt_use_metric *r = &cs[i]->last;

		if (r->kind == TT_USE_CPU && r->index == TT_USE_ALL) {
			cpu = true;
			psi = r->psi_some_milli != TT_USE_UNKNOWN;
		}
		if (r->kind == TT_USE_DISK && !(r->flags & TT_USE_ERRORS_KNOWN))
			disk_err = true;
		if (r->kind == TT_USE_NET && r->util_milli == TT_USE_UNKNOWN)
			nic_speed = true;
	}
	if (cpu && !psi && k < cap) {
		lines[k][0] = "PSI: not enabled (boot with psi=1); saturation from run queues, "
			      "paging and disk queues instead";
		lines[k++][1] = "PSI: not enabled (boot with psi=1)";
	}
	if (disk_err && k < cap) {
		lines[k][0] = "disk errors: not exposed by these devices (no ioerr_cnt)";
		lines[k++][1] = "disk errors: no ioerr_cnt";
	}
	if (nic_speed && k < cap) {
		lines[k][0] = "NIC utilization: link speed unknown (virtual NIC); bytes/s shown "
			      "instead";
		lines[k++][1] = "NIC utilization: link speed unknown (virtual NIC)";
	}
	return k;
}

/* A line of the verdict block: the first of its wordings that fits, else cut after a word. */
static void block_line(int y, int cols, const char *const *words, size_t n, enum screen_role role)
{
	char cut[512];

	for (size_t i = 0; i < n; i++)
		if (elide_width(words[i]) <= cols || i + 1 == n) {
			screen_text(y, 0, cols,
				    elide_end(words[i], cols, screen_utf8(), cut, sizeof(cut)),
				    role, false);
			return;
		}
}

/* The verdict, its evidence and errors, and what is missing; returns rows used. */
static int verdict_block(struct tui *t, int y, int h, int cols,
			 const struct use_component *const *cs, size_t n)
{
	struct use_verdict v;
	char buf[512], full[320], shorter[320], text[4 * sizeof(v.text)];
	const char *miss[3][2], *words[3];
	size_t nm;
	int used = 0;

	use_model__verdict(model__use(t->model), &v);
	snprintf(buf, sizeof(buf), "Verdict: %s", verdict_fit(&v, cols - 9, text, sizeof(text)));
	screen_text(y + used++, 0, cols, buf,
		    v.level == USE_VERDICT_SATURATED ? ROLE_WARN
		    : v.level >= USE_VERDICT_ALMOST  ? ROLE_CRUMB
						     : ROLE_TITLE,
		    true);
	for (size_t i = 0; i < v.nr_evidence && used < h; i++) {
		const struct use_evidence *e = &v.evidence[i];

		/* Narrower: without the word "threshold", then without the source. */
		snprintf(full, sizeof(full), "  evidence: %s %.2f vs threshold %.2f (%s)",
			 e->metric, e->value, e->threshold, e->source);
		snprintf(shorter, sizeof(shorter), "  evidence: %s %.2f vs %.2f (%s)", e->metric,
			 e->value, e->threshold, e->source);
		snprintf(buf, sizeof(buf), "  evidence: %s %.2f vs %.2f", e->metric, e->value,
			 e->threshold);
		words[0] = full, words[1] = shorter, words[2] = buf;
		block_line(y + used++, cols, words, 3, ROLE_NORMAL);
	}
	if (v.nr_errors && used < h) {
		size_t o = (size_t)snprintf(buf, sizeof(buf), "  errors:");

		for (size_t i = 0; i < v.nr_errors && o < sizeof(buf); i++) {
			char name[4 * sizeof(v.errors[i].name)];

			escape_for_terminal(v.errors[i].name, strlen(v.errors[i].name), name,
					    sizeof(name));
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, " %s %llu", name,
					      (unsigned long long)v.errors[i].count);
		}
		words[0] = buf;
		block_line(y + used++, cols, words, 1, ROLE_WARN);
	}
	nm = missing_lines(cs, n, miss, 3);
	for (size_t i = 0; i < nm && used < h; i++) {
		snprintf(full, sizeof(full), "  not measured: %s", miss[i][0]);
		snprintf(shorter, sizeof(shorter), "  not measured: %s", miss[i][1]);
		words[0] = full, words[1] = shorter;
		block_line(y + used++, cols, words, 2, ROLE_DIM);
	}
	return used;
}

/*
 * Intervals of history per sparkline cell: the history kept so far spread
 * over the cells (one interval a cell at first, so a young history is not
 * one cell wide), at most USE_HISTORY intervals in all.
 */
static size_t per_cell(int spark_w, size_t filled)
{
	size_t have = filled < USE_HISTORY ? filled : USE_HISTORY;

	if (spark_w <= 0 || !have)
		return 1;
	return (have + (size_t)spark_w - 1) / (size_t)spark_w;
}

static void row_draw(struct tui *t, int y, int cols, const struct use_component *c, bool sel,
		     int spark_w)
{
	const struct tt_use_metric *r = &c->last;
	enum screen_role role = sel ? ROLE_SELECTED : ROLE_NORMAL;
	double util = use_util_pct(r);
	float hist[USE_HISTORY], bins[USE_HISTORY];
	size_t nb, have;
	char name[4 * 2 * TT_COMM_LEN + 16], buf[sizeof(name)], spark[USE_HISTORY * 4 + 1];
	int x = 0;

	if (sel)
		screen_fill(y, 0, cols, ROLE_SELECTED);
	component_name(r, name, sizeof(name));
	/* A long cgroup or device name loses its middle, marked. */
	screen_text(y, x, NAME_W - 1, elide_name(name, NAME_W - 1, screen_utf8(), buf, sizeof(buf)),
		    role, false);
	x += NAME_W;
	if (isnan(util))
		snprintf(buf, sizeof(buf), "%*s", UTIL_W - 1, "n/a");
	else
		snprintf(buf, sizeof(buf), "%*.1f", UTIL_W - 1, util);
	screen_text(y, x, UTIL_W, buf,
		    sel			   ? role
		    : util >= USE_BUSY_PCT ? ROLE_ST_D
		    : isnan(util)	   ? ROLE_DIM
					   : ROLE_VALUE,
		    false);
	x += UTIL_W + 1;
	use_pane_saturation(r, buf, sizeof(buf));
	screen_text(y, x, SAT_W - 1, buf,
		    sel				  ? role
		    : r->flags & TT_USE_SATURATED ? ROLE_WARN
						  : role,
		    false);
	x += SAT_W;
	if (r->flags & TT_USE_ERRORS_KNOWN)
		snprintf(buf, sizeof(buf), "%*llu", ERR_W - 2, (unsigned long long)r->errors);
	else
		snprintf(buf, sizeof(buf), "%*s", ERR_W - 2, "-");
	screen_text(y, x, ERR_W - 1, buf, sel ? role : r->errors ? ROLE_WARN : role, false);
	x += ERR_W;
	if (spark_w <= 0)
		return;
	/* The whole history kept, a few intervals per cell: the line spans minutes. */
	use_component_history(c, false, hist, USE_HISTORY);
	have = c->filled < USE_HISTORY ? c->filled : USE_HISTORY;
	nb = sparkline_bin(hist + USE_HISTORY - have, have, per_cell(spark_w, c->filled), bins,
			   (size_t)spark_w);
	sparkline_render(bins, nb, 100.0, screen_utf8(), (size_t)spark_w, spark, sizeof(spark));
	screen_text(y, x, spark_w, spark, sel ? role : ROLE_BAR, false);
}

static void use_pane_draw(struct tui *t, int y, int h, int cols)
{
	struct pane_view *pv = &t->view.per_pane[PANE_USE];
	const struct use_component **cs;
	size_t n = use_model__current(model__use(t->model), &cs);
	int used = verdict_block(t, y, h, cols, cs, n);
	int spark_w = cols - (NAME_W + UTIL_W + 1 + SAT_W + ERR_W);
	double interval_s = 0, span;
	size_t have;
	char head[160], spark_title[48];

	if (spark_w > USE_HISTORY)
		spark_w = USE_HISTORY;
	if (n)
		interval_s = (double)cs[0]->last.interval_ns / 1e9;
	/* The sparkline's title in the words that fit its column (80x24: "UTIL% 1.2m"). */
	have = n ? (cs[0]->filled < USE_HISTORY ? cs[0]->filled : USE_HISTORY) : 0;
	span = interval_s * (double)have / 60.0;
	snprintf(head, sizeof(head), "%-*s%*s  %-*s%*s  ", NAME_W, "COMPONENT", UTIL_W - 1, "UTIL%",
		 SAT_W, "SATURATION", ERR_W - 2, "ERRORS");
	snprintf(spark_title, sizeof(spark_title), "UTIL%% over the last %.1f min", span);
	if ((int)strlen(spark_title) > spark_w)
		snprintf(spark_title, sizeof(spark_title), "UTIL%% %.1fm", span);
	if ((int)strlen(spark_title) <= spark_w)
		snprintf(head + strlen(head), sizeof(head) - strlen(head), "%s", spark_title);
	t->layout.colhead_y = y + used;
	t->layout.first_row_y = y + used + 1;
	t->layout.nr_visible = h - used - 1;
	screen_fill(y + used, 0, cols, ROLE_COLHEAD);
	screen_text(y + used, 0, cols, head, ROLE_COLHEAD, false);
	if (!n) {
		screen_text(y + used + 2, 2, cols - 2,
			    "no USE records yet (the first arrive when an interval ends)", ROLE_DIM,
			    false);
		return;
	}
	/* The verdict lines take the top: keep the selection within the rows left. */
	if (t->layout.nr_visible > 0)
		view_clamp(&t->view, n, (size_t)t->layout.nr_visible);
	for (int k = 0; k < t->layout.nr_visible; k++) {
		size_t i = pv->top + (size_t)k;

		if (i >= n)
			break;
		row_draw(t, t->layout.first_row_y + k, cols, cs[i], i == pv->sel, spark_w);
	}
}

const struct pane_ops pane_use_ops = {
	.name = "USE",
	.rows = use_pane_rows,
	.draw = use_pane_draw,
	.match = use_pane_match,
	.drill_to = PANE_USE,
};
