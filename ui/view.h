/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * View state of the TUI, without a terminal: which pane is shown, the
 * drill-down breadcrumb, per-pane selection, scroll and sort, the search and
 * filter texts, hide flags, pause, the time window and the group-by
 * dimensions. It turns that state into model queries. Unit-tested without
 * curses (tests/unit/test_ui_view.c).
 */
#ifndef THREADTOP_UI_VIEW_H
#define THREADTOP_UI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

enum ui_pane {
	PANE_THREADS,
	PANE_GROUP,
	PANE_SYSCALLS,
	PANE_STACKS,
	PANE_LOG,
	PANE_LUAJIT,
	PANE_USE,    /* USE metrics per component, the verdict, sparklines */
	PANE_TRACES, /* --trace lines and --cmd output */
	PANE_IO,     /* --io block requests per device, and a device's threads */
	PANE_MAX,
};

enum ui_mode {
	MODE_NORMAL,
	MODE_SEARCH, /* typing after / */
	MODE_FILTER, /* typing after \ */
	MODE_HELP,
	MODE_GROUP, /* the group-by picker (g) */
	MODE_SORT,  /* the sort-column picker (F6) */
	MODE_SETUP, /* the column chooser (F2 Setup) */
	MODE_DELAY, /* typing a new interval after d */
};

#define VIEW_MAX_CRUMBS 8
#define VIEW_TEXT 64
#define CRUMB_LABEL 96

/*
 * One drill-down step: the filter fields it narrows and the label the
 * breadcrumb shows. Unset fields are the "any" values of struct model_filter.
 */
struct crumb {
	uint32_t pid, tid;
	uint32_t state_mask;
	int syscall; /* MODEL_ANY_SYSCALL = any */
	uint32_t wchan_id;
	uint32_t target_id; /* 0 = any: an fd target's string id */
	uint64_t cgroup_id;
	uint64_t stack_ip;
	uint32_t labels_id; /* 0 = any; MODEL_NO_LABELS = samples without labels */
	bool io_dev;	    /* the I/O pane shows the threads of device io_major:io_minor */
	uint32_t io_major, io_minor;
	char comm[16];		 /* "" = any */
	char label[CRUMB_LABEL]; /* already escaped for the terminal */
	enum ui_pane from;	 /* the pane Esc returns to */
	bool to_tree;		 /* the Stacks pane shows its call tree after it (a hot function) */
	bool from_hot;		 /* ... and the hot functions again after Esc */
	/* A hot function's source lines (a): the function as hotfuncs names
	 * it (stack_ip, its process, inlined level, kernel bit). */
	bool to_lines, from_lines;
	uint32_t fn_pid;
	uint8_t fn_level;
	bool fn_kernel;
};

struct pane_view {
	size_t sel;   /* selected row */
	size_t top;   /* first row on screen */
	int sort_col; /* enum ui_col */
	bool reverse;
	uint64_t sel_key; /* identity of the selected row, kept across refreshes */
};

struct view {
	enum ui_pane pane;
	enum ui_mode mode;
	struct crumb crumbs[VIEW_MAX_CRUMBS];
	size_t nr_crumbs;
	struct pane_view per_pane[PANE_MAX]; /* by enum ui_pane */
	unsigned group_dims;		     /* DIM_BIT()s of the Group pane */
	size_t picker_sel;		     /* cursor of the group or sort picker */
	char search[VIEW_TEXT];
	char filter[VIEW_TEXT];
	char edit[VIEW_TEXT]; /* text being typed at the prompt */
	char saved_filter[VIEW_TEXT];
	bool hide_kthreads;
	bool procs;	     /* the Threads pane shows one row per process (H), unless narrowed */
	bool tree;	     /* ... in process tree order (F5, t) */
	uint32_t cols_on[2]; /* F2 Setup: the columns shown of the thread [0] and process [1]
			      * views, bit i for entry i of pane_threads_setup_cols */
	bool setup_changed;  /* cols_on changed since the rc file was written */
	double delay_s;	     /* the interval now, for the d prompt */
	double delay_asked;  /* d: the interval typed, for the front end to set (0 = none) */
	bool show_idle;	     /* the Group and Syscalls panes show idle rows too (i) */
	bool has_labels;     /* the model knows --label names: the Threads pane shows them */
	bool paused;
	bool offcpu;	     /* Stacks pane: off-CPU (not running) samples, else on-CPU */
	bool stacks_by_comm; /* Stacks pane: one root node per comm, not per process */
	bool tree_touched;   /* the user expanded or collapsed a stack node */
	bool stacks_hot;     /* Stacks pane: the hot functions (f), not the call tree */
	bool stacks_lines;   /* ... a hot function's source lines (a): the last such crumb's */
	enum model_window window;
	size_t help_top;
	char status[256]; /* a one-line message, shown in the footer for a few seconds */
};

/*
 * What keys need to know about the pane's rows; the front end (or a test)
 * provides it. Callbacks may be NULL.
 */
struct view_env {
	size_t nr_rows;
	size_t page;	 /* rows that fit on the screen */
	const int *cols; /* the pane's sortable columns, left to right */
	size_t nr_cols;
	/* Fills c with the narrowing of row i; false when that row cannot narrow. */
	bool (*drill)(void *ctx, size_t i, struct crumb *c);
	/* Whether row i's text contains text (search). */
	bool (*match)(void *ctx, size_t i, const char *text);
	/* Stacks pane: op '+', '-', 'e' (subtree), 'E' (all), on row i. */
	void (*tree)(void *ctx, size_t i, int op);
	/* Identity of row i (kept selected across refreshes). */
	uint64_t (*key)(void *ctx, size_t i);
	void *ctx;
};

void view_init(struct view *v);

const char *view_pane_name(enum ui_pane p);
const char *view_window_name(enum model_window w);

/* Narrows to c (copied) and switches to pane `to`; false when the stack is full. */
bool view_push(struct view *v, const struct crumb *c, enum ui_pane to);
/* Pops the last narrowing and returns to its pane; false when at the top. */
bool view_pop(struct view *v);
/* "all > pid 4242 nginx > S": the breadcrumb into buf. Returns buf. */
char *view_breadcrumb(const struct view *v, char *buf, size_t len);

/* Whether the Threads pane shows processes now: H is on and no crumb names a pid or tid. */
bool view_procs(const struct view *v);

/* The filter every pane's query uses: the crumbs merged, plus hide flags. */
void view_filter(const struct view *v, struct model_filter *ret);
/* The model query of pane p (dims and filter; the UI sorts rows itself). */
void view_query(const struct view *v, enum ui_pane p, struct model_query *ret);

/* Moves the selection by delta rows (clamped) and keeps it on screen. */
void view_move(struct view *v, long delta, size_t nr_rows, size_t page);
/* Selects row i (clamped) and keeps it on screen. */
void view_select(struct view *v, size_t i, size_t nr_rows, size_t page);
/* Clamps selection and scroll after the row count or page size changed. */
void view_clamp(struct view *v, size_t nr_rows, size_t page);

/* Sorts by column col; the same column again reverses. */
void view_sort_by(struct view *v, int col);
/* Moves the sort column to the previous (dir < 0) or next column of cols. */
void view_sort_step(struct view *v, const int *cols, size_t nr_cols, int dir);

/* The label of the selected window, e.g. "last 1.0s" is built by the caller. */
void view_cycle_window(struct view *v);

/* The sample states the Stacks pane shows (on-CPU: R; off-CPU: the rest). */
uint32_t view_stack_states(const struct view *v);

#endif /* THREADTOP_UI_VIEW_H */
