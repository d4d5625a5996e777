/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Renders the USE metrics and the verdict for batch output and exports: the
 * "use" and "verdict" members of a JSON object (README.md documents them),
 * and a one-line text summary. The TUI draws its own meters from use_model.h.
 */
#ifndef THREADTOP_USE_REPORT_H
#define THREADTOP_USE_REPORT_H

#include <stddef.h>

#include "json.h"
#include "use_model.h"

/*
 * Writes "use": [one object per component of the latest interval] and
 * "verdict": {...} as members of the JSON object being written. per_cpu:
 * include the single-CPU records too.
 */
void use_report__json(struct json *j, struct use_model *um, bool per_cpu);

/* Writes only the verdict object (key as in json.h: NULL inside an array). */
void use_report__verdict_json(struct json *j, const char *key, const struct use_verdict *v);

/*
 * "USE cpu 45% 0.50 runnable/CPU  memory 12%  vda 3% q 0.01 ... | verdict text"
 * into buf (always NUL-terminated), names and verdict escaped for a
 * terminal (escape.h). Returns buf.
 */
char *use_report__line(struct use_model *um, char *buf, size_t len);

#endif /* THREADTOP_USE_REPORT_H */
