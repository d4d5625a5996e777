// SPDX-License-Identifier: GPL-2.0-only
/* JSON and text rendering of trace lines and command output (see capture_report.h). */
#include <stdio.h>
#include <string.h>

#include "capture_report.h"
#include "escape.h"
#include "util.h"

#define TEXT_LINES 5	 /* trace lines per tracepoint in batch text */
#define TEXT_OUTPUT 2048 /* bytes of command output in batch text */

void trace_report__json(struct json *j, const struct tracer *t, double interval_s,
			bool interval_only)
{
	json_begin_array(j, "traces");
	for (size_t i = 0; t && i < tracer__count(t); i++) {
		struct trace_stats st;
		size_t n = 0;

		tracer__stats(t, i, &st);
		json_begin_object(j, NULL);
		json_string(j, "event", st.event);
		json_u64(j, "total", st.total);
		json_u64(j, "interval", st.interval);
		json_double(j, "rate_per_s", interval_s > 0 ? (double)st.interval / interval_s : 0,
			    2);
		json_begin_array(j, "lines");
		/* Count the lines to show, then write them oldest first. */
		for (bool fresh = true; n < st.kept; n++) {
			tracer__line(t, i, n, &fresh);
			if (interval_only && !fresh)
				break;
		}
		while (n-- > 0)
			json_string(j, NULL, tracer__line(t, i, n, NULL));
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
	if (t)
		json_u64(j, "traces_lost", tracer__lost(t));
}

const char *cmd_status_text(const struct cmd_result *r, char *buf, size_t len)
{
	if (!r->done)
		snprintf(buf, len, r->running ? "running" : "not run yet");
	else if (r->timed_out)
		snprintf(buf, len, "timed out");
	else if (r->signal)
		snprintf(buf, len, "killed by signal %d", r->signal);
	else
		snprintf(buf, len, "exited %d", r->exit_code);
	return buf;
}

static const char *status_key(const struct cmd_result *r)
{
	if (!r->done)
		return r->running ? "running" : "not_run";
	if (r->timed_out)
		return "timed_out";
	return r->signal ? "signaled" : "exited";
}

void cmdcap_report__json(struct json *j, const struct cmdcap *c)
{
	json_begin_array(j, "commands");
	for (size_t i = 0; c && i < cmdcap__count(c); i++) {
		struct cmd_result r;
		char when[40];

		cmdcap__result(c, i, &r);
		json_begin_object(j, NULL);
		json_string(j, "cmd", r.cmd);
		json_string(j, "status", status_key(&r));
		json_u64(j, "runs", r.runs);
		json_u64(j, "skipped", r.skipped);
		json_bool(j, "running", r.running);
		if (r.done) {
			json_string(j, "started", format_rfc3339(r.started_ns, when, sizeof(when)));
			json_double(j, "duration_s", (double)r.duration_ns / 1e9, 3);
			if (r.signal)
				json_null(j, "exit_code");
			else
				json_i64(j, "exit_code", r.exit_code);
			json_u64(j, "signal", (uint64_t)r.signal);
			json_bool(j, "timed_out", r.timed_out);
			json_bool(j, "truncated", r.truncated);
			json_stringn(j, "output", r.output ? r.output : "", r.output_len);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

void trace_report__text(FILE *out, const struct tracer *t, double interval_s)
{
	char line[TRACE_LINE_MAX * 4];

	for (size_t i = 0; t && i < tracer__count(t); i++) {
		struct trace_stats st;
		size_t n = 0;
		bool fresh = true;

		tracer__stats(t, i, &st);
		fprintf(out, "TRACE %s  %llu lines (%.1f/s), %llu in all\n", st.event,
			(unsigned long long)st.interval,
			interval_s > 0 ? (double)st.interval / interval_s : 0,
			(unsigned long long)st.total);
		for (; n < st.kept && n < TEXT_LINES; n++) {
			tracer__line(t, i, n, &fresh);
			if (!fresh)
				break;
		}
		while (n-- > 0) {
			const char *s = tracer__line(t, i, n, NULL);

			fprintf(out, "  %s\n",
				escape_for_terminal(s, strlen(s), line, sizeof(line)));
		}
	}
}

void cmdcap_report__text(FILE *out, const struct cmdcap *c)
{
	char status[48], text[TEXT_OUTPUT * 4];

	for (size_t i = 0; c && i < cmdcap__count(c); i++) {
		struct cmd_result r;
		size_t len, start = 0;

		cmdcap__result(c, i, &r);
		escape_for_terminal(r.cmd, strlen(r.cmd), text, sizeof(text));
		fprintf(out, "CMD %s  %s", text, cmd_status_text(&r, status, sizeof(status)));
		if (r.done)
			fprintf(out, " after %.2fs%s", (double)r.duration_ns / 1e9,
				r.truncated ? ", output truncated" : "");
		fputc('\n', out);
		if (!r.done || !r.output_len)
			continue;
		len = r.output_len > TEXT_OUTPUT ? TEXT_OUTPUT : r.output_len;
		/* One output line per text line, each escaped and indented. */
		while (start < len) {
			const char *nl = memchr(r.output + start, '\n', len - start);
			size_t end = nl ? (size_t)(nl - r.output) : len;

			escape_for_terminal(r.output + start, end - start, text, sizeof(text));
			fprintf(out, "  %s\n", text);
			start = end + 1;
		}
	}
}
