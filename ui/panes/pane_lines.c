// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Stacks pane's source lines of one hot function (a on a row of the
 * hot functions, a drill-down level: Esc goes back), as perf annotate
 * --stdio shows them at line granularity: one row per line of the
 * addresses where the function ran, most samples first, with SELF% (its
 * samples as the leaf, the Hot pane's SELF) and TOTAL% (samples through
 * it) as shares of the function's own samples, file:line, and the line's
 * text when the file is readable here (source_file.h: as the invoking
 * user, under the process's root first). The figures come from the model
 * (hotlines.h) over the same stack pairs as the call tree and the hot
 * functions, narrowed to the stacks through the function.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elide.h"
#include "escape.h"
#include "screen.h"
#include "util.h"
#include "tui_internal.h"

enum { LC_SELF, LC_TOTAL, LC_COUNT, LC_LINE, LC_TEXT, LC_MAX };

/* The crumb the lines are of: the last that opened them. */
static const struct crumb *lines_crumb(const struct tui *t)
{
	for (size_t i = t->view.nr_crumbs; i-- > 0;)
		if (t->view.crumbs[i].to_lines)
			return &t->view.crumbs[i];
	return NULL;
}

void lines_build(struct tui *t)
{
	const struct crumb *c = lines_crumb(t);
	struct model_stack_counts set;
	struct frame_key fk;
	struct model_query q;
	uint64_t total;

	view_query(&t->view, PANE_STACKS, &q);
	q.window = t->header.window;
	frame_key_make(t, &q, &fk);
	if (t->lines && frame_key_equal(&fk, &t->lines_key))
		return;
	hotlines__free(t->lines);
	t->lines = NULL;
	if (c && stacks_pairs(t, &q, &set, &total)) {
		t->lines = hotlines__new(t->model, set.out, set.nr, c->fn_pid, c->stack_ip,
					 c->fn_kernel, c->fn_level);
		t->window_samples = total;
	}
	if (c)
		free(set.out);
	t->lines_key = fk;
	if (!t->sources)
		t->sources = source_files__new(NULL);
}

size_t lines_nr_rows(const struct tui *t)
{
	return t->lines ? t->lines->nr : 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* "file.c:41", escaped. */
static void line_text(const struct hotline *l, char *buf, size_t len)
{
	char file[256];
	const char *b = base_name(l->file);

	escape_for_terminal(b, strlen(b), file, sizeof(file));
	snprintf(buf, len, "%s:%u", file, l->line);
}

/* The line's source text, escaped; what went wrong when it cannot be read. */
static void source_text(struct tui *t, const struct hotline *l, char *buf, size_t len)
{
	char raw[512];
	int err = source_files__line(t->sources, l->pid, l->file, l->line, raw, sizeof(raw));

	if (err == -ERANGE)
		snprintf(raw, sizeof(raw), "(the file has fewer lines: not the one built)");
	else if (err == -EINVAL)
		snprintf(raw, sizeof(raw), "(a relative path in the debug info)");
	else if (err)
		snprintf(raw, sizeof(raw), "(not readable here: %s)", strerror(-err));
	escape_for_terminal(raw, strlen(raw), buf, len);
}

bool lines_match(struct tui *t, size_t row, const char *text)
{
	char buf[512];

	if (!t->lines || row >= t->lines->nr)
		return false;
	line_text(&t->lines->lines[row], buf, sizeof(buf));
	if (strcasestr(buf, text))
		return true;
	source_text(t, &t->lines->lines[row], buf, sizeof(buf));
	return strcasestr(buf, text) != NULL;
}

static void cell(struct tui *t, int c, const struct hotline *l, bool ns, char *buf, size_t len)
{
	uint64_t total = t->lines->total_weight;

	switch (c) {
	case LC_SELF:
		rows_share(l->self_weight, total, buf, len);
		break;
	case LC_TOTAL:
		rows_share(l->total_weight, total, buf, len);
		break;
	case LC_COUNT:
		snprintf(buf, len, "%" PRIu64, ns ? l->total / 1000000 : l->total);
		break;
	case LC_LINE:
		line_text(l, buf, len);
		break;
	default:
		source_text(t, l, buf, len);
		break;
	}
}

/* Why there are no rows, in words that say what to do. */
static const char *why_none(const struct tui *t, const struct crumb *c)
{
	if (!c || !t->lines)
		return "no source lines: no function chosen";
	if (c->fn_kernel)
		return "no source lines for kernel functions (kallsyms names them, without lines)";
	if (!model__frame_namer(t->model))
		return "no source lines: frames are addresses here (a replay without names)";
	if (!t->lines->total)
		return "no samples of the function in this window";
	return "no source lines: the binary has no DWARF line table (build it with -g, or "
	       "install its debug symbols: the -dbgsym package)";
}

void lines_draw(struct tui *t, int y, int h, int cols)
{
	static const struct ui_column lcols[LC_MAX] = {
		[LC_SELF] = {"SELF%", 6, COLK_NUMBER, 0, 0, NULL},
		[LC_TOTAL] = {"TOTAL%", 7, COLK_NUMBER, 0, 0, NULL},
		[LC_COUNT] = {"SAMPLES", 8, COLK_NUMBER, 40, 0, NULL}, /* off-CPU: ms */
		[LC_LINE] = {"LINE", 24, COLK_TEXT, 0, 0, NULL},
		[LC_TEXT] = {"SOURCE", 0, COLK_TEXT, 0, 16, NULL},
	};
	struct tui_layout *l = &t->layout;
	const struct pane_view *pv = &t->view.per_pane[PANE_STACKS];
	const struct crumb *c = lines_crumb(t);
	bool ns = t->stacks_traced && t->view.offcpu;
	int xs[LC_MAX + 1], idx[LC_MAX];
	size_t nr = cols_fit(lcols, LC_MAX, cols, xs, idx);
	char buf[1024], out[1024];
	int rows;

	l->colhead_y = y;
	l->first_row_y = y + 1;
	l->nr_visible = h - 2; /* the last line: what has no line, and the keys */
	l->nr_cols = 0;	       /* one order: most samples first */
	screen_fill(y, 0, cols, ROLE_COLHEAD);
	for (size_t k = 0; k < nr; k++) {
		int w = cols_width(xs, k);

		if (idx[k] == LC_TEXT)
			snprintf(buf, sizeof(buf), "SOURCE (of %s; Esc: back)",
				 c ? c->label + strlen("lines of ") : "?");
		else
			snprintf(buf, sizeof(buf), "%s",
				 idx[k] == LC_COUNT && ns ? "TIME ms" : lcols[idx[k]].title);
		elide_end(buf, w, screen_utf8(), out, sizeof(out));
		if (lcols[idx[k]].kind == COLK_NUMBER)
			screen_text_right(y, xs[k], w, out,
					  idx[k] == LC_TOTAL ? ROLE_COLHEAD_SORT : ROLE_COLHEAD);
		else
			screen_text(y, xs[k], w, out,
				    idx[k] == LC_TOTAL ? ROLE_COLHEAD_SORT : ROLE_COLHEAD, false);
	}
	if (!lines_nr_rows(t)) {
		screen_text(y + 2, 2, cols - 2,
			    elide_end(why_none(t, c), cols - 2, screen_utf8(), out, sizeof(out)),
			    ROLE_DIM, false);
		return;
	}
	for (rows = 0; rows < l->nr_visible; rows++) {
		size_t i = pv->top + (size_t)rows;
		bool sel = i == pv->sel;
		enum screen_role role = sel ? ROLE_SELECTED : ROLE_NORMAL;

		if (i >= t->lines->nr)
			break;
		if (sel)
			screen_fill(y + 1 + rows, 0, cols, ROLE_SELECTED);
		for (size_t k = 0; k < nr; k++) {
			int w = cols_width(xs, k);

			cell(t, idx[k], &t->lines->lines[i], ns, buf, sizeof(buf));
			if (lcols[idx[k]].kind == COLK_NUMBER) {
				screen_text_right(y + 1 + rows, xs[k], w, buf, role);
				continue;
			}
			screen_text(y + 1 + rows, xs[k], w,
				    idx[k] == LC_LINE
					    ? elide_name(buf, w, screen_utf8(), out, sizeof(out))
					    : elide_end(buf, w, screen_utf8(), out, sizeof(out)),
				    sel			? ROLE_SELECTED
				    : idx[k] == LC_LINE ? ROLE_LABEL
							: role,
				    false);
		}
	}
	if (t->lines->no_line || t->lines->dropped) {
		uint64_t total = t->lines->total_weight;

		snprintf(buf, sizeof(buf),
			 "%.1f%% of the function's samples at addresses with no line%s",
			 total ? 100.0 *
					 (double)(t->lines->no_line_weight +
						  t->lines->dropped_weight) /
					 (double)total
			       : 0.0,
			 t->lines->dropped ? " or past the lines kept" : "");
		screen_text(y + 1 + rows, 2, cols - 2,
			    elide_end(buf, cols - 2, screen_utf8(), out, sizeof(out)), ROLE_DIM,
			    false);
	}
}
