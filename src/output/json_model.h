/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Model figures as JSON members, written the same way by the batch NDJSON
 * lines (batch.c) and the JSON export (export_json.c).
 */
#ifndef THREADTOP_JSON_MODEL_H
#define THREADTOP_JSON_MODEL_H

#include <stdint.h>

#include "json.h"
#include "model.h"

/* A thread row's "pid", "tid", "comm" and, when known, "cmdline" members. */
void json_thread_names(struct json *j, const struct model_row *row);

/* key: {"R": n, "S": n, ...}, the states with samples only (counts: TT_ST_MAX). */
void json_state_samples(struct json *j, const char *key, const uint64_t *counts);

/* key: {"read": n, ...}, samples per syscall (sc: nr entries, as the model gives them). */
void json_syscall_samples(struct json *j, const char *key, const struct model_syscall_count *sc,
			  int nr);

#endif /* THREADTOP_JSON_MODEL_H */
