// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LuaJIT pane: per LuaJIT process (when it has several LuaJIT threads)
 * and thread, the share of each VM state (INTERP ... TRACE) as a bar, the
 * samples and the fidelity the process achieved; below, the hot Lua
 * functions with self and total shares. Enter on a thread narrows to it;
 * on a function, every pane narrows to the threads that ran it and the
 * stacks that hold it. When no LuaJIT process is attached it says how to
 * attach one.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elide.h"
#include "keys.h"
#include "pane_luajit.h"
#include "screen.h"
#include "escape.h"
#include "lj_model.h"
#include "util.h"
#include "tui_internal.h"

#define LJ_PANE_FUNCS 200 /* functions listed at most */
#define LJ_BAR_WIDTH 40

enum lj_line_kind {
	LJL_PROC,   /* a process with several LuaJIT threads: their sum */
	LJL_THREAD, /* one LuaJIT thread */
	LJL_STATE,  /* one VM state of the block above */
	LJL_FUNCS,  /* the title of the functions */
	LJL_FUNC,   /* one Lua function */
};

struct lj_line {
	enum lj_line_kind kind;
	unsigned state; /* LJL_STATE */
	size_t block;	/* LJL_PROC, LJL_THREAD, LJL_STATE: index into blocks */
	size_t func;	/* LJL_FUNC: index into funcs */
};

struct lj_block {
	struct lj_thread_row row; /* a process's block has tid 0 */
	char comm[TT_COMM_LEN];
	size_t nr_threads;
};

struct lj_fn {
	char *name; /* a copy: the model's names live until the next ingest */
	uint64_t ip, self, total, trace;
};

struct lj_pane {
	struct lj_block *blocks;
	size_t nr_blocks;
	struct lj_fn *funcs;
	size_t nr_funcs;
	struct lj_line *lines;
	size_t nr_lines, cap_lines;
	uint64_t samples;	  /* of the threads shown */
	uint64_t session_samples; /* of every LuaJIT thread, session */
};

void lj_vm_shares(const uint64_t *counts, uint64_t samples, double *ret)
{
	for (int s = 0; s < TT_LJ_VMSTATE_MAX; s++) {
		uint64_t c = counts[s] < samples ? counts[s] : samples;

		ret[s] = samples ? (double)c / (double)samples : 0.0;
	}
}

char *lj_bar_text(double share, int width, bool utf8, char *buf, size_t len)
{
	static const char *const eighths[] = {"",	"\u258f", "\u258e", "\u258d",
					      "\u258c", "\u258b", "\u258a", "\u2589"};
	size_t o = 0;
	long cells8;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (share != share || share < 0 || width <= 0) /* NaN, negative */
		return buf;
	if (share > 1)
		share = 1;
	cells8 = (long)(share * width * 8 + 0.5);
	for (long i = 0; i < cells8 / 8; i++) {
		const char *c = utf8 ? "\u2588" : "#";
		size_t n = strlen(c);

		if (o + n >= len)
			return buf;
		memcpy(buf + o, c, n + 1);
		o += n;
	}
	if (utf8 && cells8 % 8 && o + 4 < len)
		snprintf(buf + o, len - o, "%s", eighths[cells8 % 8]);
	return buf;
}

void lj_pane__free(struct lj_pane *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_funcs; i++)
		free(p->funcs[i].name);
	free(p->funcs);
	free(p->blocks);
	free(p->lines);
	free(p);
}

static void add_line(struct lj_pane *p, enum lj_line_kind kind, unsigned state, size_t block,
		     size_t func)
{
	xgrow((void **)&p->lines, &p->cap_lines, p->nr_lines + 1, sizeof(*p->lines));
	p->lines[p->nr_lines++] = (struct lj_line){kind, state, block, func};
}

/* The thread's comm as the thread table knows it. */
static void thread_comm(struct model *m, uint32_t tid, char *buf)
{
	struct model_result res;
	struct model_query q;

	buf[0] = '\0';
	model_query_init(&q);
	q.filter.tid = tid;
	q.window = WIN_SESSION;
	if (model__query(m, &q, &res) < 0)
		return;
	if (res.nr && res.rows[0].comm)
		snprintf(buf, TT_COMM_LEN, "%s", res.rows[0].comm);
	model_result__release(&res);
}

/* Whether the view's filter keeps LuaJIT thread r. */
static bool keep_thread(struct tui *t, const struct model_filter *f, const struct lj_thread_row *r,
			const char *comm)
{
	if (f->tid && r->tid != f->tid)
		return false;
	if (f->comm_substr && !strstr(comm, f->comm_substr))
		return false;
	if (lj_frame_is_lua(f->stack_ip) &&
	    !lj_model__thread_ran(model__luajit(t->model), r->tid, f->stack_ip))
		return false;
	return true;
}

static void add_block(struct lj_pane *p, const struct lj_block *b)
{
	size_t i = p->nr_blocks++;

	p->blocks = xrealloc(p->blocks, p->nr_blocks * sizeof(*p->blocks));
	p->blocks[i] = *b;
	add_line(p, b->row.tid ? LJL_THREAD : LJL_PROC, 0, i, 0);
	for (unsigned s = 0; s < TT_LJ_VMSTATE_MAX; s++)
		add_line(p, LJL_STATE, s, i, 0);
}

/* Blocks of the threads kept, a process's sum first when it has several. */
static void build_blocks(struct tui *t, struct lj_pane *p, const struct model_filter *f,
			 struct lj_thread_row *rows, size_t n)
{
	struct lj_block *kept = xcalloc(n + 1, sizeof(*kept));
	bool *done = xcalloc(n + 1, sizeof(*done));
	size_t nk = 0;

	for (size_t i = 0; i < n; i++) {
		kept[nk].row = rows[i];
		kept[nk].nr_threads = 1;
		thread_comm(t->model, rows[i].tid, kept[nk].comm);
		if (keep_thread(t, f, &rows[i], kept[nk].comm)) {
			p->samples += rows[i].samples;
			nk++;
		}
	}
	/* Rows come most samples first: a process shows where its busiest thread is. */
	for (size_t i = 0; i < nk; i++) {
		struct lj_block sum = kept[i];

		if (done[i])
			continue;
		sum.row.tid = 0;
		sum.nr_threads = 0;
		memset(sum.row.counts, 0, sizeof(sum.row.counts));
		sum.row.samples = 0;
		for (size_t j = i; j < nk; j++) {
			if (kept[j].row.pid != kept[i].row.pid)
				continue;
			for (int s = 0; s < TT_LJ_VMSTATE_MAX; s++)
				sum.row.counts[s] += kept[j].row.counts[s];
			sum.row.samples += kept[j].row.samples;
			sum.nr_threads++;
		}
		if (sum.nr_threads > 1)
			add_block(p, &sum);
		for (size_t j = i; j < nk; j++) {
			if (kept[j].row.pid != kept[i].row.pid)
				continue;
			add_block(p, &kept[j]);
			done[j] = true;
		}
	}
	free(done);
	free(kept);
}

static void build_funcs(struct tui *t, struct lj_pane *p, const struct model_filter *f)
{
	struct lj_func_row *rows = NULL;
	uint32_t tid = f->tid;
	int n;

	/* One thread shown: its functions; else those of the process (or all). */
	if (!tid && p->nr_blocks == 1)
		tid = p->blocks[0].row.tid;
	n = lj_model__functions(model__luajit(t->model), t->header.window, f->pid, tid,
				LJ_PANE_FUNCS, &rows);
	if (n > 0) {
		p->funcs = xcalloc((size_t)n, sizeof(*p->funcs));
		for (int i = 0; i < n; i++)
			p->funcs[i] = (struct lj_fn){xstrdup(rows[i].name), rows[i].ip,
						     rows[i].self, rows[i].total, rows[i].trace};
		p->nr_funcs = (size_t)n;
	}
	free(rows);
	if (!p->nr_blocks)
		return;
	add_line(p, LJL_FUNCS, 0, 0, 0);
	for (size_t i = 0; i < p->nr_funcs; i++)
		add_line(p, LJL_FUNC, 0, 0, i);
}

/* What a line is, kept across rebuilds: a function's tag, or kind, state, pid and tid. */
static uint64_t line_key(const struct lj_pane *p, const struct lj_line *l)
{
	const struct lj_block *b;

	if (l->kind == LJL_FUNC)
		return p->funcs[l->func].ip;
	if (l->kind == LJL_FUNCS)
		return 1;
	b = &p->blocks[l->block];
	return (uint64_t)l->kind << 60 | (uint64_t)(l->state & 0xf) << 56 |
	       (uint64_t)(b->row.pid & 0xffffff) << 28 | (b->row.tid & 0xfffffff);
}

/* Keeps the selected line selected when the lines move (a refresh reorders functions). */
static void follow_selection(struct tui *t, uint64_t key)
{
	const struct lj_pane *p = t->luajit;
	struct pane_view *pv = &t->view.per_pane[PANE_LUAJIT];

	for (size_t i = 0; key && i < p->nr_lines; i++)
		if (line_key(p, &p->lines[i]) == key) {
			pv->sel = i;
			return;
		}
}

static void luajit_build(struct tui *t, bool *header_done)
{
	struct lj_model *lm = model__luajit(t->model);
	const struct pane_view *pv = &t->view.per_pane[PANE_LUAJIT];
	struct lj_thread_row *rows = NULL;
	struct model_filter f;
	struct lj_pane *p;
	uint64_t key = 0;
	int n;

	if (t->luajit && pv->sel && pv->sel < t->luajit->nr_lines)
		key = line_key(t->luajit, &t->luajit->lines[pv->sel]);
	lj_pane__free(t->luajit);
	p = t->luajit = xcalloc(1, sizeof(*p));
	p->session_samples = lj_model__samples(lm);
	view_filter(&t->view, &f);
	n = lj_model__threads(lm, t->header.window, f.pid, &rows);
	if (n > 0)
		build_blocks(t, p, &f, rows, (size_t)n);
	free(rows);
	build_funcs(t, p, &f);
	follow_selection(t, key);
}

static size_t luajit_nr_rows(const struct tui *t)
{
	return t->luajit ? t->luajit->nr_lines : 0;
}

static const struct lj_block *block_of(const struct lj_pane *p, const struct lj_line *l)
{
	return l->kind == LJL_FUNCS || l->kind == LJL_FUNC ? NULL : &p->blocks[l->block];
}

static bool luajit_drill(struct tui *t, size_t row, struct crumb *c)
{
	const struct lj_pane *p = t->luajit;
	const struct lj_line *l;
	const struct lj_block *b;
	char name[64];

	if (!p || row >= p->nr_lines)
		return false;
	l = &p->lines[row];
	if (l->kind == LJL_FUNCS)
		return false;
	if (l->kind == LJL_FUNC) {
		const struct lj_fn *fn = &p->funcs[l->func];

		c->stack_ip = fn->ip;
		escape_for_terminal(fn->name, strlen(fn->name), name, sizeof(name));
		snprintf(c->label, sizeof(c->label), "lua %s", name);
		return true;
	}
	b = block_of(p, l);
	escape_for_terminal(b->comm, strlen(b->comm), name, sizeof(name));
	c->pid = b->row.pid;
	c->tid = b->row.tid;
	if (b->row.tid)
		snprintf(c->label, sizeof(c->label), "tid %u %s", b->row.tid, name);
	else
		snprintf(c->label, sizeof(c->label), "pid %u %s", b->row.pid, name);
	return true;
}

/*
 * The text of a block's title line in at most width columns: the parts
 * that fit, whole, the sampling period first to go, then the fidelity.
 */
static void block_text(const struct lj_block *b, int width, char *buf, size_t len)
{
	char comm[TT_COMM_LEN * 4], tail[64];
	size_t o;

	escape_for_terminal(b->comm, strlen(b->comm), comm, sizeof(comm));
	if (b->row.tid)
		o = (size_t)snprintf(buf, len, "pid %-7u tid %-7u %-16s %8" PRIu64 " samples",
				     b->row.pid, b->row.tid, comm, b->row.samples);
	else
		o = (size_t)snprintf(buf, len, "pid %-7u %zu threads %-12s %8" PRIu64 " samples",
				     b->row.pid, b->nr_threads, comm, b->row.samples);
	if (o >= len)
		return;
	snprintf(tail, sizeof(tail), "  fidelity %u/10 (%s)", b->row.fidelity,
		 b->row.agentless ? "bpf" : "library");
	if (elide_width(buf) + elide_width(tail) > width)
		return;
	o += (size_t)snprintf(buf + o, len - o, "%s", tail);
	if (b->row.tid)
		snprintf(tail, sizeof(tail), "  every %.1f ms", b->row.weight_us / 1000.0);
	else
		snprintf(tail, sizeof(tail), " (process)");
	if (o < len && elide_width(buf) + elide_width(tail) <= width)
		snprintf(buf + o, len - o, "%s", tail);
}

/* The function list's columns, fitted as the table panes' are (cols_fit). */
enum { FC_SELF, FC_TOTAL, FC_TRACE, FC_NAME, FC_MAX };
static const struct ui_column func_cols[FC_MAX] = {
	[FC_SELF] = {"SELF%", 9, COLK_NUMBER, 0, 0, NULL},
	[FC_TOTAL] = {"TOTAL%", 7, COLK_NUMBER, 60, 0, NULL},
	[FC_TRACE] = {"TRACE%", 8, COLK_NUMBER, 50, 0, NULL},
	[FC_NAME] = {"HOT LUA FUNCTIONS", 0, COLK_TEXT, 0, 30, NULL},
};

struct func_layout {
	int x[FC_MAX + 1], idx[FC_MAX];
	size_t nr;
};

static void func_cell(const struct lj_pane *p, const struct lj_fn *fn, int col, char *buf,
		      size_t len)
{
	double all = p->samples ? (double)p->samples : 1.0;

	if (col == FC_SELF)
		snprintf(buf, len, "%.1f%%", 100.0 * (double)fn->self / all);
	else if (col == FC_TOTAL)
		snprintf(buf, len, "%.1f%%", 100.0 * (double)fn->total / all);
	else if (col == FC_TRACE)
		snprintf(buf, len, "%.1f%%",
			 fn->self ? 100.0 * (double)fn->trace / (double)fn->self : 0.0);
	else
		escape_for_terminal(fn->name, strlen(fn->name), buf, len);
}

/* The text search looks in: every column, the whole name. */
static void func_text(const struct lj_pane *p, const struct lj_fn *fn, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int c = 0; c < FC_MAX && o + 1 < len; c++) {
		func_cell(p, fn, c, buf + o, len - o);
		o += strlen(buf + o);
		if (o + 1 < len)
			buf[o++] = ' ', buf[o] = '\0';
	}
}

/* A function's line, or with fn NULL the title line, by the layout. */
static void draw_func(const struct lj_pane *p, const struct lj_fn *fn, const struct func_layout *fl,
		      int y, enum screen_role role)
{
	char cell[320], fit[320];

	for (size_t k = 0; k < fl->nr; k++) {
		int c = fl->idx[k], w = cols_width(fl->x, k), cw;

		if (!fn && c == FC_NAME)
			snprintf(cell, sizeof(cell), "%s",
				 w >= 51   ? "HOT LUA FUNCTIONS (Enter narrows every pane to one)"
				 : w >= 31 ? "HOT LUA FUNCTIONS (Enter narrows)"
					   : func_cols[c].title);
		else if (!fn)
			snprintf(cell, sizeof(cell), "%s", func_cols[c].title);
		else
			func_cell(p, fn, c, cell, sizeof(cell));
		/* A long name (a long chunk path) loses its middle, marked. */
		elide_name(cell, w, screen_utf8(), fit, sizeof(fit));
		cw = elide_width(fit);
		screen_text(y, fl->x[k] + (c != FC_NAME && w > cw ? w - cw : 0), w, fit, role,
			    false);
	}
}

static bool luajit_match(struct tui *t, size_t row, const char *text)
{
	const struct lj_pane *p = t->luajit;
	const struct lj_line *l;
	char buf[320];

	if (!p || row >= p->nr_lines)
		return false;
	l = &p->lines[row];
	if (l->kind == LJL_FUNC)
		func_text(p, &p->funcs[l->func], buf, sizeof(buf));
	else if (l->kind == LJL_STATE)
		snprintf(buf, sizeof(buf), "%s", lj_vmstate_name(l->state));
	else if (l->kind == LJL_FUNCS)
		return false;
	else
		block_text(block_of(p, l), INT_MAX, buf, sizeof(buf));
	return strcasestr(buf, text) != NULL;
}

static void draw_empty(struct tui *t, int y, int cols)
{
	const struct lj_pane *p = t->luajit;
	char buf[256];

	if (p && p->session_samples) {
		snprintf(buf, sizeof(buf),
			 "no LuaJIT samples in this window for this view (%" PRIu64
			 " in the session): w changes the window, Esc backs up",
			 p->session_samples);
		screen_text(y, 2, cols - 2, buf, ROLE_DIM, false);
		return;
	}
	/* Lines that fit 80 columns whole. */
	screen_text(y, 2, cols - 2, "No LuaJIT process is attached.", ROLE_WARN, false);
	screen_text(y + 1, 2, cols - 2,
		    "Start one with the sysprof library: threadtop run -- luajit app.lua",
		    ROLE_NORMAL, false);
	screen_text(y + 2, 2, cols - 2,
		    "or, while threadtop runs, LD_PRELOAD=libthreadtop-sysprof.so luajit app.lua",
		    ROLE_NORMAL, false);
	screen_text(y + 3, 2, cols - 2,
		    "or require(\"sysprof\") in the program: threadtop picks it up with no",
		    ROLE_NORMAL, false);
	screen_text(y + 4, 2, cols - 2, "set-up (BPF source, as root).", ROLE_NORMAL, false);
	if (!strcmp(t->source, "proc"))
		screen_text(y + 6, 2, cols - 2,
			    "This run uses the /proc source: LuaJIT samples need the BPF source.",
			    ROLE_WARN, false);
}

static void draw_state(const struct lj_pane *p, const struct lj_line *l, int y, int cols,
		       enum screen_role role)
{
	const struct lj_block *b = &p->blocks[l->block];
	double shares[TT_LJ_VMSTATE_MAX];
	char buf[LJ_BAR_WIDTH * 3 + 8], text[32];
	int w = cols - 21 < LJ_BAR_WIDTH ? cols - 21 : LJ_BAR_WIDTH;

	lj_vm_shares(b->row.counts, b->row.samples, shares);
	snprintf(text, sizeof(text), "    %-7s %5.1f%% ", lj_vmstate_name(l->state),
		 100.0 * shares[l->state]);
	screen_text(y, 0, 20, text, b->row.counts[l->state] ? role : ROLE_DIM, false);
	lj_bar_text(shares[l->state], w, screen_utf8(), buf, sizeof(buf));
	screen_text(y, 20, cols - 20, buf, role == ROLE_SELECTED ? role : ROLE_BAR, false);
}

/* The title in the words that fit: the minute window's remark is the first to go. */
static void title_text(const struct tui *t, int cols, char *buf, size_t len)
{
	const char *win = view_window_name(t->header.window);

	snprintf(buf, len, "LUAJIT VM STATES per process and thread, %s%s", win,
		 t->header.window == WIN_MINUTE ? " (LuaJIT keeps the session)" : "");
	if (elide_width(buf) > cols)
		snprintf(buf, len, "LUAJIT VM STATES per process and thread, %s", win);
	if (elide_width(buf) > cols)
		snprintf(buf, len, "LUAJIT VM STATES, %s", win);
}

static void luajit_draw(struct tui *t, int y, int h, int cols)
{
	struct tui_layout *l = &t->layout;
	const struct lj_pane *p = t->luajit;
	const struct pane_view *pv = &t->view.per_pane[PANE_LUAJIT];
	struct func_layout fl;
	char buf[320];

	l->colhead_y = y;
	l->first_row_y = y + 1;
	l->nr_visible = h - 1;
	l->nr_cols = 0;
	fl.nr = cols_fit(func_cols, FC_MAX, cols, fl.x, fl.idx);
	screen_fill(y, 0, cols, ROLE_COLHEAD);
	title_text(t, cols, buf, sizeof(buf));
	screen_text(y, 0, cols, buf, ROLE_COLHEAD, false);
	if (!p || !p->nr_lines) {
		draw_empty(t, y + 2, cols);
		return;
	}
	for (int k = 0; k < l->nr_visible; k++) {
		size_t i = pv->top + (size_t)k;
		const struct lj_line *ln;
		enum screen_role role;

		if (i >= p->nr_lines)
			break;
		ln = &p->lines[i];
		role = i == pv->sel ? ROLE_SELECTED : ROLE_NORMAL;
		if (role == ROLE_SELECTED)
			screen_fill(y + 1 + k, 0, cols, ROLE_SELECTED);
		switch (ln->kind) {
		case LJL_STATE:
			draw_state(p, ln, y + 1 + k, cols, role);
			break;
		case LJL_FUNCS:
			screen_fill(y + 1 + k, 0, cols, ROLE_COLHEAD);
			draw_func(p, NULL, &fl, y + 1 + k, ROLE_COLHEAD);
			break;
		case LJL_FUNC:
			draw_func(p, &p->funcs[ln->func], &fl, y + 1 + k, role);
			break;
		default:
			block_text(block_of(p, ln), cols, buf, sizeof(buf));
			screen_text(y + 1 + k, 0, cols, buf,
				    role == ROLE_SELECTED ? role : ROLE_LABEL, false);
			break;
		}
	}
}

static const struct key_help luajit_help[] = {
	{"Enter on a Lua function",
	 "LuaJIT: narrow every pane to the threads and stacks that ran it"},
};

const struct pane_ops pane_luajit_ops = {
	.name = "LuaJIT",
	.build = luajit_build,
	.rows = luajit_nr_rows,
	.draw = luajit_draw,
	.drill = luajit_drill,
	.match = luajit_match,
	.drill_to = PANE_LUAJIT,
	.help = luajit_help,
	.nr_help = 1,
};
