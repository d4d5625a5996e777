// SPDX-License-Identifier: GPL-2.0-only
/*
 * The I/O pane (--io): block I/O requests per device over the window (w),
 * with IOPS, MB/s, reads and writes, p50/p99/mean latency, the share of the
 * requests the drill-down keeps and the log2 latency histogram (the Syscalls
 * pane's HIST column); Enter on a device shows its threads here (a device
 * narrows this pane alone), Enter on a thread narrows every pane to it and
 * shows the Threads pane. The rows come from io_rows.h, narrowed by the
 * drill-down's pid, tid and comm; sortable (< > F6 I, a click) and filtered
 * by the filter text (\) like the table panes. Without --io it says how to
 * get them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elide.h"
#include "keys.h"
#include "tui_internal.h"

/* The device whose threads the pane shows: the latest crumb that names one, or NULL. */
static const struct crumb *device_crumb(const struct view *v)
{
	for (size_t i = v->nr_crumbs; i-- > 0;)
		if (v->crumbs[i].io_dev)
			return &v->crumbs[i];
	return NULL;
}

static const int *io_columns_of(const struct view *v, size_t *ret_nr)
{
	const int *cols;

	*ret_nr = io_rows_columns(device_crumb(v) != NULL, &cols);
	return cols;
}

/* Identity of a row across refreshes (never 0: 0 is "none"). */
static uint64_t row_key(const struct io_row *r)
{
	return ((uint64_t)r->major << 52 ^ (uint64_t)r->minor << 32 ^ r->tid) + 1;
}

/* Keeps sort_col one of the pane's columns: IOPS first. */
static void fix_sort(struct tui *t)
{
	struct pane_view *pv = &t->view.per_pane[PANE_IO];
	size_t nr;
	const int *cols = io_columns_of(&t->view, &nr);

	for (size_t i = 0; i < nr; i++)
		if (cols[i] == pv->sort_col)
			return;
	pv->sort_col = COL_IOPS;
	pv->reverse = false;
}

/* The selected row's identity, 0 on the first row (the top stays the top as figures change). */
static uint64_t selected(const struct tui *t)
{
	const struct pane_view *pv = &t->view.per_pane[PANE_IO];

	return pv->sel && pv->sel < t->nr_io_rows ? row_key(&t->io_rows[pv->sel]) : 0;
}

/* Sorts the rows by the pane's column, and selects the row of key again. */
static void sort_keeping(struct tui *t, uint64_t key)
{
	struct pane_view *pv = &t->view.per_pane[PANE_IO];

	fix_sort(t);
	io_rows_sort(t->io_rows, t->nr_io_rows, pv->sort_col, pv->reverse);
	for (size_t i = 0; key && i < t->nr_io_rows; i++)
		if (row_key(&t->io_rows[i]) == key)
			pv->sel = i;
}

static void io_sort(struct tui *t)
{
	sort_keeping(t, selected(t));
}

static void io_build(struct tui *t, bool *header_done)
{
	const struct crumb *dev = device_crumb(&t->view);
	uint64_t key = selected(t);
	struct model_io_row *in = NULL;
	struct io_rows_query q = {0};
	struct model_filter f;
	int n;

	(void)header_done; /* the header asks the model itself */
	view_filter(&t->view, &f);
	q.threads = dev != NULL;
	q.major = dev ? dev->io_major : 0;
	q.minor = dev ? dev->io_minor : 0;
	q.pid = f.pid;
	q.tid = f.tid;
	q.comm_substr = f.comm_substr;
	n = model__io(t->model, t->header.window, &in);
	t->io_err = n < 0 ? n : 0;
	t->nr_io_rows = n > 0 ? io_rows_build(in, (size_t)n, &q, &t->io_rows, &t->cap_io_rows) : 0;
	free(in);
	t->io_total = io_rows_total(t->io_rows, t->nr_io_rows);
	t->nr_io_rows = io_rows_filter(t->io_rows, t->nr_io_rows, t->view.filter);
	sort_keeping(t, key);
}

static size_t io_nr_rows(const struct tui *t)
{
	return t->nr_io_rows;
}

static bool io_drill(struct tui *t, size_t row, struct crumb *c)
{
	const struct io_row *r = row < t->nr_io_rows ? &t->io_rows[row] : NULL;
	char name[TT_IO_DISK_LEN * 4 + 1];

	if (!r)
		return false;
	io_rows_cell(r, COL_DEVICE, 0, 0, name, sizeof(name)); /* escaped */
	if (!device_crumb(&t->view)) {
		c->io_dev = true;
		c->io_major = r->major;
		c->io_minor = r->minor;
		snprintf(c->label, sizeof(c->label), "device %.80s", name);
		return true;
	}
	if (r->other || !r->tid)
		return false; /* the threads past the model's bound are no one thread */
	c->tid = r->tid;
	snprintf(c->label, sizeof(c->label), "tid %u %.64s", r->tid, name);
	return true;
}

/* Enter on a device: its threads, here; on a thread: the Threads pane. */
static enum ui_pane io_drill_target(const struct view *v)
{
	return device_crumb(v) ? PANE_THREADS : PANE_IO;
}

static bool io_match(struct tui *t, size_t row, const char *text)
{
	return row < t->nr_io_rows && io_rows_match(&t->io_rows[row], text);
}

/* The line said when there are no rows: why, and how to get them. */
static const char *why_empty(const struct tui *t)
{
	const struct frontend_settings *o = t->host ? t->host->settings(t->host) : NULL;

	if (t->io_err == -EOPNOTSUPP)
		return "--io keeps no minute window: w for the last interval or the session";
	if (!(model__traced(t->model) & MODEL_TRACED_IO) && !(o && o->io))
		return "no block I/O traced: run with --io (as root, --source bpf)";
	if (t->view.filter[0])
		return "no row matches the filter (Esc clears it)";
	return "no block I/O requests in this window (yet)";
}

static void draw_row(struct tui *t, const struct io_row *r, int y, const int *xs, const int *ids,
		     size_t nr, bool sel)
{
	enum screen_role role = sel ? ROLE_SELECTED : ROLE_NORMAL;
	char buf[256], out[256];

	for (size_t k = 0; k < nr; k++) {
		const struct ui_column *c = &ui_columns[ids[k]];
		int w = cols_width(xs, k);

		io_rows_cell(r, ids[k], t->header.window_s, t->io_total, buf, sizeof(buf));
		if (ids[k] == COL_HIST)
			table_draw_hist(y, xs[k], w, r->hist, TT_IO_HIST_BUCKETS, role);
		else if (ids[k] == COL_SHARE)
			table_draw_share(y, xs[k], w, (double)r->count, (double)t->io_total, buf,
					 role);
		else if (c->kind == COLK_NUMBER)
			screen_text_right(y, xs[k], w, buf, role);
		else
			screen_text(y, xs[k], w,
				    elide_name(buf, w, screen_utf8(), out, sizeof(out)), role,
				    false);
	}
}

static void io_draw(struct tui *t, int y, int h, int cols)
{
	struct tui_layout *l = &t->layout;
	const struct pane_view *pv = &t->view.per_pane[PANE_IO];
	struct ui_column cs[TUI_MAX_COLS];
	int xs[TUI_MAX_COLS + 1], idx[TUI_MAX_COLS], ids[TUI_MAX_COLS];
	size_t nr_all, nr;
	const int *all = io_columns_of(&t->view, &nr_all);
	char out[256];

	for (size_t i = 0; i < nr_all && i < TUI_MAX_COLS; i++)
		cs[i] = ui_columns[all[i]];
	nr = cols_fit(cs, nr_all < TUI_MAX_COLS ? nr_all : TUI_MAX_COLS, cols, xs, idx);
	l->colhead_y = y;
	l->first_row_y = y + 1;
	l->nr_visible = h - 1;
	l->nr_cols = (int)nr;
	screen_fill(y, 0, cols, ROLE_COLHEAD);
	for (size_t k = 0; k < nr; k++) {
		const struct ui_column *c = &ui_columns[all[idx[k]]];
		enum screen_role role =
			all[idx[k]] == pv->sort_col ? ROLE_COLHEAD_SORT : ROLE_COLHEAD;
		int w = cols_width(xs, k);

		ids[k] = all[idx[k]];
		l->col_x[k] = xs[k];
		l->col_id[k] = ids[k];
		elide_end(c->title, w, screen_utf8(), out, sizeof(out));
		if (c->kind == COLK_NUMBER)
			screen_text_right(y, xs[k], w, out, role);
		else
			screen_text(y, xs[k], w, out, role, false);
	}
	l->col_x[nr] = xs[nr];
	if (!t->nr_io_rows) {
		screen_text(y + 2, 2, cols - 2,
			    elide_end(why_empty(t), cols - 2, screen_utf8(), out, sizeof(out)),
			    ROLE_DIM, false);
		return;
	}
	for (int k = 0; k < l->nr_visible; k++) {
		size_t i = pv->top + (size_t)k;

		if (i >= t->nr_io_rows)
			break;
		if (i == pv->sel)
			screen_fill(y + 1 + k, 0, cols, ROLE_SELECTED);
		draw_row(t, &t->io_rows[i], y + 1 + k, xs, ids, nr, i == pv->sel);
	}
}

static const struct key_help io_help[] = {
	{"Enter (I/O pane)", "on a device: its threads; on a thread: it, in the Threads pane"},
};

const struct pane_ops pane_io_ops = {
	.name = "I/O",
	.build = io_build,
	.sort = io_sort,
	.rows = io_nr_rows,
	.draw = io_draw,
	.drill = io_drill,
	.match = io_match,
	.drill_to = PANE_IO,
	.drill_target = io_drill_target,
	.columns_of = io_columns_of,
	.help = io_help,
	.nr_help = sizeof(io_help) / sizeof(io_help[0]),
};
