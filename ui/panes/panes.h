/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The panes of the TUI behind one interface (as htop's Panel): what the
 * front end asks of whichever pane is on screen, and the table of the nine
 * panes. The table panes (Threads, Group, Syscalls) share one set of
 * operations (table.c, frame_build.c) and differ in their struct
 * table_pane: which columns each shows and what Enter on a row narrows to.
 */
#ifndef THREADTOP_UI_PANES_H
#define THREADTOP_UI_PANES_H

#include <stdbool.h>
#include <stddef.h>

#include "rows.h"
#include "view.h"

struct tui;
struct key_help;

struct table_pane {
	enum ui_pane pane;
	/* The columns for this view state into cols (cap entries); returns the count. */
	size_t (*columns)(const struct view *v, int *cols, size_t cap);
	/* The narrowing of row r; false when r cannot narrow. */
	bool (*drill)(const struct view *v, const struct rows_ctx *c, const struct model_row *r,
		      struct crumb *ret);
	/* Said when the pane has no rows. */
	const char *empty;
	/* The column to sort by when the one picked is not among the pane's. */
	int default_sort;
	/* --syscalls' exact counts and latencies join the rows (the Syscalls pane). */
	bool exact_syscalls;
	/* Rows with no active sample are hidden unless the view shows idle rows (i). */
	bool hide_idle;
	/* Puts the rows built and sorted in the pane's own order (a tree); NULL = none. */
	void (*arrange)(struct tui *t);
};

/*
 * One pane. An operation a pane has no use for is NULL, and the caller
 * takes NULL for "nothing to do": no rows, no match, nothing to narrow.
 */
struct pane_ops {
	/* The tab's title. */
	const char *name;
	/* The table panes' columns and narrowing; NULL for the other panes. */
	const struct table_pane *table;
	/* Asks the model (or a cache) for the pane's rows. Sets *header_done when
	 * the pane's query gave the header's box-wide totals as well. */
	void (*build)(struct tui *t, bool *header_done);
	/* Orders the rows already built again (a sort key, a subtree opened). */
	void (*sort)(struct tui *t);
	/* Rows the pane has now (the lines its selection moves over). */
	size_t (*rows)(const struct tui *t);
	/* Makes the rows up to want (SIZE_MAX: all), for a pane that makes
	 * them only as the screen and the keys reach them; returns the count made. */
	size_t (*rows_needed)(struct tui *t, size_t want);
	/* Draws the pane in h lines from line y, cols wide, and its layout for the mouse. */
	void (*draw)(struct tui *t, int y, int h, int cols);
	/* Enter on row: the narrowing into ret; false when the row cannot narrow. */
	bool (*drill)(struct tui *t, size_t row, struct crumb *ret);
	/* Whether row's text contains text (search, case-insensitive). */
	bool (*match)(struct tui *t, size_t row, const char *text);
	/* Stacks: op '+', '-', '*' (subtree), 'E' (all) on row. */
	void (*tree)(struct tui *t, size_t row, int op);
	/* The pane's own keys in the normal mode, tried before the common ones:
	 * enum ui_reaction bits, or -1 when key is not one of them. View state
	 * only, like keys_dispatch. */
	int (*key)(struct view *v, const struct view_env *env, int key);
	/* The DIM_BIT()s the pane's model query groups by... */
	unsigned dims;
	/* ...unless its view state decides them: sets the query's dimensions
	 * and narrows its filter for the pane. */
	void (*query)(const struct view *v, struct model_query *q);
	/* The pane a narrowing (Enter) shows... */
	enum ui_pane drill_to;
	/* ...unless the view state decides it. */
	enum ui_pane (*drill_target)(const struct view *v);
	/* The sortable columns of a pane that is not a table (the table's come
	 * from its struct table_pane). */
	const int *columns;
	size_t nr_columns;
	/* ...or, when set, those of the view state (the Stacks pane's modes). */
	const int *(*columns_of)(const struct view *v, size_t *ret_nr);
	/* The help screen's lines for the pane's own keys. */
	const struct key_help *help;
	size_t nr_help;
	/* The extension of the x key's default file name; NULL: "json". */
	const char *export_ext;
};

/* The nine panes, indexed by enum ui_pane (panes.c). */
extern const struct pane_ops *const ui_panes[PANE_MAX];

/* The operations shared by the table panes (table.c, frame_build.c). */
void table_pane_build(struct tui *t, bool *header_done);
void table_pane_sort(struct tui *t);
size_t table_pane_rows(const struct tui *t);
/* Sorts the rows up to want (SIZE_MAX: all) when they are not yet; returns the rows. */
size_t table_pane_rows_needed(struct tui *t, size_t want);
/* The rows as a copy of the pane's cache, for a pane that reorders them its own way. */
void table_pane_rows_own(struct tui *t);
void table_pane_draw(struct tui *t, int y, int h, int cols);
bool table_pane_drill(struct tui *t, size_t row, struct crumb *ret);
bool table_pane_match(struct tui *t, size_t row, const char *text);

#define TABLE_PANE_OPS                                                                             \
	.build = table_pane_build, .sort = table_pane_sort, .rows = table_pane_rows,               \
	.rows_needed = table_pane_rows_needed, .draw = table_pane_draw, .drill = table_pane_drill, \
	.match = table_pane_match

extern const struct pane_ops pane_threads_ops, pane_group_ops, pane_syscalls_ops;
extern const struct pane_ops pane_stacks_ops, pane_log_ops, pane_luajit_ops;
extern const struct pane_ops pane_use_ops, pane_traces_ops, pane_io_ops;

/*
 * The columns the Threads pane offers in its thread view (procs false) or
 * process view, in screen order, into *ret; their count. The Setup screen
 * (F2) switches each on or off: bit i of view.cols_on for entry i.
 */
size_t pane_threads_setup_cols(bool procs, const int **ret);
uint32_t pane_threads_default_mask(bool procs);

/*
 * The Stacks pane's stack pairs of query q (pane_stacks.c): the window's
 * on-CPU or off-CPU samples as the call tree takes them (the tracers',
 * LuaJIT threads' stitched ones in place of their own, else the thread
 * samples'), narrowed by q's filter, each pair with its time (a LuaJIT
 * sample weighs its interval: model__oncpu_stacks) and its samples in the
 * other source's period. *set is the caller's (free set->out);
 * *ret_total: all samples accepted, with or without stacks. Sets
 * t->stacks_traced and t->stacks_luajit. false when the query failed.
 */
struct model_stack_counts;
bool stacks_pairs(struct tui *t, const struct model_query *q, struct model_stack_counts *set,
		  uint64_t *ret_total);

/* The Stacks pane's hot-functions mode (pane_hot.c, view.stacks_hot), the pane's
 * operations there. */
void hot_build(struct tui *t);
void hot_sort(struct tui *t);
size_t hot_nr_rows(const struct tui *t);
size_t hot_rows_needed(struct tui *t, size_t want);
void hot_draw(struct tui *t, int y, int h, int cols);
bool hot_drill(struct tui *t, size_t row, struct crumb *ret);
bool hot_match(struct tui *t, size_t row, const char *text);
extern const int hot_columns[];
extern const size_t hot_nr_columns;
extern const char hot_title[];

/* ... and a hot function's source lines there (pane_lines.c, view.stacks_lines). */
void lines_build(struct tui *t);
size_t lines_nr_rows(const struct tui *t);
void lines_draw(struct tui *t, int y, int h, int cols);
bool lines_match(struct tui *t, size_t row, const char *text);

/* Appends " > "-free label text for a syscall ("epoll_wait", "no syscall"). */
void pane_syscall_label(int nr, char *buf, size_t len);

#endif /* THREADTOP_UI_PANES_H */
