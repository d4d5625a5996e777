/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The terminal: curses set-up and tear-down (or a headless virtual screen
 * for benchmarks), colour or monochrome (NO_COLOR, TERM without colours),
 * UTF-8 or ASCII line drawing by locale, key and mouse decoding into
 * enum ui_key, resize, and the drawing primitives every pane uses: clipped
 * text by display width, bars, and attribute roles.
 */
#ifndef THREADTOP_UI_SCREEN_H
#define THREADTOP_UI_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCREEN_MIN_COLS 80
#define SCREEN_MIN_ROWS 24

/* What a piece of screen is; the screen maps roles to colours or attributes. */
enum screen_role {
	ROLE_NORMAL,
	ROLE_TITLE,	   /* program line */
	ROLE_COLHEAD,	   /* column titles */
	ROLE_COLHEAD_SORT, /* the sort column's title */
	ROLE_SELECTED,	   /* the selected row */
	ROLE_FKEY,	   /* "F1" in the footer */
	ROLE_FLABEL,	   /* "Help" in the footer */
	ROLE_LABEL,	   /* meter labels */
	ROLE_VALUE,	   /* meter figures */
	ROLE_TAB,	   /* a pane tab */
	ROLE_TAB_ACTIVE,
	ROLE_CRUMB,
	ROLE_WARN,   /* drops, errors, too small */
	ROLE_DIM,    /* secondary text */
	ROLE_BAR,    /* share and meter bars */
	ROLE_KERNEL, /* kernel frames */
	ROLE_ST_R,   /* state colours: running */
	ROLE_ST_Q,   /* runnable, waiting for a CPU */
	ROLE_ST_S,   /* sleeping */
	ROLE_ST_D,   /* disk wait */
	ROLE_ST_OTHER,
	ROLE_MAX,
};

struct screen_opts {
	bool headless;	/* draw into a virtual terminal on /dev/null (benchmarks) */
	int rows, cols; /* headless size */
};

/* Opens the terminal (or the virtual one). Returns 0 or a negative errno. */
int screen_open(const struct screen_opts *o);
/* Restores the terminal. Safe to call when not open. */
void screen_close(void);

/* Re-reads the terminal size after SIGWINCH. */
void screen_resize(void);
void screen_size(int *rows, int *cols);
bool screen_utf8(void);

/*
 * Next key as enum ui_key or a character; UK_NONE when none is waiting,
 * UK_IGNORED when input was consumed that means nothing (read on).
 */
int screen_key(void);
/* The last UK_MOUSE event: position and what happened. */
struct screen_mouse {
	int y, x;
	bool click; /* button 1 pressed or clicked */
	int wheel;  /* -1 up, +1 down, 0 none */
};
void screen_mouse(struct screen_mouse *ret);

/* Starts a frame (clears), finishes it (updates the terminal). */
void screen_begin(bool clear_all);
void screen_end_frame(void);

/*
 * Draws s (UTF-8, already escaped) at y, x in at most width columns, padded
 * with spaces to width when pad. Returns the columns used.
 */
int screen_text(int y, int x, int width, const char *s, enum screen_role role, bool pad);
/* The same, right-aligned in width (a number column's cell or title). */
int screen_text_right(int y, int x, int width, const char *s, enum screen_role role);
/*
 * Draws s whole over at most h lines from y, cols wide, each filled with
 * role: wrapped at a space near the end of a line, never inside a UTF-8
 * character, the lines after the first indented by two. Returns the lines
 * used. (The selected line of the Log and Traces panes.)
 */
int screen_wrapped(int y, int h, int cols, const char *s, enum screen_role role);
/* Fills width columns at y, x with spaces in role. */
void screen_fill(int y, int x, int width, enum screen_role role);
/*
 * A bar of width columns: n parts with values (summing to at most full),
 * each drawn with its role and character (used in monochrome and ASCII).
 */
void screen_bar(int y, int x, int width, const double *parts, const enum screen_role *roles,
		const char *letters, size_t n, double full);
/* The tree-drawing prefix for a node: "├─ " or "|- " etc. */
const char *screen_tree_glyph(bool last, bool branch);

#endif /* THREADTOP_UI_SCREEN_H */
