// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Traces pane: what --trace and --cmd captured. Per tracepoint its
 * rate over the last interval, its totals and its latest lines (newest
 * first); per command the command, how its latest run ended (exit status,
 * signal, timeout) and its output, capped. Every string here comes from
 * the kernel or from another program: escaped before it reaches the
 * terminal. The pane is a list of text lines, rebuilt when the view asks
 * the model again; live runs read the capture, replays the recorded one.
 * A line too long for the screen is cut after a word with the marker (a
 * trace line first drops its padding, irq flags and event name); the
 * selected one shows whole, wrapped.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elide.h"
#include "screen.h"
#include "threadtop/capture_view.h"
#include "capture_report.h"
#include "escape.h"
#include "util.h"
#include "tui_internal.h"

#define OUTPUT_LINES_MAX 500 /* of one command's output; the export has all of it */
#define ESCAPED(n) ((n)*4 + 1)

struct cap_line {
	char *text; /* escaped */
	enum screen_role role;
	bool trace; /* a tracepoint's line, in ftrace's format */
};

static void add_line(struct tui *t, enum screen_role role, const char *text)
{
	struct cap_line *l;

	t->trace_lines =
		xrealloc(t->trace_lines, (t->nr_trace_lines + 1) * sizeof(*t->trace_lines));
	l = &t->trace_lines[t->nr_trace_lines++];
	l->text = xstrdup(text);
	l->role = role;
	l->trace = false;
}

/* Adds raw (len bytes another program wrote) escaped, after prefix. */
static void add_escaped(struct tui *t, enum screen_role role, const char *prefix, const char *raw,
			size_t len)
{
	size_t plen = strlen(prefix), cap = plen + ESCAPED(len);
	char *buf = xmalloc(cap);

	memcpy(buf, prefix, plen);
	escape_for_terminal(raw, len, buf + plen, cap - plen);
	add_line(t, role, buf);
	free(buf);
}

void capture_pane_clear(struct tui *t)
{
	for (size_t i = 0; i < t->nr_trace_lines; i++)
		free(t->trace_lines[i].text);
	free(t->trace_lines);
	t->trace_lines = NULL;
	t->nr_trace_lines = 0;
}

void capture_pane_interval(struct tui *t, double interval_s)
{
	const struct tracer *tr = t->host ? t->host->tracer(t->host) : NULL;

	t->trace_interval_s = interval_s;
	for (size_t i = 0; tr && i < tracer__count(tr) && i < TRACE_MAX_EVENTS; i++) {
		struct trace_stats st;

		tracer__stats(tr, i, &st);
		t->trace_rate[i] = interval_s > 0 ? (double)st.interval / interval_s : 0;
	}
}

static void build_traces(struct tui *t, const struct tracer *tr)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "KERNEL TRACES (--trace)  lost %llu",
		 (unsigned long long)tracer__lost(tr));
	add_line(t, ROLE_COLHEAD, buf);
	for (size_t i = 0; i < tracer__count(tr); i++) {
		struct trace_stats st;
		const char *line;

		tracer__stats(tr, i, &st);
		snprintf(buf, sizeof(buf), "%s  %.1f/s  total %llu  kept %zu (newest first)",
			 st.event, i < TRACE_MAX_EVENTS ? t->trace_rate[i] : 0.0,
			 (unsigned long long)st.total, st.kept);
		add_escaped(t, ROLE_TITLE, "", buf, strlen(buf));
		if (!st.kept)
			add_line(t, ROLE_DIM, "  no lines yet");
		for (size_t j = 0; (line = tracer__line(tr, i, j, NULL)); j++) {
			add_escaped(t, ROLE_NORMAL, "  ", line, strlen(line));
			t->trace_lines[t->nr_trace_lines - 1].trace = true;
		}
	}
}

static void build_command(struct tui *t, const struct cmd_result *r)
{
	char status[64], when[32] = "", buf[128];
	size_t shown = 0, start = 0;

	if (r->done) {
		time_t secs = (time_t)(r->started_ns / NSEC_PER_SEC);
		struct tm tm;

		if (localtime_r(&secs, &tm))
			strftime(when, sizeof(when), " at %H:%M:%S", &tm);
	}
	add_escaped(t, ROLE_TITLE, "$ ", r->cmd, strlen(r->cmd));
	snprintf(buf, sizeof(buf), "  %s", cmd_status_text(r, status, sizeof(status)));
	if (r->done)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " after %.2fs%s, runs %llu%s%s", (double)r->duration_ns / 1e9, when,
			 (unsigned long long)r->runs, r->truncated ? ", output cut at the cap" : "",
			 r->skipped ? ", skipped while running" : "");
	add_line(t, r->done && (r->exit_code || r->timed_out || r->signal) ? ROLE_WARN : ROLE_VALUE,
		 buf);
	if (!r->done)
		return;
	if (!r->output_len)
		add_line(t, ROLE_DIM, "  (no output)");
	for (size_t i = 0; i <= r->output_len; i++) {
		if (i < r->output_len && r->output[i] != '\n')
			continue;
		if (i > start || i < r->output_len) {
			if (shown++ == OUTPUT_LINES_MAX) {
				add_line(t, ROLE_DIM,
					 "  ... more lines: export (x) to see them all");
				return;
			}
			add_escaped(t, ROLE_NORMAL, "  ", r->output + start, i - start);
		}
		start = i + 1;
	}
}

static void capture_pane_build(struct tui *t, bool *header_done)
{
	const struct tracer *tr = t->host ? t->host->tracer(t->host) : NULL;
	const struct cmdcap *cmds = t->host ? t->host->cmds(t->host) : NULL;

	capture_pane_clear(t);
	/* Commands first: a few lines each, where busy tracepoints have thousands. */
	if (cmds) {
		add_line(t, ROLE_COLHEAD, "COMMANDS (--cmd)");
		for (size_t i = 0; i < cmdcap__count(cmds); i++) {
			struct cmd_result r;

			cmdcap__result(cmds, i, &r);
			build_command(t, &r);
		}
	}
	if (tr)
		build_traces(t, tr);
}

static bool capture_pane_match(struct tui *t, size_t row, const char *text)
{
	return row < t->nr_trace_lines && strcasestr(t->trace_lines[row].text, text);
}

/*
 * A trace line in fewer columns, for a screen too narrow for it: ftrace's
 * "  task-PID  [CPU] flags  TIME: event: fields" without the padding, the
 * irq flags and the event's name (the title above the lines says it), so
 * at 80 columns the fields show. False when the line is not in that format.
 */
static bool trace_compact(const char *line, char *buf, size_t len)
{
	static regex_t re;
	static int compiled; /* 1 compiled, -1 failed */
	regmatch_t m[7];

	if (!compiled)
		compiled = regcomp(&re,
				   "^ *(.*-[0-9]+) +\\[([0-9]+)\\] +([^ ]+ +)?([0-9]+\\.[0-9]+): "
				   "+([^ :]+): +(.*)$",
				   REG_EXTENDED)
				   ? -1
				   : 1;
	if (compiled < 0 || regexec(&re, line, 7, m, 0))
		return false;
	snprintf(buf, len, "  %.*s [%.*s] %.*s %s", (int)(m[1].rm_eo - m[1].rm_so),
		 line + m[1].rm_so, (int)(m[2].rm_eo - m[2].rm_so), line + m[2].rm_so,
		 (int)(m[4].rm_eo - m[4].rm_so), line + m[4].rm_so, line + m[6].rm_so);
	return true;
}

static void capture_pane_draw(struct tui *t, int y, int h, int cols)
{
	const struct pane_view *pv = &t->view.per_pane[PANE_TRACES];
	char cut[1024], compact[1024];
	const char *text;

	t->layout.colhead_y = -1;
	t->layout.first_row_y = y;
	t->layout.nr_visible = h;
	if (!t->nr_trace_lines) {
		screen_text(y + 1, 2, cols - 2,
			    "nothing captured: run with --trace SUBSYSTEM:EVENT", ROLE_DIM, false);
		screen_text(y + 2, 2, cols - 2,
			    "(e.g. sched:sched_process_exec) or --cmd 'COMMAND'", ROLE_DIM, false);
		return;
	}
	for (int k = 0, line = 0; line < h; k++) {
		size_t i = pv->top + (size_t)k;
		const struct cap_line *l;

		if (i >= t->nr_trace_lines)
			break;
		l = &t->trace_lines[i];
		if (i == pv->sel) {
			/* The selected line whole, wrapped: a trace line holds every field. */
			line += screen_wrapped(y + line, h - line, cols, l->text, ROLE_SELECTED);
			continue;
		}
		if (l->role == ROLE_COLHEAD)
			screen_fill(y + line, 0, cols, ROLE_COLHEAD);
		text = l->text;
		if (l->trace && elide_width(text) > cols &&
		    trace_compact(text, compact, sizeof(compact)))
			text = compact;
		/* Cut after a whole word, marked (elide.h). */
		screen_text(y + line++, 0, cols,
			    elide_end(text, cols, screen_utf8(), cut, sizeof(cut)), l->role, false);
	}
}

static size_t capture_pane_rows(const struct tui *t)
{
	return t->nr_trace_lines;
}

const struct pane_ops pane_traces_ops = {
	.name = "Traces",
	.build = capture_pane_build,
	.rows = capture_pane_rows,
	.draw = capture_pane_draw,
	.match = capture_pane_match,
	.drill_to = PANE_TRACES,
};
