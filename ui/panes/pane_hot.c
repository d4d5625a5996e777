// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Stacks pane's hot functions (f): perf top's flat view, one row per
 * function with SELF% (samples whose leaf it is) and TOTAL% (samples with
 * it on the stack), its module and the processes it ran in, over the same
 * stack pairs as the call tree (stacks_pairs), on-CPU or off-CPU (o). The
 * figures come from the model's hot functions (hotfuncs.h), the ones batch
 * JSON and the JSON report write. Sortable (< > F6 I, a click), filtered by
 * the filter text (\) on name, module and process; Enter narrows the call
 * tree to the stacks through the function: its callers above it, its
 * callees below; a opens its hottest source lines (pane_lines.c). Esc
 * comes back here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elide.h"
#include "escape.h"
#include "lj_model.h"
#include "screen.h"
#include "util.h"
#include "tui_internal.h"

enum { HC_SELF, HC_TOTAL, HC_COUNT, HC_FUNC, HC_MODULE, HC_PROCS, HC_MAX };
static const int hc_col_id[HC_MAX] = {COL_SELF,	    COL_TOTAL,	COL_SAMPLES,
				      COL_FUNCTION, COL_MODULE, COL_PROCS};

const int hot_columns[] = {COL_SELF, COL_TOTAL, COL_FUNCTION, COL_MODULE};
const size_t hot_nr_columns = sizeof(hot_columns) / sizeof(hot_columns[0]);
const char hot_title[] = "HOT FUNCTIONS";

static enum hotfuncs_sort sort_of(int col)
{
	switch (col) {
	case COL_TOTAL:
		return HOTFUNCS_BY_TOTAL;
	case COL_FUNCTION:
		return HOTFUNCS_BY_NAME;
	case COL_MODULE:
		return HOTFUNCS_BY_MODULE;
	default:
		return HOTFUNCS_BY_SELF;
	}
}

static bool passes(const struct hotfunc *f, const char *text)
{
	char buf[HOTFUNC_NAME_LEN];

	return !text[0] || strcasestr(hotfunc_name(f, buf), text) ||
	       (f->module && strcasestr(f->module, text)) || strcasestr(f->comm, text);
}

/* The rows the filter text keeps, in the set's order, keeping the selected function. */
static void refilter(struct tui *t)
{
	struct pane_view *pv = &t->view.per_pane[PANE_STACKS];
	const struct hotfunc *was =
		t->hot && pv->sel < t->nr_hot_rows ? t->hot->funcs[t->hot_rows[pv->sel]] : NULL;
	char name[256] = "", module[256] = "";

	if (was) { /* the set may be sorted again under it: by name */
		char buf[HOTFUNC_NAME_LEN];

		snprintf(name, sizeof(name), "%s", hotfunc_name(was, buf));
		snprintf(module, sizeof(module), "%s", was->module ? was->module : "");
	}
	snprintf(t->hot_filter, sizeof(t->hot_filter), "%s", t->view.filter);
	t->nr_hot_rows = 0;
	if (!t->hot)
		return;
	xgrow((void **)&t->hot_rows, &t->cap_hot_rows, t->hot->nr + 1, sizeof(*t->hot_rows));
	for (size_t i = 0; i < t->hot->sorted; i++)
		if (passes(t->hot->funcs[i], t->hot_filter))
			t->hot_rows[t->nr_hot_rows++] = (uint32_t)i;
	if (!name[0] || !pv->sel)
		return; /* on the first row: stay on top as the figures change */
	for (size_t r = 0; r < t->nr_hot_rows; r++) {
		const struct hotfunc *f = t->hot->funcs[t->hot_rows[r]];
		char buf[HOTFUNC_NAME_LEN];

		if (!strcmp(hotfunc_name(f, buf), name) &&
		    !strcmp(f->module ? f->module : "", module)) {
			pv->sel = r;
			return;
		}
	}
}

void hot_sort(struct tui *t)
{
	const struct pane_view *pv = &t->view.per_pane[PANE_STACKS];

	if (!t->hot)
		return;
	/* The first screens only: the rest when the rows are asked for (End, a search). */
	hotfuncs__sort_first(t->hot, sort_of(pv->sort_col), pv->reverse,
			     t->view.filter[0] ? SIZE_MAX : HOTFUNCS_SORT_FIRST);
	refilter(t);
}

size_t hot_rows_needed(struct tui *t, size_t want)
{
	if (t->hot && want > t->nr_hot_rows && t->hot->sorted < t->hot->nr) {
		hotfuncs__sort_more(t->hot, want);
		refilter(t);
	}
	return hot_nr_rows(t);
}

void hot_build(struct tui *t)
{
	struct model_stack_counts set;
	struct frame_key fk;
	struct model_query q;
	uint64_t total;

	view_query(&t->view, PANE_STACKS, &q);
	q.window = t->header.window;
	frame_key_make(t, &q, &fk);
	if (t->hot && frame_key_equal(&fk, &t->hot_key)) {
		if (strcmp(t->hot_filter, t->view.filter))
			hot_sort(t); /* the same data, other text */
		return;
	}
	hotfuncs__free(t->hot);
	t->hot = NULL;
	if (stacks_pairs(t, &q, &set, &total)) {
		if (!t->hot_cache)
			t->hot_cache = hotfuncs_cache__new();
		t->hot = hotfuncs__new_cached(t->hot_cache, t->model, set.out, set.nr);
	}
	free(set.out);
	t->window_samples = total;
	t->hot_key = fk;
	hot_sort(t);
}

size_t hot_nr_rows(const struct tui *t)
{
	return t->hot ? t->nr_hot_rows : 0;
}

static const struct hotfunc *row_func(const struct tui *t, size_t row)
{
	return t->hot && row < t->nr_hot_rows ? t->hot->funcs[t->hot_rows[row]] : NULL;
}

/* "name [k]": the function as the call tree names it, escaped. */
static void func_text(const struct hotfunc *f, char *buf, size_t len)
{
	char name[480], addr[HOTFUNC_NAME_LEN];
	const char *s = hotfunc_name(f, addr);

	escape_for_terminal(s, strlen(s), name, sizeof(name));
	snprintf(buf, len, "%s%s", name,
		 f->kernel		  ? " [k]"
		 : f->level		  ? " [inlined]"
		 : lj_frame_is_lua(f->ip) ? " [lua]"
					  : "");
}

/* "comm [pid]", "+N" more, or the count alone when the function is in many. */
static void procs_text(const struct hotfunc *f, char *buf, size_t len)
{
	char comm[TT_COMM_LEN * 4 + 1];

	if (!f->nr_pids) {
		snprintf(buf, len, "-");
		return;
	}
	escape_for_terminal(f->comm, strlen(f->comm), comm, sizeof(comm));
	if (f->nr_pids == 1)
		snprintf(buf, len, "%s [%u]", comm[0] ? comm : "[unknown]", f->pids[0]);
	else
		snprintf(buf, len, "%s [%u] +%u%s", comm[0] ? comm : "[unknown]", f->pids[0],
			 f->nr_pids - 1u, f->more_pids ? "+" : "");
}

bool hot_drill(struct tui *t, size_t row, struct crumb *c)
{
	const struct hotfunc *f = row_func(t, row);
	char buf[512], name[CRUMB_LABEL];

	if (!f || !f->ip)
		return false;
	func_text(f, buf, sizeof(buf));
	c->stack_ip = f->ip;
	c->to_tree = true; /* the call tree of the stacks through it */
	c->fn_pid = f->pid;
	c->fn_level = f->level;
	c->fn_kernel = f->kernel;
	elide_name(buf, (int)sizeof(c->label) - 11, screen_utf8(), name, sizeof(name));
	snprintf(c->label, sizeof(c->label), "function %.*s", (int)sizeof(c->label) - 10, name);
	return true;
}

bool hot_match(struct tui *t, size_t row, const char *text)
{
	const struct hotfunc *f = row_func(t, row);
	char buf[512];

	if (!f)
		return false;
	func_text(f, buf, sizeof(buf));
	if (strcasestr(buf, text))
		return true;
	procs_text(f, buf, sizeof(buf));
	return strcasestr(buf, text) || (f->module && strcasestr(f->module, text));
}

static void cell(const struct tui *t, int c, const struct hotfunc *f, bool ns, char *buf,
		 size_t len)
{
	uint64_t total = t->hot->total_weight;
	char tmp[512];

	switch (c) {
	case HC_SELF:
		rows_share(f->self_weight, total, buf, len);
		break;
	case HC_TOTAL:
		rows_share(f->total_weight, total, buf, len);
		break;
	case HC_COUNT:
		snprintf(buf, len, "%" PRIu64, ns ? f->self / 1000000 : f->self);
		break;
	case HC_FUNC:
		func_text(f, buf, len);
		break;
	case HC_MODULE:
		escape_for_terminal(f->module ? f->module : "-",
				    strlen(f->module ? f->module : "-"), tmp, sizeof(tmp));
		snprintf(buf, len, "%s", tmp);
		break;
	default:
		procs_text(f, buf, len);
		break;
	}
}

/* The title of the function column: what the rows are and the keys, in the words that fit. */
static void func_title(const struct tui *t, int w, char *buf, size_t len)
{
	const char *what = t->view.offcpu ? "OFF-CPU" : "ON-CPU";

	snprintf(buf, len, "%s FUNCTION (f: call tree; o: %s; Enter: callers+callees; a: lines)",
		 what, t->view.offcpu ? "on-CPU" : "off-CPU");
	if (elide_width(buf) <= w)
		return;
	snprintf(buf, len, "%s FUNCTION (f: call tree; Enter: callers+callees; a: lines)", what);
	if (elide_width(buf) <= w)
		return;
	snprintf(buf, len, "%s FUNCTION (f: call tree)", what);
	if (elide_width(buf) > w)
		snprintf(buf, len, "%s FUNCTION", what);
}

void hot_draw(struct tui *t, int y, int h, int cols)
{
	static const struct ui_column hcols[HC_MAX] = {
		[HC_SELF] = {"SELF%", 6, COLK_NUMBER, 0, 0, NULL},
		[HC_TOTAL] = {"TOTAL%", 7, COLK_NUMBER, 0, 0, NULL},
		[HC_COUNT] = {"SAMPLES", 8, COLK_NUMBER, 40, 0, NULL}, /* off-CPU: SELF ms */
		[HC_FUNC] = {"FUNCTION", 0, COLK_TEXT, 0, 24, NULL},
		[HC_MODULE] = {"MODULE", 18, COLK_TEXT, 45, 0, NULL},
		[HC_PROCS] = {"PROCESSES", 22, COLK_TEXT, 30, 0, NULL},
	};
	struct tui_layout *l = &t->layout;
	const struct pane_view *pv = &t->view.per_pane[PANE_STACKS];
	bool ns = t->stacks_traced && t->view.offcpu;
	int xs[HC_MAX + 1], idx[HC_MAX];
	size_t nr = cols_fit(hcols, HC_MAX, cols, xs, idx);
	char buf[512], out[512];

	l->colhead_y = y;
	l->first_row_y = y + 1;
	l->nr_visible = h - 1;
	l->nr_cols = (int)nr;
	screen_fill(y, 0, cols, ROLE_COLHEAD);
	for (size_t k = 0; k < nr; k++) {
		int w = cols_width(xs, k);
		int id = hc_col_id[idx[k]];

		l->col_x[k] = xs[k];
		l->col_id[k] = id;
		if (idx[k] == HC_FUNC)
			func_title(t, w, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%s",
				 idx[k] == HC_COUNT && ns ? "SELF ms" : hcols[idx[k]].title);
		elide_end(buf, w, screen_utf8(), out, sizeof(out));
		if (hcols[idx[k]].kind == COLK_NUMBER)
			screen_text_right(y, xs[k], w, out,
					  id == pv->sort_col ? ROLE_COLHEAD_SORT : ROLE_COLHEAD);
		else
			screen_text(y, xs[k], w, out,
				    id == pv->sort_col ? ROLE_COLHEAD_SORT : ROLE_COLHEAD, false);
	}
	l->col_x[nr] = xs[nr];
	if (!hot_nr_rows(t)) {
		snprintf(buf, sizeof(buf),
			 "no %s stack samples%s in this window (%llu samples in all)",
			 t->view.offcpu ? "off-CPU" : "on-CPU",
			 t->hot_filter[0] ? " matching the filter" : "",
			 (unsigned long long)t->window_samples);
		screen_text(y + 2, 2, cols - 2,
			    elide_end(buf, cols - 2, screen_utf8(), out, sizeof(out)), ROLE_DIM,
			    false);
		return;
	}
	for (int r = 0; r < l->nr_visible; r++) {
		size_t i = pv->top + (size_t)r;
		const struct hotfunc *f = row_func(t, i);
		bool sel = i == pv->sel;
		enum screen_role role = sel ? ROLE_SELECTED : ROLE_NORMAL;

		if (!f)
			break;
		if (sel)
			screen_fill(y + 1 + r, 0, cols, ROLE_SELECTED);
		for (size_t k = 0; k < nr; k++) {
			int w = cols_width(xs, k);

			cell(t, idx[k], f, ns, buf, sizeof(buf));
			if (hcols[idx[k]].kind == COLK_NUMBER) {
				screen_text_right(y + 1 + r, xs[k], w, buf, role);
				continue;
			}
			elide_name(buf, w, screen_utf8(), out, sizeof(out));
			screen_text(y + 1 + r, xs[k], w, out,
				    sel			     ? ROLE_SELECTED
				    : idx[k] != HC_FUNC	     ? ROLE_NORMAL
				    : f->kernel		     ? ROLE_KERNEL
				    : lj_frame_is_lua(f->ip) ? ROLE_LABEL
							     : ROLE_NORMAL,
				    false);
		}
	}
}
