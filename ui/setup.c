// SPDX-License-Identifier: GPL-2.0-only
/*
 * F2 Setup (see setup.h): which columns the Threads pane shows, in its
 * thread view and its process view, kept in the rc file as
 *   thread_columns=pid tid comm state cpu active statemix syscall frame
 *   process_columns=pid user state cpu active statemix threads res time cmd
 * A column named that the pane does not offer is an error naming the file and
 * line (the defaults stay); the file is rewritten whole when the chooser
 * closes after a change.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "rc_file.h"
#include "screen.h"
#include "setup.h"
#include "tui_internal.h"

static const char *const view_keys[2] = {"thread_columns", "process_columns"};

const char *setup_parse(struct view *v, const char *key, const char *value)
{
	static char why[96];
	const int *all;
	uint32_t mask = 0;
	char buf[512], *tok, *save = NULL;
	size_t nr_all;
	int which = -1;

	for (int i = 0; i < 2; i++)
		if (!strcmp(key, view_keys[i]))
			which = i;
	if (which < 0) {
		snprintf(why, sizeof(why), "unknown setting '%.40s'", key);
		return why;
	}
	nr_all = pane_threads_setup_cols(which == 1, &all);
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		int col = rows_col_by_key(tok);
		size_t i;

		for (i = 0; i < nr_all && all[i] != col; i++)
			;
		if (col < 0 || i == nr_all) {
			snprintf(why, sizeof(why), "unknown column '%.40s' for %s", tok, key);
			return why;
		}
		mask |= 1u << i;
	}
	if (!mask) {
		snprintf(why, sizeof(why), "%s names no column", key);
		return why;
	}
	v->cols_on[which] = mask;
	return NULL;
}

char *setup_format(const struct view *v, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "# threadtop settings, written by F2 Setup\n");

	for (int w = 0; w < 2 && o < len; w++) {
		const int *all;
		size_t n = pane_threads_setup_cols(w == 1, &all);
		bool first = true;

		o += (size_t)snprintf(buf + o, len - o, "%s=", view_keys[w]);
		for (size_t i = 0; i < n && o < len; i++) {
			if (!(v->cols_on[w] & (1u << i)))
				continue;
			o += (size_t)snprintf(buf + o, len - o, "%s%s", first ? "" : " ",
					      ui_columns[all[i]].key);
			first = false;
		}
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, "\n");
	}
	return buf;
}

static const char *parse_cb(void *ctx, const char *key, const char *value)
{
	return setup_parse(ctx, key, value);
}

void setup_load(struct tui *t)
{
	char path[4096], err[512];

	if (rc_file_path(path, sizeof(path)) < 0)
		return; /* no home: the defaults */
	if (rc_file_read(path, parse_cb, &t->view, err, sizeof(err)) < 0) {
		log_msg("rc file: %s", err);
		snprintf(t->view.status, sizeof(t->view.status), "rc file: %.200s", err);
	}
}

void setup_save(struct tui *t)
{
	char path[4096], text[1024], err[512];

	t->view.setup_changed = false;
	if (rc_file_path(path, sizeof(path)) < 0) {
		snprintf(t->view.status, sizeof(t->view.status),
			 "columns not saved: no home directory to keep the rc file in");
		return;
	}
	setup_format(&t->view, text, sizeof(text));
	if (rc_file_write(path, text, err, sizeof(err)) < 0) {
		log_msg("rc file not saved: %s", err);
		snprintf(t->view.status, sizeof(t->view.status), "columns not saved: %.200s", err);
		return;
	}
	snprintf(t->view.status, sizeof(t->view.status), "columns saved to %.200s", path);
}

void setup_draw(struct tui *t, int rows, int cols)
{
	bool procs = view_procs(&t->view);
	const int *all;
	size_t n = pane_threads_setup_cols(procs, &all);
	int w = 52, x = cols - w - 2, y = 6; /* the title whole: 50 columns */
	char buf[96];

	screen_fill(y, x, w, ROLE_COLHEAD);
	snprintf(buf, sizeof(buf), "Setup: %s columns (Space toggles, Esc done)",
		 procs ? "process" : "thread");
	screen_text(y, x + 1, w - 2, buf, ROLE_COLHEAD, false);
	for (size_t i = 0; i < n && y + 1 + (int)i < rows - 1; i++) {
		bool sel = i == t->view.picker_sel;

		snprintf(buf, sizeof(buf), "%c[%c] %s", sel ? '>' : ' ',
			 t->view.cols_on[procs] & (1u << i) ? 'x' : ' ', ui_columns[all[i]].title);
		screen_text(y + 1 + (int)i, x, w, buf, sel ? ROLE_TAB_ACTIVE : ROLE_FLABEL, true);
	}
	if (y + 1 + (int)n < rows - 1)
		screen_fill(y + 1 + (int)n, x, w, ROLE_FLABEL);
}
