/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * F2 Setup: the Threads pane's column chooser, for its thread view and its
 * process view, and the rc file that keeps the choice
 * (~/.config/threadtop/threadtoprc, src/lib/rc_file.h). The parsing and
 * formatting work on view state alone and are unit-tested
 * (tests/unit/test_ui_setup.c).
 */
#ifndef THREADTOP_UI_SETUP_H
#define THREADTOP_UI_SETUP_H

#include <stddef.h>

struct view;
struct tui;

/* Applies one rc line to v; NULL, or why the line is refused ("unknown column 'x'"). */
const char *setup_parse(struct view *v, const char *key, const char *value);
/* The rc file's text for v's choices into buf. Returns buf. */
char *setup_format(const struct view *v, char *buf, size_t len);

/* Reads the rc file into t's view; a bad file is logged (one line) and shown, never fatal. */
void setup_load(struct tui *t);
/* Writes t's choices to the rc file; the status line says where, or why not. */
void setup_save(struct tui *t);
/* The chooser, drawn over the pane (MODE_SETUP). */
void setup_draw(struct tui *t, int rows, int cols);

#endif /* THREADTOP_UI_SETUP_H */
