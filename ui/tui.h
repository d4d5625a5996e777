/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The interactive front end: a full-screen ncursesw view of the model (see
 * ARCHITECTURE.md, "Views"). tui_frontend plugs into app_run; tui__new and
 * tui__frame also drive a headless virtual screen for the frame benchmark.
 */
#ifndef THREADTOP_UI_TUI_H
#define THREADTOP_UI_TUI_H

#include <stdbool.h>

#include "threadtop/frontend.h"
#include "model.h"

/* The TUI front end for app_run (ctx is allocated by start, freed by stop). */
extern const struct frontend tui_frontend;

struct tui;

/* A TUI over m, not tied to an app or a terminal (source: "bpf", "proc"). */
struct tui *tui__new(struct model *m, const char *source, unsigned hz, double delay_s);
void tui__free(struct tui *t);
/* Asks the model and draws one frame on the open screen (screen_open). */
void tui__frame(struct tui *t);
/* The model's data moved on (an interval closed, a replay jumped): the next
 * frame asks it again instead of reusing the last frame's rows and tree. */
void tui__data_changed(struct tui *t);
/* Feeds one key (enum ui_key or a character) as if typed; returns false after quit. */
bool tui__key(struct tui *t, int key);

#endif /* THREADTOP_UI_TUI_H */
