// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Log pane: threadtop's own messages, newest first (nothing is printed
 * to the terminal while curses owns it); the selected one is shown whole,
 * wrapped, however long, the others cut after a word with the marker.
 */
#include <stdio.h>
#include <string.h>

#include "elide.h"
#include "screen.h"
#include "escape.h"
#include "log.h"
#include "tui_internal.h"

static size_t log_pane_rows(const struct tui *t)
{
	return log_count();
}

static bool log_pane_match(struct tui *t, size_t row, const char *text)
{
	const char *s = log_line(row);

	return s && strcasestr(s, text);
}

/*
 * Newest first, so a new message moves every row down one: a selection
 * below the newest follows its message (a search's find stayed put, and a
 * late start-up line put the selection on the message above it). On the
 * newest, it stays there: the pane then follows the news.
 */
static void follow_selection(struct tui *t, struct pane_view *pv, size_t n)
{
	uint64_t total = log_total(), add = total - t->log_seen;

	if (t->log_seen && add && pv->sel) {
		pv->sel = pv->sel + add < n ? pv->sel + (size_t)add : n - 1;
		pv->top = pv->top + add < n ? pv->top + (size_t)add : pv->sel;
	}
	t->log_seen = total;
}

static void log_pane_draw(struct tui *t, int y, int h, int cols)
{
	struct pane_view *pv = &t->view.per_pane[PANE_LOG];
	size_t n = log_count();
	char buf[LOG_LINE * 4], cut[LOG_LINE * 4];

	t->layout.colhead_y = y;
	t->layout.first_row_y = y + 1;
	t->layout.nr_visible = h - 1;
	screen_fill(y, 0, cols, ROLE_COLHEAD);
	screen_text(y, 0, cols, "MESSAGES (newest first)", ROLE_COLHEAD, false);
	if (!n) {
		screen_text(y + 2, 2, cols - 2, "no messages", ROLE_DIM, false);
		return;
	}
	follow_selection(t, pv, n);
	for (int k = 0, line = 0; line < h - 1; k++) {
		size_t i = pv->top + (size_t)k;
		const char *s;
		bool sel;

		if (i >= n)
			break;
		s = log_line(i);
		sel = i == pv->sel;
		if (!s)
			continue;
		escape_for_terminal(s, strlen(s), buf, sizeof(buf));
		if (!sel) {
			/* Cut after a word, marked: the selected message shows whole. */
			screen_text(y + 1 + line++, 0, cols,
				    elide_end(buf, cols, screen_utf8(), cut, sizeof(cut)),
				    ROLE_NORMAL, false);
			continue;
		}
		/* The selected message in full: wrapped over the lines it needs. */
		line += screen_wrapped(y + 1 + line, h - 1 - line, cols, buf, ROLE_SELECTED);
	}
}

const struct pane_ops pane_log_ops = {
	.name = "Log",
	.rows = log_pane_rows,
	.draw = log_pane_draw,
	.match = log_pane_match,
	.drill_to = PANE_LOG,
};
