/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Frame names that travel in recordings. While recording, the live namer
 * (the symbolizer) names each frame of each new stack once, while its
 * process exists, and the names go into the file as TT_EV_FRAME_NAME
 * records; a replay keeps them and answers the model's frame look-ups from
 * them, so frames are named on another machine as they were live.
 */
#ifndef THREADTOP_RECORDED_NAMES_H
#define THREADTOP_RECORDED_NAMES_H

#include <stdint.h>

#include "threadtop/events.h"
#include "threadtop/frame_namer.h"
#include "threadtop/source.h"

struct recorded_names;

struct recorded_names *recorded_names__new(void);
void recorded_names__free(struct recorded_names *fn);

/*
 * Bounds the names kept by b (not owned; NULL, the default: none). Past it a
 * new name is not kept, and unknown frames read "[dropped]".
 */
struct dict_budget;
void recorded_names__set_budget(struct recorded_names *fn, struct dict_budget *b);
/* Replay side: keeps the name of a (validated) TT_EV_FRAME_NAME record. */
void recorded_names__add(struct recorded_names *fn, const struct tt_frame_name *rec);
/* Replay side: keeps the build-id of a (validated) TT_EV_BUILD_ID record. */
void recorded_names__add_build_id(struct recorded_names *fn, const struct tt_build_id *rec);
/* A namer answering from the names kept (ctx fn): valid while fn lives. */
const struct frame_namer *recorded_names__namer(struct recorded_names *fn);

/*
 * Recording side: names with namer every frame of st not named before and
 * emits one TT_EV_FRAME_NAME record per frame to sink, timed time_ns, after
 * a TT_EV_BUILD_ID record for each (pid, module) with a build-id seen first.
 */
void recorded_names__record_stack(struct recorded_names *fn, const struct frame_namer *namer,
				  const struct tt_stack *st, const struct event_sink *sink,
				  uint64_t time_ns);

#endif /* THREADTOP_RECORDED_NAMES_H */
