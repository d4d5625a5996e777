/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Renders the diagnostic attachments, kernel trace lines (trace.h) and
 * command output (cmdcap.h), as JSON members ("traces", "commands"; see
 * README.md) and as text for batch output. Exporters reuse the JSON side.
 */
#ifndef THREADTOP_CAPTURE_REPORT_H
#define THREADTOP_CAPTURE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "threadtop/capture_view.h"
#include "json.h"

/*
 * "traces": [{"event", "total", "interval", "rate_per_s", "lost", "lines": [...]}].
 * interval_only: the lines of this interval (batch NDJSON, no repeats);
 * otherwise every kept line (a snapshot export). Lines oldest first.
 */
void trace_report__json(struct json *j, const struct tracer *t, double interval_s,
			bool interval_only);
/* "commands": [{"cmd", "status", "exit_code", "signal", "timed_out", ...}]. */
void cmdcap_report__json(struct json *j, const struct cmdcap *c);

/* Text for batch output: a line per tracepoint and per command, indented output. */
void trace_report__text(FILE *out, const struct tracer *t, double interval_s);
void cmdcap_report__text(FILE *out, const struct cmdcap *c);

/* "exited 0", "killed by signal 9", "timed out", "running", "not run yet". */
const char *cmd_status_text(const struct cmd_result *r, char *buf, size_t len);

#endif /* THREADTOP_CAPTURE_REPORT_H */
