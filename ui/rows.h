/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Columns over model rows, shared by the Threads, Group and Syscalls panes:
 * each column's title, width and alignment, how a cell reads as text
 * (escaped: every string from another process passes escape_for_terminal),
 * how rows compare for sorting, and text matching for search and filter.
 * No curses here, so sorting and filtering are unit-tested.
 */
#ifndef THREADTOP_UI_ROWS_H
#define THREADTOP_UI_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

enum ui_col {
	COL_PID,
	COL_TID,
	COL_COMM,
	COL_STATE,   /* the thread's latest state (Threads), or the group's state */
	COL_CPU,     /* %CPU, 100 = one CPU */
	COL_ACTIVE,  /* average active threads */
	COL_MIX,     /* a bar of the state mix */
	COL_SYSCALL, /* the latest syscall (Threads), or the group's */
	COL_FRAME,   /* top frame: leaf function, else wchan */
	COL_SAMPLES,
	COL_SHARE, /* share of all samples, with a bar */
	COL_THREADS,
	COL_WCHAN,
	COL_KLEAF,
	COL_ULEAF,
	COL_CGROUP,
	COL_CMD,
	COL_COUNT, /* exact syscall figures (--syscalls) */
	COL_TIME,
	COL_P50,
	COL_P99,
	COL_HIST,   /* log2 latency histogram as a sparkline */
	COL_LABELS, /* application labels "name=value ..." (--label) */
	COL_USER,   /* the process's user (name, else uid) */
	COL_NICE,
	COL_RES,   /* resident memory of the process */
	COL_TIMEP, /* TIME+: CPU time so far, top's minutes:seconds.hundredths */
	/* The Stacks pane's hot functions (pane_hot.c), to sort by: */
	COL_SELF,     /* SELF%: samples whose leaf the function is */
	COL_TOTAL,    /* TOTAL%: samples with the function on the stack */
	COL_FUNCTION, /* the function's name */
	COL_MODULE,   /* its binary or library, [kernel] */
	COL_PROCS,    /* the processes it ran in */
	COL_TARGET,   /* what the syscall's fd names: a path, a socket's addresses, a pipe */
	/* The I/O pane's (--io, pane_io.c, io_rows.h): */
	COL_DEVICE, /* the block device's name */
	COL_IOPS,   /* requests per second over the window */
	COL_MBS,    /* MB/s (10^6 bytes) over the window */
	COL_READS,  /* read requests */
	COL_WRITES, /* write requests */
	COL_MEAN,   /* mean latency */
	COL_MAX,
};

enum col_kind {
	COLK_TEXT,
	COLK_NUMBER, /* right-aligned, sorts descending first */
	COLK_BAR,    /* drawn by the screen, not as text */
};

struct ui_column {
	const char *title;
	int width; /* columns on screen; 0 = takes the rest */
	enum col_kind kind;
	/*
	 * Where the screen is too narrow for every column, the lowest priority
	 * goes first (0: never dropped), until the columns that take the rest
	 * get at least min_width each.
	 */
	int priority;
	int min_width;	 /* of a column that takes the rest */
	const char *key; /* its name in the rc file and the Setup screen's */
};

/*
 * The columns of a pane, cs[0..n) in screen order, fitted to cols screen
 * columns (80x24 is the minimum): the lowest-priority columns are dropped
 * whole until the flexible ones (width 0) get their min_width, then the
 * flexible ones share what is left. ret_idx[k] is the index in cs of the
 * k-th column kept, ret_x[k] its x and ret_x[count] the end of the last
 * (each column is followed by one blank). Returns the count kept. Every
 * pane with columns lays them out with this (columns.c).
 */
size_t cols_fit(const struct ui_column *cs, size_t n, int cols, int *ret_x, int *ret_idx);
/* "12.3%": part of total to one decimal, "0.0%" when total is 0. Returns buf. */
char *rows_share(uint64_t part, uint64_t total, char *buf, size_t len);
/* Width of the k-th column of a cols_fit layout. */
static inline int cols_width(const int *x, size_t k)
{
	return x[k + 1] - x[k] - 1;
}

/* The column called key (ui_columns[].key), or -1. */
int rows_col_by_key(const char *key);

extern const struct ui_column ui_columns[COL_MAX];

/* Exact figures of one syscall over the rows' threads (--syscalls). */
#define UI_SC_MAX 1024
struct sc_stat {
	uint64_t count, total_ns;
	uint64_t hist[TT_SYSCALL_HIST_BUCKETS]; /* log2 ns buckets */
};

/* The latency below which pct percent of the calls fall (a bucket's upper bound), ns. */
uint64_t sc_percentile(const struct sc_stat *s, double pct);

/* Column formats (columns.c). "12.3M" from bytes; TIME+ ("12:34.56") from ns. */
void cols_fmt_bytes(uint64_t bytes, char *buf, size_t len);
void cols_fmt_timep(uint64_t ns, char *buf, size_t len);
/* A latency: "850ns", "12us", "3.4ms", "1.2s". */
void cols_fmt_ns(uint64_t ns, char *buf, size_t len);
/* Whether col is one of --syscalls' exact columns; what it sorts by; its cell ("-" for none). */
bool cols_is_sc(int col);
uint64_t cols_sc_value(const struct sc_stat *s, int col);
void cols_sc_cell(const struct sc_stat *s, int col, char *buf, size_t len);

/* What cells need besides the row: the model (dictionaries) and totals. */
struct rows_ctx {
	const struct model *m;	/* may be NULL in tests: no dictionary look-ups */
	unsigned dims;		/* the query's DIM_BIT()s */
	uint64_t total_samples; /* for COL_SHARE */
	bool cpu_valid;
	const struct sc_stat *sc; /* UI_SC_MAX entries by syscall nr, or NULL (no --syscalls) */
};

/*
 * The text of cell col of r into buf (escaped, NUL-terminated). Bars get
 * their figure ("42%"). Returns buf.
 */
char *rows_cell(const struct rows_ctx *c, const struct model_row *r, int col, char *buf,
		size_t len);

/* Whether col sorts largest first (figures) rather than ascending (keys, names). */
bool rows_col_descends(int col);

/* Compares two rows by col: figures descending, keys ascending. */
int rows_compare(const struct rows_ctx *c, const struct model_row *a, const struct model_row *b,
		 int col);
/* Sorts rows by col (reverse flips the order); stable on pid, tid. */
void rows_sort(const struct rows_ctx *c, struct model_row *rows, size_t nr, int col, bool reverse);
/*
 * The same for the first k only: the k rows that come first in that order
 * at rows[0, k), in order, the others after them in no order (a row per
 * thread of 100,000 for the 50 a screen shows: one look at each row, not a
 * sort). Returns how many rows are in order: k, or nr when k is most.
 */
size_t rows_sort_first(const struct rows_ctx *c, struct model_row *rows, size_t nr, int col,
		       bool reverse, size_t k);

/* Whether any text cell of r (comm, cmdline, syscall, frame, pid...) contains text. */
bool rows_match(const struct rows_ctx *c, const struct model_row *r, const int *cols,
		size_t nr_cols, const char *text);
/* Keeps only the rows that match text; returns the new count. */
size_t rows_filter(const struct rows_ctx *c, struct model_row *rows, size_t nr, const int *cols,
		   size_t nr_cols, const char *text);

/*
 * Whether r is idle: sampled, but never in an active state (asleep, idle,
 * stopped, zombie: model_state_active). The Group and Syscalls panes hide
 * such rows unless asked (xtop's habit: the load, not the sleepers).
 */
bool rows_idle(const struct model_row *r);
/* Keeps the rows that are not idle; returns the new count. */
size_t rows_drop_idle(struct model_row *rows, size_t nr);

/* A hash of the row's key fields: the same group in two refreshes. */
uint64_t rows_key(const struct model_row *r);

/* The labels of labels_id as "name=value name=value" into buf, escaped for
 * the terminal; "-" when none. Returns buf. */
char *rows_labels(const struct model *m, uint32_t labels_id, char *buf, size_t len);

/* Formats an address as a frame: "0xffffffff8123abcd" (names come later). */
char *rows_frame(const struct model *m, uint64_t ip, bool kernel, char *buf, size_t len);
/* Formats a frame of process pid by name ("do_sys_poll [k]", "main"), through
 * the model's frame namer; "0x..." when it has none (a replay) or pid is 0
 * for a user frame. Escaped for the terminal. */
char *rows_frame_pid(const struct model *m, uint32_t pid, uint64_t ip, bool kernel, char *buf,
		     size_t len);
/* The same for function number `inlined` of those inlined at ip (1 = the
 * outermost; 0 = the frame's own function), "name [inlined]". */
char *rows_frame_inlined(const struct model *m, uint32_t pid, uint64_t ip, bool kernel,
			 unsigned inlined, char *buf, size_t len);

#endif /* THREADTOP_UI_ROWS_H */
