/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TUI's export key (export_key.c): x asks for a file name (default
 * threadtop-HOST-YYYYmmdd-HHMMSS.svg on the Stacks pane, .json elsewhere)
 * and writes what the view shows (drill-down, hide flags, time window) in
 * the format of the name's extension; the status line says where and how
 * big, or why not.
 */
#ifndef THREADTOP_UI_EXPORT_KEY_H
#define THREADTOP_UI_EXPORT_KEY_H

#include <stdbool.h>

#include "keys.h"

struct tui;
struct export_prompt;

struct export_prompt *export_prompt__new(void);
void export_prompt__free(struct export_prompt *xp);

/* Handles key; returns enum ui_reaction bits, or -1 when it is not the prompt's key. */
int export_key(struct tui *t, int key);
/* Draws the prompt over the footer row y while it is open. */
void export_prompt_draw(struct tui *t, int y, int cols);

#endif /* THREADTOP_UI_EXPORT_KEY_H */
