/* SPDX-License-Identifier: GPL-2.0-only */
/* The TUI's state shared by its drawing files (tui.c owns it). */
#ifndef THREADTOP_UI_TUI_INTERNAL_H
#define THREADTOP_UI_TUI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "panes.h"
#include "rows.h"
#include "threadtop/calltree.h"
#include "threadtop/model.h"
#include "threadtop/trace.h"
#include "threadtop/use_model.h"
#include "threadtop/u64map.h"
#include "tui.h"
#include "view.h"

#define TUI_MAX_COLS 16

/* Box-wide figures of the header, from the model. */
struct header_info {
	double cpu_pct; /* sum over threads, 100 = one CPU */
	int ncpu;
	double active;
	double window_s;
	size_t nr_threads;
	uint64_t states[TT_ST_MAX];
	double samples_per_s;
	uint64_t drops_interval, drops_session;
	double tick_ms;
	uint64_t intervals;
	enum model_window window; /* the window actually queried */
};

/* Where things were drawn, for the mouse. */
struct tui_layout {
	int tabs_y;
	int tab_x[PANE_MAX + 1];
	int colhead_y;
	int first_row_y;
	int nr_visible;
	int col_x[TUI_MAX_COLS + 1];
	int col_id[TUI_MAX_COLS];
	int nr_cols;
	int footer_y;
	int fkey_x[11]; /* start of F1..F10 in the footer, 0 = not shown */
	bool too_small;
};

struct tui {
	struct app *app; /* NULL when headless */
	struct model *m;
	const char *source;
	unsigned hz;
	double delay_s;
	struct view v;
	int redraw_timer;

	/* The table pane's rows (Threads, Group, Syscalls). */
	const struct table_pane *tp;
	struct model_row *rows;
	size_t nr_rows;
	char (*comms)[TT_COMM_LEN]; /* copies: rows outlive the model's threads */
	size_t cap_comms;
	struct rows_ctx rc;
	struct sc_stat *sc; /* UI_SC_MAX exact syscall figures (Syscalls pane, --syscalls) */
	int cols[TUI_MAX_COLS];
	size_t nr_cols;

	/* The Stacks pane. */
	struct calltree *tree;
	uint32_t *flat;
	size_t nr_flat;
	struct u64map *expanded; /* path hash -> (void *)1 */
	bool tree_all;		 /* E: everything expanded */
	uint64_t stack_samples;	 /* samples of the window with any stack */
	uint64_t window_samples; /* all samples the stack query accepted */
	bool stacks_traced; /* from the BPF tracers (model__oncpu/offcpu), not thread samples */
	bool stacks_luajit; /* LuaJIT threads' stacks with Lua frames among them */

	struct lj_pane *lj; /* the LuaJIT pane's lines (pane_luajit.c) */

	/* The Traces pane (pane_capture.c): its text lines, each tracepoint's rate. */
	struct cap_line *caplines;
	size_t nr_caplines;
	double trace_rate[TRACE_MAX_EVENTS]; /* lines/s of the last interval */
	double trace_interval_s;

	struct header_info hi;
	struct tui_layout lay;
	bool clear_next;
	bool quit;
	struct timeline *tl;	  /* replay time travel (timeline.c), NULL live */
	struct export_prompt *xp; /* the x key's file-name prompt (export_key.c) */
};

/* Rows the current pane has (table rows, tree rows or log lines). */
size_t tui_nr_rows(const struct tui *t);

void header_draw(struct tui *t, int cols);
void footer_draw(struct tui *t, int y, int cols);
void table_draw(struct tui *t, int y, int h, int cols);
void stacks_draw(struct tui *t, int y, int h, int cols);
void stacks_build(struct tui *t);
void stacks_flatten(struct tui *t);
void stacks_tree_op(struct tui *t, size_t row, int op);
bool stacks_drill(struct tui *t, size_t row, struct crumb *c);
bool stacks_match(struct tui *t, size_t row, const char *text);
struct lj_pane;
void luajit_build(struct tui *t);
void luajit_draw(struct tui *t, int y, int h, int cols);
size_t luajit_nr_rows(const struct tui *t);
bool luajit_drill(struct tui *t, size_t row, struct crumb *c);
bool luajit_match(struct tui *t, size_t row, const char *text);
void lj_pane__free(struct lj_pane *p);
void log_pane_draw(struct tui *t, int y, int h, int cols);
bool log_pane_match(size_t row, const char *text);
size_t use_pane_rows(struct tui *t);
bool use_pane_match(struct tui *t, size_t row, const char *text);
void use_pane_draw(struct tui *t, int y, int h, int cols);
/* The saturation cell of a USE row: "SAT 1.60 runnable/CPU >1.00". */
void use_pane_saturation(const struct tt_use_metric *r, char *buf, size_t len);
void capture_pane_build(struct tui *t);
void capture_pane_clear(struct tui *t);
/* An interval closed: takes each tracepoint's rate before its counts restart. */
void capture_pane_interval(struct tui *t, double interval_s);
bool capture_pane_match(struct tui *t, size_t row, const char *text);
void capture_pane_draw(struct tui *t, int y, int h, int cols);
void help_draw(struct tui *t, int rows, int cols);
void picker_draw(struct tui *t, int rows, int cols);

/* Page size of the main pane: rows that fit between the headers and footer. */
int tui_page(const struct tui *t, int rows);

#endif /* THREADTOP_UI_TUI_INTERNAL_H */
