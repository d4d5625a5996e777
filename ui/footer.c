// SPDX-License-Identifier: GPL-2.0-only
/*
 * The footer: htop-style function keys (F1Help ... F10Quit), or the prompt
 * while typing a search or a filter.
 */
#include <stdio.h>
#include <string.h>

#include "elide.h"
#include "screen.h"
#include "tui_internal.h"

static const char *const labels[10] = {"Help",	 "Setup",  "Search", "Filter", "Tree",
				       "SortBy", "Window", "Pause",  "",       "Quit"};

static void prompt(struct tui *t, int y, int cols, const char *what, const char *help)
{
	char buf[VIEW_TEXT + 16];
	int x;

	snprintf(buf, sizeof(buf), "%s: %s_", what, t->view.edit);
	x = screen_text(y, 0, cols, buf, ROLE_FKEY, false);
	screen_text(y, x + 2, cols - x - 2, help, ROLE_DIM, false);
}

void footer_draw(struct tui *t, int y, int cols)
{
	int x = 0;

	t->layout.footer_y = y;
	if (t->view.mode == MODE_SEARCH) {
		/* "not found" goes where the prompt's help was. */
		prompt(t, y, cols, "Search",
		       t->view.status[0] ? t->view.status
					 : "Enter: done  Esc: cancel  F3/Down: next match");
		return;
	}
	if (t->view.mode == MODE_FILTER) {
		prompt(t, y, cols, "Filter", "Enter: done  Esc: clear");
		return;
	}
	/* A message (export path, error, "not found") takes the line while it lasts. */
	if (t->view.status[0] && t->view.mode == MODE_NORMAL) {
		char fit[sizeof(t->view.status) + 8];

		/* A long message keeps its start (what happened, to which file), cut
		 * after a word and marked. */
		screen_fill(y, 0, cols, ROLE_NORMAL);
		screen_text(y, 0, cols,
			    elide_end(t->view.status, cols, screen_utf8(), fit, sizeof(fit)),
			    ROLE_WARN, false);
		return;
	}
	if (t->view.mode == MODE_DELAY) {
		prompt(t, y, cols, "Interval (seconds)", "Enter: set  Esc: cancel");
		return;
	}
	for (int k = 0; k < 10 && x < cols; k++) {
		char key[4];
		const char *label = labels[k];

		if (k == 7 && t->view.paused)
			label = "Resume";
		if (!*label)
			continue;
		snprintf(key, sizeof(key), "F%d", k + 1);
		t->layout.fkey_x[k] = x;
		x += screen_text(y, x, cols - x, key, ROLE_FKEY, false);
		x += screen_text(y, x, cols - x, label, ROLE_FLABEL, false);
		x += screen_text(y, x, cols - x, " ", ROLE_NORMAL, false);
	}
	if (x < cols)
		screen_fill(y, x, cols - x, ROLE_FLABEL);
}
