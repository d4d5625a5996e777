/* SPDX-License-Identifier: GPL-2.0-only */
/* The TUI's state shared by its drawing files (tui.c owns it). */
#ifndef THREADTOP_UI_TUI_INTERNAL_H
#define THREADTOP_UI_TUI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "panes.h"
#include "rows.h"
#include "screen.h"
#include "stack_rows.h"
#include "calltree.h"
#include "hotfuncs.h"
#include "hotlines.h"
#include "io_rows.h"
#include "source_file.h"
#include "model.h"
#include "threadtop/capture_view.h"
#include "use_model.h"
#include "u64map.h"
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
	struct model_rate rate; /* the sampling clock over the window: asked, achieved, missed */
	uint64_t intervals;
	enum model_window window; /* the window actually queried */
	struct model_now now;	  /* threads alive at the latest pass, by state */
	bool has_host;		  /* host: the box's load, uptime, memory (model__host) */
	struct tt_host_stats host;
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

/*
 * What a pane's model data depends on: the query, and the model's data
 * generation. Two frames with equal keys would ask the model the same and
 * get the same answer, so the second reuses the first's rows or tree.
 */
struct frame_key {
	bool valid;
	uint64_t gen; /* tui.data_gen: bumped when an interval closes or a replay moves */
	uint64_t intervals, interval_start_ns, session_start_ns;
	uint64_t events, now_ns; /* only for windows that grow between intervals */
	unsigned traced;	 /* model__traced() */
	struct model_query query;
	char comm[TT_COMM_LEN]; /* query.filter.comm_substr's text (the pointer is not kept) */
	bool offcpu;
	bool by_comm; /* the Stacks pane's processes merge by comm (view.stacks_by_comm) */
};

/* A table pane's rows as the model gave them, before the text filter and the sort. */
struct table_cache {
	struct frame_key key;
	struct model_row *rows;
	size_t nr, cap;		    /* cap: rows allocated, filled again at the next refresh */
	char (*comms)[TT_COMM_LEN]; /* copies: rows outlive the model's threads */
	size_t cap_comms;
	struct rows_ctx rows_ctx;
	/* rows[0, sorted) are in the order of sorted_col, sorted_reverse; the rest after them. */
	size_t sorted;
	int sorted_col;
	bool sorted_reverse;
	struct sc_stat *exact; /* UI_SC_MAX exact syscall figures (Syscalls pane, --syscalls) */
	bool show_exact;       /* exact holds figures: the pane shows the exact columns */
};

#define TUI_TABLE_PANES 3 /* Threads, Group, Syscalls: enum ui_pane 0..2 */

/* The header's box-wide totals of a window, kept for frames of the same data. */
struct header_cache {
	struct frame_key key;
	uint64_t states[TT_ST_MAX];
	double cpu_pct, active, samples_per_s;
};

struct tui {
	const struct frontend_host *host; /* NULL when headless */
	struct model *model;
	const char *source;
	unsigned hz;
	double delay_s;
	struct view view;
	int redraw_timer;

	uint64_t data_gen; /* see struct frame_key */
	uint64_t log_seen; /* log_total() at the Log pane's last frame */

	/*
	 * The table pane's rows (Threads, Group, Syscalls), sorted: the pane's
	 * cache itself when every row of it is shown, else filtered copies in
	 * rows_buf (their comm points into the cache). A copy of every row took
	 * 31 MB beside 100,000 threads; whatever reorders rows other than by the
	 * pane's sort asks for the copy first (table_pane_rows_own).
	 */
	const struct table_pane *table; /* the pane on screen's, NULL when not a table */
	struct model_row *rows;
	size_t nr_rows;
	struct model_row *rows_buf;
	size_t cap_rows; /* of rows_buf: allocated, kept across refreshes */
	/* rows[0, rows_sorted) are in the pane's order, the rest after them in none
	 * (table_pane_rows_needed sorts them as the screen and keys reach them). */
	size_t rows_sorted;
	size_t hidden_idle; /* idle rows the pane leaves out (table_pane.hide_idle) */
	bool rows_tree;	    /* rows are in process tree order: tree_depth, tree_last hold */
	uint8_t *tree_depth, *tree_last;
	size_t cap_tree;
	struct rows_ctx rows_ctx;
	int columns[TUI_MAX_COLS]; /* enum ui_col, left to right */
	size_t nr_columns;
	struct table_cache table_caches[TUI_TABLE_PANES];
	struct header_cache header_cache;

	/* The Stacks pane. */
	struct calltree *tree;
	struct frame_key tree_key;    /* what tree was built from */
	struct stack_rows stack_rows; /* its rows, made as far as the screen needs */
	struct u64map *expanded;      /* path hash -> (void *)1 */
	bool all_expanded;	      /* E: everything expanded */
	uint64_t stack_weight;	 /* time of the window's samples with any stack: shares of it */
	uint64_t window_samples; /* all samples the stack query accepted */
	bool stacks_traced; /* from the BPF tracers (model__oncpu/offcpu), not thread samples */
	bool stacks_luajit; /* LuaJIT threads' stacks with Lua frames among them */
	/* ... its hot functions (pane_hot.c): the set, what it was built from,
	 * the rows the filter text keeps (indexes into hot->funcs, sorted). */
	struct hotfuncs *hot;
	struct hotfuncs_cache *hot_cache; /* its stacks' functions, kept between sets */
	struct frame_key hot_key;
	uint32_t *hot_rows;
	size_t nr_hot_rows, cap_hot_rows;
	char hot_filter[VIEW_TEXT];
	/* ... a hot function's source lines (pane_lines.c), and the files read for them. */
	struct hotlines *lines;
	struct frame_key lines_key;
	struct source_files *sources;

	struct lj_pane *luajit; /* the LuaJIT pane's lines (pane_luajit.c) */

	/* The I/O pane (pane_io.c): its rows, the requests their shares are
	 * of, and the model's answer (0, or -EOPNOTSUPP: a window it lacks). */
	struct io_row *io_rows;
	size_t nr_io_rows, cap_io_rows;
	uint64_t io_total;
	int io_err;

	/* The Traces pane (pane_capture.c): its text lines, each tracepoint's rate. */
	struct cap_line *trace_lines;
	size_t nr_trace_lines;
	double trace_rate[TRACE_MAX_EVENTS]; /* lines/s of the last interval */
	double trace_interval_s;

	struct header_info header;
	uint64_t now_gen, now_events; /* what header.now was counted from (data_gen + 1, events) */
	struct tui_layout layout;
	char shown_status[sizeof(((struct view *)0)->status)]; /* the status on screen... */
	uint64_t status_since_ns;			       /* ...since then (monotonic) */
	bool clear_next; /* repaint the whole terminal at the next frame (Ctrl-L, resize) */
	bool quit;
	struct timeline *timeline;	     /* replay time travel (timeline.c), NULL live */
	struct export_prompt *export_prompt; /* the x key's file-name prompt (export_key.c) */
};

/* Rows the current pane has (table rows, tree rows or log lines). A pane
 * that makes its rows lazily counts those made (tui_rows_needed makes enough). */
size_t tui_nr_rows(const struct tui *t);
/* Makes the rows of a lazy pane (Stacks) that the screen and the keys may
 * reach: two pages past the selection, or all of them (End, search). */
void tui_rows_needed(struct tui *t, size_t page, bool all);

/* The columns the pane on screen sorts by (< > F6), left to right; their count in *ret_nr. */
const int *tui_sort_columns(const struct tui *t, size_t *ret_nr);

/* frame_build.c: asking the model, through the caches. */
void tui_build(struct tui *t);
void tui_sort_rows(struct tui *t);
void tui_remember_selection(struct tui *t);
void tui_caches_free(struct tui *t);
/* The key of query q against the model's data now. */
void frame_key_make(const struct tui *t, const struct model_query *q, struct frame_key *ret);
bool frame_key_equal(const struct frame_key *a, const struct frame_key *b);

/*
 * A log2 latency histogram of nr buckets (at most 64) as a sparkline in w
 * cells, two buckets a cell from 256 ns (bucket 8) up, the shorter ones in
 * the first: the HIST column of the Syscalls and I/O panes (table.c).
 */
void table_draw_hist(int y, int x, int w, const uint64_t *hist, int nr, enum screen_role role);
/* A SHARE cell: a bar of part of total, its figure fig at the right. */
void table_draw_share(int y, int x, int w, double part, double total, const char *fig,
		      enum screen_role role);

void header_draw(struct tui *t, int cols);
/* The verdict for the screen in at most width columns, escaped into buf
 * (len bytes): the longest of its wordings that fits. Returns buf. */
const char *verdict_fit(const struct use_verdict *v, int width, char *buf, size_t len);
void footer_draw(struct tui *t, int y, int cols);
void lj_pane__free(struct lj_pane *p);
/* The saturation cell of a USE row: "SAT 1.60 runnable/CPU >1.00". */
void use_pane_saturation(const struct tt_use_metric *r, char *buf, size_t len);
void capture_pane_clear(struct tui *t);
/* An interval closed: takes each tracepoint's rate before its counts restart. */
void capture_pane_interval(struct tui *t, double interval_s);
void help_draw(struct tui *t, int rows, int cols);
void picker_draw(struct tui *t, int rows, int cols);

/* Page size of the main pane: rows that fit between the headers and footer. */
int tui_page(const struct tui *t, int rows);

#endif /* THREADTOP_UI_TUI_INTERNAL_H */
