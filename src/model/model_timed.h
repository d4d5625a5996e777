/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Timed on-CPU samples (model_timed.c): the window counters keep how many
 * samples each stack had, not when; speedscope's time-order view needs the
 * when. So each CPU-clock and LuaJIT sample is also kept, in arrival order,
 * in one ring for the whole model, bounded by MODEL_TIMED_MAX entries
 * (40 bytes each, allocated as it fills). Past the bound the oldest entries
 * go, whatever their thread, and the windows they fell in are marked as no
 * longer complete (model_timed__complete): a time-ordered view of such a
 * window shows only its newest part and says so. Thread samples and
 * off-CPU time are not kept here: the first come every tick for every
 * thread (too many to keep), the second arrive summed per flush, with no
 * time of each block.
 */
#ifndef THREADTOP_MODEL_TIMED_H
#define THREADTOP_MODEL_TIMED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* 2^18 entries, 10 MiB: 22 minutes of 2 busy CPUs at 99 Hz, 41 s of 64. */
#define MODEL_TIMED_MAX (1u << 18)

struct model_timed {
	uint64_t time_ns; /* the sample's time (the record's, CLOCK_MONOTONIC) */
	uint64_t lj_key;  /* LuaJIT: the stack pair (lj_model__stitched_id); 0 = CPU clock */
	uint32_t pid, tid;
	uint32_t kstack_id, ustack_id; /* CPU clock: the sample's stacks; LuaJIT: 0, host stack */
	uint32_t labels_id;	       /* as in model_stack_row; 0 when !labels_known */
	uint32_t interval;	       /* the model's intervals ended when it came: its windows */
	bool labels_known;
};

struct model_timed_ring {
	struct model_timed *e;
	size_t cap, nr, head;	/* head: the oldest entry once nr == MODEL_TIMED_MAX */
	uint64_t lost;		/* entries dropped for room, session */
	uint32_t lost_interval; /* interval of the newest entry dropped (valid when lost) */
};

/* The model's ring. Owned by the model; entries live until the next ingest. */
const struct model_timed_ring *model__timed(const struct model *m);
/* Adds one entry (the oldest goes when full). */
void model_timed__add(struct model_timed_ring *r, const struct model_timed *e);
/* Forgets all entries. */
void model_timed__free(struct model_timed_ring *r);
/* Entry i of the ring, 0 = oldest; i < r->nr. */
const struct model_timed *model_timed__at(const struct model_timed_ring *r, size_t i);
/*
 * Whether entry e belongs to window of a model that has ended `intervals`
 * intervals (WIN_MINUTE: never, the traced data has no minute window).
 */
bool model_timed__in_window(const struct model_timed *e, enum model_window window,
			    uint64_t intervals);
/* Whether the ring still holds every entry of window (none of it was dropped for room). */
bool model_timed__complete(const struct model_timed_ring *r, enum model_window window,
			   uint64_t intervals);

#endif /* THREADTOP_MODEL_TIMED_H */
