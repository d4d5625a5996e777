// SPDX-License-Identifier: GPL-2.0-only
/*
 * View state (see view.h): the breadcrumb stack, per-pane selection and
 * sort, and the model queries the panes ask. No curses.
 */
#include <stdio.h>
#include <string.h>

#include "panes.h"
#include "rows.h"
#include "view.h"

void view_init(struct view *v)
{
	memset(v, 0, sizeof(*v));
	v->pane = PANE_THREADS;
	v->group_dims = DIM_BIT(DIM_STATE) | DIM_BIT(DIM_SYSCALL);
	v->window = WIN_LAST;
	v->cols_on[0] = pane_threads_default_mask(false);
	v->cols_on[1] = pane_threads_default_mask(true);
	for (int p = 0; p < PANE_MAX; p++) {
		const struct table_pane *tp = ui_panes[p]->table;

		v->per_pane[p].sort_col = tp ? tp->default_sort : COL_SAMPLES;
	}
}

const char *view_pane_name(enum ui_pane p)
{
	return p < PANE_MAX ? ui_panes[p]->name : "?";
}

const char *view_window_name(enum model_window w)
{
	switch (w) {
	case WIN_INTERVAL:
		return "this interval";
	case WIN_MINUTE:
		return "last minute";
	case WIN_SESSION:
		return "session";
	case WIN_LAST:
		return "last interval";
	default:
		return "?";
	}
}

bool view_push(struct view *v, const struct crumb *c, enum ui_pane to)
{
	if (v->nr_crumbs >= VIEW_MAX_CRUMBS) {
		snprintf(v->status, sizeof(v->status), "drill-down is %d levels deep at most",
			 VIEW_MAX_CRUMBS);
		return false;
	}
	v->crumbs[v->nr_crumbs] = *c;
	v->crumbs[v->nr_crumbs].from = v->pane;
	v->crumbs[v->nr_crumbs].from_hot = v->stacks_hot;
	v->crumbs[v->nr_crumbs].from_lines = v->stacks_lines;
	if (c->to_tree || c->to_lines)
		v->stacks_hot = false;
	v->stacks_lines = c->to_lines;
	v->nr_crumbs++;
	v->pane = to;
	v->per_pane[to].sel = v->per_pane[to].top = 0;
	v->per_pane[to].sel_key = 0;
	return true;
}

bool view_pop(struct view *v)
{
	if (!v->nr_crumbs)
		return false;
	v->nr_crumbs--;
	v->pane = v->crumbs[v->nr_crumbs].from;
	v->stacks_hot = v->crumbs[v->nr_crumbs].from_hot;
	v->stacks_lines = v->crumbs[v->nr_crumbs].from_lines;
	return true;
}

char *view_breadcrumb(const struct view *v, char *buf, size_t len)
{
	size_t o = 0;

	o += (size_t)snprintf(buf, len, "all");
	for (size_t i = 0; i < v->nr_crumbs && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, " > %s", v->crumbs[i].label);
	return buf;
}

void view_filter(const struct view *v, struct model_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->syscall = MODEL_ANY_SYSCALL;
	for (size_t i = 0; i < v->nr_crumbs; i++) {
		const struct crumb *c = &v->crumbs[i];

		if (c->pid)
			f->pid = c->pid;
		if (c->tid)
			f->tid = c->tid;
		if (c->state_mask)
			f->state_mask =
				f->state_mask ? f->state_mask & c->state_mask : c->state_mask;
		if (c->syscall != MODEL_ANY_SYSCALL)
			f->syscall = c->syscall;
		if (c->wchan_id)
			f->wchan_id = c->wchan_id;
		if (c->target_id)
			f->target_id = c->target_id;
		if (c->cgroup_id)
			f->cgroup_id = c->cgroup_id;
		if (c->stack_ip)
			f->stack_ip = c->stack_ip;
		if (c->labels_id)
			f->labels_id = c->labels_id;
		if (c->comm[0])
			f->comm_substr = c->comm;
	}
	f->hide_kthreads = v->hide_kthreads;
}

bool view_procs(const struct view *v)
{
	if (!v->procs)
		return false;
	for (size_t i = 0; i < v->nr_crumbs; i++)
		if (v->crumbs[i].pid || v->crumbs[i].tid)
			return false;
	return true;
}

uint32_t view_stack_states(const struct view *v)
{
	uint32_t on = 1u << TT_ST_R;

	/* Off-CPU: every state but running, and not idle kernel threads. */
	return v->offcpu ? ((1u << TT_ST_MAX) - 1) & ~on & ~(1u << TT_ST_I) : on;
}

void view_query(const struct view *v, enum ui_pane p, struct model_query *q)
{
	model_query_init(q);
	q->window = v->window;
	view_filter(v, &q->filter);
	q->dims = p < PANE_MAX ? ui_panes[p]->dims : 0;
	if (p < PANE_MAX && ui_panes[p]->query)
		ui_panes[p]->query(v, q);
}

static void keep_visible(struct pane_view *pv, size_t page)
{
	if (!page)
		page = 1;
	if (pv->sel < pv->top)
		pv->top = pv->sel;
	else if (pv->sel >= pv->top + page)
		pv->top = pv->sel - page + 1;
}

void view_clamp(struct view *v, size_t nr_rows, size_t page)
{
	struct pane_view *pv = &v->per_pane[v->pane];

	if (!nr_rows) {
		pv->sel = pv->top = 0;
		return;
	}
	if (pv->sel >= nr_rows)
		pv->sel = nr_rows - 1;
	if (page && pv->top + page > nr_rows)
		pv->top = nr_rows > page ? nr_rows - page : 0;
	keep_visible(pv, page);
}

void view_select(struct view *v, size_t i, size_t nr_rows, size_t page)
{
	v->per_pane[v->pane].sel = i;
	view_clamp(v, nr_rows, page);
}

void view_move(struct view *v, long delta, size_t nr_rows, size_t page)
{
	struct pane_view *pv = &v->per_pane[v->pane];
	long sel = (long)pv->sel + delta;

	if (sel < 0 || !nr_rows)
		sel = 0;
	else if ((size_t)sel >= nr_rows)
		sel = (long)nr_rows - 1;
	pv->sel = (size_t)sel;
	view_clamp(v, nr_rows, page);
}

void view_sort_by(struct view *v, int col)
{
	struct pane_view *pv = &v->per_pane[v->pane];

	if (pv->sort_col == col)
		pv->reverse = !pv->reverse;
	else
		pv->sort_col = col, pv->reverse = false;
}

void view_sort_step(struct view *v, const int *cols, size_t nr_cols, int dir)
{
	struct pane_view *pv = &v->per_pane[v->pane];
	size_t i;

	if (!nr_cols)
		return;
	for (i = 0; i < nr_cols && cols[i] != pv->sort_col; i++)
		;
	if (i == nr_cols)
		i = 0;
	else if (dir < 0)
		i = i ? i - 1 : nr_cols - 1;
	else
		i = (i + 1) % nr_cols;
	pv->sort_col = cols[i];
	pv->reverse = false;
}

void view_cycle_window(struct view *v)
{
	static const enum model_window order[] = {WIN_LAST, WIN_MINUTE, WIN_SESSION};
	size_t i;

	for (i = 0; i < 3 && order[i] != v->window; i++)
		;
	v->window = order[(i + 1) % 3];
}
