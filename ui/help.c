// SPDX-License-Identifier: GPL-2.0-only
/*
 * The help screen (every key, from keys_help) and the small pickers drawn
 * over the main pane: the group-by dimensions (g) and the sort column (F6).
 */
#include <stdio.h>
#include <string.h>

#include "keys.h"
#include "screen.h"
#include "timeline.h"
#include "tui_internal.h"

static const char *const dim_names[DIM_MAX] = {
	[DIM_PID] = "process (pid)",
	[DIM_TID] = "thread",
	[DIM_COMM] = "comm",
	[DIM_STATE] = "state",
	[DIM_SYSCALL] = "syscall",
	[DIM_WCHAN] = "wait channel (wchan)",
	[DIM_CGROUP] = "cgroup",
	[DIM_KLEAF] = "leaf kernel function",
	[DIM_ULEAF] = "leaf user function",
	[DIM_LABELS] = "application labels (--label)",
	[DIM_FD_TARGET] = "fd target (file, socket, pipe)",
};

/*
 * Draws ASCII text s from x, wrapped at spaces to cols, over at most h
 * lines (the help's words are never cut); returns the lines used.
 */
static int wrap_at(int y, int x, int h, int cols, const char *s, enum screen_role role)
{
	int w = cols - x, line = 0;
	char buf[256];

	while (*s && line < h && w > 0) {
		int n = (int)strlen(s);

		if (n > w) {
			int b = w;

			while (b > w / 2 && s[b] != ' ')
				b--;
			n = s[b] == ' ' ? b : w; /* a word wider than half the line is split */
		}
		snprintf(buf, sizeof(buf), "%.*s", n, s);
		screen_text(y + line++, x, w, buf, role, false);
		s += n;
		while (*s == ' ')
			s++;
	}
	return line ? line : 1;
}

void help_draw(struct tui *t, int rows, int cols)
{
	static const char *const states = "States: R running, Q waiting for a CPU, S sleeping, "
					  "D disk wait, T stopped, t traced, Z zombie, I idle";
	static const char *const active =
		"ACTIVE = average active threads: samples R, Q or D (never S I T Z) x period / s";
	size_t nr_keys = keys_help_lines();
	size_t total = nr_keys + (t->timeline ? timeline_help_count : 0);
	int foot = (int)((strlen(states) + cols - 1) / cols + (strlen(active) + cols - 1) / cols);
	char buf[256];
	int y = 1;
	size_t i;

	if (t->view.help_top >= total)
		t->view.help_top = total ? total - 1 : 0;
	snprintf(buf, sizeof(buf), "threadtop %s help: every key (any other key returns)",
		 TT_VERSION);
	screen_text(0, 0, cols, buf, ROLE_TITLE, true);
	/* A key's description wraps under itself rather than being cut (80 columns). */
	for (i = t->view.help_top; i < total && y < rows - 1 - foot; i++) {
		const struct key_help *k =
			i < nr_keys ? keys_help_line(i) : &timeline_help[i - nr_keys];

		screen_text(y, 1, 25, k->keys, ROLE_FKEY, false);
		y += wrap_at(y, 27, rows - 1 - foot - y, cols, k->what, ROLE_NORMAL);
	}
	if (i < total || t->view.help_top)
		screen_text(rows - 1 - foot, 1, cols - 1,
			    i < total ? "-- Down: more keys below --" : "-- Up: more keys above --",
			    ROLE_CRUMB, false);
	y = rows - foot;
	y += wrap_at(y, 0, foot, cols, states, ROLE_DIM);
	wrap_at(y, 0, rows - y, cols, active, ROLE_DIM);
}

void picker_draw(struct tui *t, int rows, int cols)
{
	bool group = t->view.mode == MODE_GROUP;
	size_t n = keys_group_dims_count;
	const int *sortable = group ? NULL : tui_sort_columns(t, &n);
	int w = 44, h, x = cols - w - 2, y = 6;
	char buf[96];

	if (!group && n < 2)
		n = 0; /* the Stacks pane's call tree: its one column, no choice */
	h = (int)n + 3;
	screen_fill(y, x, w, ROLE_COLHEAD);
	screen_text(y, x + 1, w - 2,
		    group ? "Group by (Space toggles, Enter/Esc done)" : "Sort by (Enter picks)",
		    ROLE_COLHEAD, false);
	for (size_t i = 0; i < n && y + 1 + (int)i < rows - 1; i++) {
		bool sel = i == t->view.picker_sel;

		if (group) {
			int d = keys_group_dims[i];

			snprintf(buf, sizeof(buf), "%c[%c] %s", sel ? '>' : ' ',
				 t->view.group_dims & DIM_BIT(d) ? 'x' : ' ', dim_names[d]);
		} else {
			snprintf(buf, sizeof(buf), "%c%s", sel ? '>' : ' ',
				 ui_columns[sortable[i]].title);
		}
		/* The cursor: a mark, and a role unlike the list's (visible in colour and mono). */
		screen_text(y + 1 + (int)i, x, w, buf, sel ? ROLE_TAB_ACTIVE : ROLE_FLABEL, true);
	}
	screen_fill(y + h - 2, x, w, ROLE_FLABEL);
}
