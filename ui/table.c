// SPDX-License-Identifier: GPL-2.0-only
/*
 * The operations the table panes (Threads, Group, Syscalls) share, but for
 * asking the model (frame_build.c): drawing (column titles with the sort
 * marker, then only the rows that fit, formatted as they are drawn, so a
 * frame costs the same for 100 or 100,000 rows once they are sorted; a
 * cell wider than its column shortened with a marker, never cut), and
 * the rows' count, narrowing and search through the pane's struct table_pane.
 */
#include <stdio.h>
#include <string.h>

#include "elide.h"
#include "screen.h"
#include "tui_internal.h"

/* Column x positions: the pane's columns fitted by cols_fit (columns.c). */
static void layout(struct tui *t, int cols)
{
	struct tui_layout *l = &t->layout;
	struct ui_column cs[TUI_MAX_COLS];
	int idx[TUI_MAX_COLS];

	for (size_t i = 0; i < t->nr_columns; i++)
		cs[i] = ui_columns[t->columns[i]];
	l->nr_cols = (int)cols_fit(cs, t->nr_columns, cols, l->col_x, idx);
	for (int k = 0; k < l->nr_cols; k++)
		l->col_id[k] = t->columns[idx[k]];
}

static int col_width(const struct tui_layout *l, int i)
{
	return l->col_x[i + 1] - l->col_x[i] - 1;
}

/*
 * The state mix: running, waiting for a CPU, disk wait, asleep, then the
 * threads that cannot run (stopped or traced: T; zombies and the dead: Z),
 * each with its own glyph so they never read as load, then the rest.
 */
static void draw_mix(int y, int x, int w, const struct model_row *r)
{
	static const enum screen_role roles[] = {ROLE_ST_R,	ROLE_ST_Q, ROLE_ST_D,	 ROLE_ST_S,
						 ROLE_ST_OTHER, ROLE_WARN, ROLE_ST_OTHER};
	const uint64_t *ss = r->state_samples;
	double parts[7] = {0};

	parts[0] = (double)ss[TT_ST_R];
	parts[1] = (double)ss[TT_ST_Q];
	parts[2] = (double)ss[TT_ST_D];
	parts[3] = (double)(ss[TT_ST_S] + ss[TT_ST_I] + ss[TT_ST_P]);
	parts[4] = (double)(ss[TT_ST_T] + ss[TT_ST_t]);
	parts[5] = (double)(ss[TT_ST_Z] + ss[TT_ST_X]);
	parts[6] = (double)r->samples;
	for (int i = 0; i < 6; i++)
		parts[6] -= parts[i];
	screen_bar(y, x, w, parts, roles, "RQDSTZ*", 7, (double)r->samples);
}

void table_draw_share(int y, int x, int w, double part, double total, const char *fig,
		      enum screen_role role)
{
	static const enum screen_role bar_role[] = {ROLE_BAR};
	int fw = (int)strlen(fig);

	if (w > fw + 1)
		screen_bar(y, x, w - fw - 1, &part, bar_role, "#", 1, total);
	screen_text(y, x + w - fw, fw, fig, role, false);
}

static void draw_share(struct tui *t, int y, int x, int w, const struct model_row *r,
		       enum screen_role role)
{
	char fig[16];

	rows_cell(&t->rows_ctx, r, COL_SHARE, fig, sizeof(fig));
	table_draw_share(y, x, w, (double)r->samples, (double)t->rows_ctx.total_samples, fig, role);
}

void table_draw_hist(int y, int x, int w, const uint64_t *hist, int nr, enum screen_role role)
{
	static const char *const utf8[] = {" ",	     "\u2581", "\u2582", "\u2583", "\u2584",
					   "\u2585", "\u2586", "\u2587", "\u2588"};
	static const char ascii[] = " .:-=+*#%@";
	uint64_t cells[32] = {0}, max = 0;
	int first = 8, n = (nr - first) / 2;

	if (nr > 64)
		nr = 64;
	for (int b = 0; b < nr; b++) {
		int c = b < first ? 0 : (b - first) / 2; /* shorter calls count in the first cell */

		cells[c] += hist[b];
		if (cells[c] > max)
			max = cells[c];
	}
	if (!max)
		return;
	for (int i = 0; i < n && i < w; i++) {
		char cell[8];
		double f = (double)cells[i] / (double)max;

		if (screen_utf8())
			snprintf(cell, sizeof(cell), "%s", utf8[cells[i] ? 1 + (int)(f * 7) : 0]);
		else
			snprintf(cell, sizeof(cell), "%c", ascii[cells[i] ? 1 + (int)(f * 8) : 0]);
		screen_text(y, x + i, 1, cell, role == ROLE_SELECTED ? role : ROLE_BAR, false);
	}
}

/* The syscall's exact latencies (--syscalls) as that histogram. */
static void draw_hist(struct tui *t, int y, int x, int w, const struct model_row *r,
		      enum screen_role role)
{
	if (!t->rows_ctx.sc || r->syscall < 0 || r->syscall >= UI_SC_MAX)
		return;
	table_draw_hist(y, x, w, t->rows_ctx.sc[r->syscall].hist, TT_SYSCALL_HIST_BUCKETS, role);
}

static enum screen_role cell_role(int col, const char *text, bool selected)
{
	if (selected)
		return ROLE_SELECTED;
	if (col == COL_STATE) {
		switch (text[0]) {
		case 'R':
			return ROLE_ST_R;
		case 'D':
			return ROLE_ST_D;
		case 'Q':
			return ROLE_ST_Q;
		case 'T':
		case 't':
			return ROLE_ST_OTHER;
		case 'Z':
		case 'X':
			return ROLE_WARN;
		default:
			return ROLE_NORMAL;
		}
	}
	if ((col == COL_FRAME || col == COL_KLEAF) && strstr(text, "[k]"))
		return ROLE_KERNEL;
	return ROLE_NORMAL;
}

/*
 * A cell wider than its column loses its middle, marked (elide.h): a
 * name keeps its start and end, an fd target's path its file's name, a
 * command line its program's directory
 * start and its last words ("/usr/lib/…/python3 -m http.server").
 */
static void fit_cell(int col, int w, char *buf, size_t len)
{
	char cut[512];

	if (ui_columns[col].kind != COLK_TEXT || elide_width(buf) <= w)
		return;
	if (col == COL_TARGET) /* a path keeps its file's name */
		elide_path(buf, w, screen_utf8(), cut, sizeof(cut));
	else
		elide_name(buf, w, screen_utf8(), cut, sizeof(cut));
	snprintf(buf, len, "%s", cut);
}

/* Row i's cell col behind its branch in the process tree: "│  ├─ nginx: worker". */
static void tree_cell(struct tui *t, size_t i, const struct model_row *r, int col, char *buf,
		      size_t len)
{
	unsigned depth = t->tree_depth[i];
	size_t o = 0;
	char cell[400];

	buf[0] = '\0';
	for (unsigned d = 1; d < depth && o + 4 < len; d++)
		o += (size_t)snprintf(buf + o, len - o, "   ");
	if (depth && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s",
				      screen_tree_glyph(t->tree_last[i], true));
	rows_cell(&t->rows_ctx, r, col, cell, sizeof(cell));
	snprintf(buf + o, len - o, "%s%s", depth ? " " : "", cell);
}

void table_pane_draw(struct tui *t, int y, int h, int cols)
{
	struct tui_layout *l = &t->layout;
	const struct pane_view *pv = &t->view.per_pane[t->view.pane];
	char buf[512];
	int tree_col = -1;

	layout(t, cols);
	l->colhead_y = y;
	l->first_row_y = y + 1;
	l->nr_visible = h - 1;
	screen_fill(y, 0, cols, ROLE_COLHEAD);
	for (int i = 0; i < l->nr_cols; i++) {
		const struct ui_column *c = &ui_columns[l->col_id[i]];
		bool sorted = l->col_id[i] == pv->sort_col;
		int w = col_width(l, i);
		const char *arrow = "";

		/* The arrow says the order on screen: down, largest first; up, ascending. */
		if (sorted)
			arrow = rows_col_descends(l->col_id[i]) != pv->reverse
					? (screen_utf8() ? "\u25bc" : "v")
					: (screen_utf8() ? "\u25b2" : "^");
		snprintf(buf, sizeof(buf), "%s%s", c->title, arrow);
		if (c->kind == COLK_NUMBER) {
			int len = (int)strlen(c->title) + (sorted ? 1 : 0);

			screen_text(y, l->col_x[i] + (w > len ? w - len : 0), w, buf,
				    sorted ? ROLE_COLHEAD_SORT : ROLE_COLHEAD, false);
		} else {
			screen_text(y, l->col_x[i], w, buf,
				    sorted ? ROLE_COLHEAD_SORT : ROLE_COLHEAD, false);
		}
	}
	/* The tree's branches go before the command line, or else the comm (htop's Command). */
	for (int c = 0; c < l->nr_cols && t->rows_tree; c++)
		if (l->col_id[c] == COL_CMD || (l->col_id[c] == COL_COMM && tree_col != COL_CMD))
			tree_col = l->col_id[c];
	if (!t->nr_rows) {
		const char *why = t->table->empty;

		/* Before the first interval ends, say what is under way, not "nothing". */
		if (!t->header.intervals)
			why = t->timeline ? "reading the recording..."
					  : "taking the first samples...";
		if (t->view.filter[0])
			why = "no row matches the filter (Esc clears it)";
		screen_text(y + 2, 2, cols - 2, why, ROLE_DIM, false);
		return;
	}
	for (int k = 0; k < l->nr_visible; k++) {
		size_t i = pv->top + (size_t)k;
		const struct model_row *r;
		bool sel;

		if (i >= t->nr_rows)
			break;
		r = &t->rows[i];
		sel = i == pv->sel;
		if (sel)
			screen_fill(y + 1 + k, 0, cols, ROLE_SELECTED);
		for (int c = 0; c < l->nr_cols; c++) {
			int col = l->col_id[c], w = col_width(l, c), x = l->col_x[c];

			if (col == COL_MIX) {
				draw_mix(y + 1 + k, x, w, r);
				continue;
			}
			if (col == COL_HIST) {
				draw_hist(t, y + 1 + k, x, w, r, sel ? ROLE_SELECTED : ROLE_NORMAL);
				continue;
			}
			if (col == COL_SHARE) {
				draw_share(t, y + 1 + k, x, w, r,
					   sel ? ROLE_SELECTED : ROLE_NORMAL);
				continue;
			}
			if (t->rows_tree && col == tree_col) {
				tree_cell(t, i, r, col, buf, sizeof(buf));
			} else {
				rows_cell(&t->rows_ctx, r, col, buf, sizeof(buf));
			}
			fit_cell(col, w, buf, sizeof(buf));
			if (ui_columns[col].kind == COLK_NUMBER) {
				int len = (int)strlen(buf);

				if (len < w)
					x += w - len;
			}
			screen_text(y + 1 + k, x, w, buf, cell_role(col, buf, sel), false);
		}
	}
}

size_t table_pane_rows(const struct tui *t)
{
	return t->nr_rows;
}

bool table_pane_drill(struct tui *t, size_t row, struct crumb *ret)
{
	if (!t->table || row >= t->nr_rows)
		return false;
	return t->table->drill(&t->view, &t->rows_ctx, &t->rows[row], ret);
}

bool table_pane_match(struct tui *t, size_t row, const char *text)
{
	if (!t->table || row >= t->nr_rows)
		return false;
	return rows_match(&t->rows_ctx, &t->rows[row], t->columns, t->nr_columns, text);
}
