/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Model figures as JSON members, written the same way by the batch NDJSON
 * lines (batch.c) and the JSON export (export_json.c).
 */
#ifndef THREADTOP_JSON_MODEL_H
#define THREADTOP_JSON_MODEL_H

#include <stdbool.h>
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

/*
 * A thread's "syscalls": with exact figures (--syscalls) every syscall it
 * made in window, {count, total_ns} plus the samples that caught it in one
 * (and, with hist, "hist_log2_ns"); then the syscalls only sampled, as
 * {samples}. sc, nr: its sampled syscalls (model__thread_syscalls).
 */
void json_thread_syscalls(struct json *j, struct model *m, uint32_t tid, enum model_window window,
			  const struct model_syscall_count *sc, int nr, bool hist);

/* A thread's "runq" {count, total_ns} in window, when off-CPU time was traced. */
void json_thread_runq(struct json *j, struct model *m, uint32_t tid, enum model_window window);
/* "io_wait": the block request thread tid, in D, waits on (--io), when one is known. */
void json_thread_io_wait(struct json *j, struct model *m, uint32_t tid);
/*
 * "io": block I/O requests of window (--io) by device and by thread and
 * device: requests, bytes, IOPS and MB/s (10^6 bytes) over seconds, the
 * mean, p50 and p99 latency (those two: the upper bound of their log2
 * bucket) and the histogram.
 */
void json_io(struct json *j, struct model *m, enum model_window window, double seconds);

/* The most functions a hot_functions array lists (those of most total time). */
#define JSON_HOT_FUNCTIONS_MAX 200

/*
 * key: the hot functions of p's samples of kind (hotfuncs.h: the TUI's Hot
 * pane computes the same): [{name, module, kernel, self, total, self_pct,
 * total_pct, pids, more_pids}], most self first; self and total in samples
 * (on-CPU) or ns (off-CPU). At most JSON_HOT_FUNCTIONS_MAX entries, the
 * ones of most total; thread samples (no CPU sampler ran) count those of
 * running threads only. Then key_total: the samples (or ns) they are
 * shares of. Writes nothing when p has no samples of kind.
 */
struct profile;
void json_hot_functions(struct json *j, const char *key, struct model *m, const struct profile *p,
			int kind);

#endif /* THREADTOP_JSON_MODEL_H */
