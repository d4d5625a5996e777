/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Synthetic records for the in-process benchmarks (bench_tui, bench_model):
 * a fixed pseudo-random sequence, string dictionary entries and stacks that
 * share prefixes as real ones do, fed straight into a model.
 */
#ifndef TT_BENCH_SYNTH_H
#define TT_BENCH_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

struct model;

/* xorshift64: the same sequence on every run. */
uint64_t synth_rnd(void);
/* A string dictionary entry `id` = `text`, at time `t`. */
void synth_string(struct model *m, uint32_t id, const char *text, uint64_t t);
/* Stack `id` (8 to 24 frames, kernel or user addresses), at time `t`. */
void synth_stack(struct model *m, uint32_t id, bool kernel, uint64_t t);

#endif
