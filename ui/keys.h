/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keys and reactions. The screen turns curses key codes into these codes so
 * that key handling (keys.c) is plain C without a terminal; handlers return
 * reaction flags (as htop's Action.c does) and never draw.
 */
#ifndef THREADTOP_UI_KEYS_H
#define THREADTOP_UI_KEYS_H

#include <stddef.h>

/* Printable keys are their ASCII code; the rest are above 0xff. */
enum ui_key {
	UK_NONE = 0,
	UK_TAB = '\t',
	UK_ENTER = '\n',
	UK_ESC = 27,
	UK_UP = 0x100,
	UK_DOWN,
	UK_LEFT,
	UK_RIGHT,
	UK_PGUP,
	UK_PGDN,
	UK_HOME,
	UK_END,
	UK_BACKSPACE,
	UK_BTAB, /* Shift-Tab */
	UK_DELETE,
	UK_F1,
	UK_F2,
	UK_F3,
	UK_F4,
	UK_F5,
	UK_F6,
	UK_F7,
	UK_F8,
	UK_F9,
	UK_F10,
	UK_RESIZE,
	UK_CTRL_L,
	UK_MOUSE,   /* a mouse event: the screen has its position */
	UK_IGNORED, /* input was read but means nothing here (a mouse release) */
};

/* What the front end does after a key: bits, combined. */
enum ui_reaction {
	RX_NONE = 0,
	RX_REDRAW = 1 << 0,  /* draw again from the rows already built */
	RX_REQUERY = 1 << 1, /* ask the model again (filter, drill, pane changed) */
	RX_RESORT = 1 << 2,  /* sort the rows already built again */
	RX_QUIT = 1 << 3,
	RX_CLEAR = 1 << 4, /* repaint the whole terminal (Ctrl-L) */
};

struct view;
struct view_env;

/* Applies key to v; returns enum ui_reaction bits. */
int keys_dispatch(struct view *v, const struct view_env *env, int key);

/* One line of the help screen: key and what it does. */
struct key_help {
	const char *keys;
	const char *what;
};
/* The common keys; the entry {NULL, NULL} is where the panes' own go. */
extern const struct key_help keys_help[];
extern const size_t keys_help_count;
/* The help screen's lines: the common keys with each pane's own in place of
 * keys_help's NULL entry. Line i lives as long as the program; NULL past
 * the end. */
size_t keys_help_lines(void);
const struct key_help *keys_help_line(size_t i);

/* The Group pane's dimensions (enum model_dim), in the picker's order. */
extern const int keys_group_dims[];
extern const size_t keys_group_dims_count;

#endif /* THREADTOP_UI_KEYS_H */
