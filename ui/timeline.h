/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The replay timeline of the TUI (timeline.c): a row under the header and
 * the time-travel keys. Only present when the app replays a recording.
 */
#ifndef THREADTOP_UI_TIMELINE_H
#define THREADTOP_UI_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "keys.h"
#include "threadtop/frontend.h"

struct tui;
struct timeline;

struct timeline *timeline__new(void);
void timeline__free(struct timeline *tl);

/* Handles key in a replay; returns enum ui_reaction bits, or -1 when not its key. */
int timeline_key(struct tui *t, int key);
/* Draws the timeline row at y. */
void timeline_draw(struct tui *t, int y, int cols);
/* A time typed at the b prompt as the recording's monotonic ns; 0 when not a time. */
uint64_t timeline_parse(const struct replay_status *st, const char *s);

/* The time-travel keys, for the help screen. */
extern const struct key_help timeline_help[];
extern const size_t timeline_help_count;

#endif /* THREADTOP_UI_TIMELINE_H */
