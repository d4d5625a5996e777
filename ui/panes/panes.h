/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The table panes (Threads, Group, Syscalls): which columns each shows and
 * what Enter on one of its rows narrows to. Pure data and logic, no curses;
 * table.c draws any of them.
 */
#ifndef THREADTOP_UI_PANES_H
#define THREADTOP_UI_PANES_H

#include <stdbool.h>
#include <stddef.h>

#include "rows.h"
#include "view.h"

struct table_pane {
	enum ui_pane pane;
	/* The columns for this view state into cols (cap entries); returns the count. */
	size_t (*columns)(const struct view *v, int *cols, size_t cap);
	/* The narrowing of row r; false when r cannot narrow. */
	bool (*drill)(const struct view *v, const struct rows_ctx *c, const struct model_row *r,
		      struct crumb *ret);
	/* Said when the pane has no rows. */
	const char *empty;
};

extern const struct table_pane pane_threads;
extern const struct table_pane pane_group;
extern const struct table_pane pane_syscalls;

/* The table pane of p, or NULL (Stacks, Log). */
const struct table_pane *table_pane_of(enum ui_pane p);

/* Appends " > "-free label text for a syscall ("epoll_wait", "no syscall"). */
void pane_syscall_label(int nr, char *buf, size_t len);

#endif /* THREADTOP_UI_PANES_H */
