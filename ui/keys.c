// SPDX-License-Identifier: GPL-2.0-only
/*
 * Key handling (see keys.h): one function per mode turns a key into a change
 * of view state and reaction flags. Nothing here draws or knows curses; the
 * help screen lists keys_help, so every key handled here is documented there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "panes.h"
#include "rows.h"
#include "view.h"

const struct key_help keys_help[] = {
	{"Tab / Shift-Tab", "next / previous pane"},
	{"1 2 3 4 5 6 7 8 9",
	 "Threads, Group, Syscalls, Stacks, Log, LuaJIT, USE, Traces, I/O pane"},
	{"Up Dn PgUp PgDn Home End", "move the selection"},
	{"Enter", "drill down: narrow every pane to the selected row"},
	{"Esc / Backspace", "back up one drill-down level, or clear the filter"},
	{"/ or F3", "search (incremental); n: next match"},
	{"\\ or F4",
	 "filter rows by text; in the prompt Esc clears it, Ctrl-U the line, Ctrl-W a word"},
	{"< > or F6", "sort by the previous / next column, or pick one"},
	{"F2", "Setup: the Threads pane's columns, kept in ~/.config/threadtop/threadtoprc"},
	{"I", "reverse the sort order"},
	{"click a column title", "sort by it (again: reverse)"},
	{NULL, NULL}, /* here each pane's own keys, in pane order (keys_help_line) */
	{"w or F7", "time window: last interval, last minute, session"},
	{"d or s", "change the interval (-d) now: type seconds, Enter"},
	{"K", "hide / show kernel threads"},
	{"i", "Group and Syscalls panes: show / hide idle rows (asleep, stopped, zombie)"},
	{"p or F8", "pause the display (collection goes on)"},
	{"e x",
	 "export what the view shows to a file (.json .svg .folded .pb.gz .speedscope.json)"},
	{"Ctrl-L", "repaint the terminal"},
	{"F1 h ?", "this help"},
	{"q or F10", "quit"},
};
const size_t keys_help_count = sizeof(keys_help) / sizeof(keys_help[0]);

size_t keys_help_lines(void)
{
	size_t n = keys_help_count - 1;

	for (int p = 0; p < PANE_MAX; p++)
		n += ui_panes[p]->nr_help;
	return n;
}

const struct key_help *keys_help_line(size_t i)
{
	for (size_t k = 0; k < keys_help_count; k++) {
		if (keys_help[k].keys) {
			if (!i--)
				return &keys_help[k];
			continue;
		}
		for (int p = 0; p < PANE_MAX; p++) {
			if (i < ui_panes[p]->nr_help)
				return &ui_panes[p]->help[i];
			i -= ui_panes[p]->nr_help;
		}
	}
	return NULL;
}

/* The Group pane's dimensions, in picker order (application labels last: End reaches them). */
const int keys_group_dims[] = {DIM_STATE, DIM_COMM,  DIM_PID,	 DIM_SYSCALL,	DIM_WCHAN,
			       DIM_KLEAF, DIM_ULEAF, DIM_CGROUP, DIM_FD_TARGET, DIM_LABELS};
const size_t keys_group_dims_count = sizeof(keys_group_dims) / sizeof(keys_group_dims[0]);

static bool search_from(struct view *v, const struct view_env *env, const char *text, size_t start)
{
	if (!env->match || !env->nr_rows || !*text)
		return false;
	for (size_t n = 0; n < env->nr_rows; n++) {
		size_t i = (start + n) % env->nr_rows;

		if (env->match(env->ctx, i, text)) {
			view_select(v, i, env->nr_rows, env->page);
			return true;
		}
	}
	return false;
}

static void set_not_found(struct view *v, const char *text)
{
	snprintf(v->status, sizeof(v->status), "not found: %.60s", text);
}

/* The line-editing keys of a shell's prompt: ^U clears the line, ^W the word before the cursor. */
#define KEY_CTRL_U 0x15
#define KEY_CTRL_W 0x17

static bool edit_key(char *buf, size_t cap, int key)
{
	size_t len = strlen(buf);

	if (key == UK_BACKSPACE || key == 127 || key == 8) {
		if (len)
			buf[len - 1] = '\0';
		return true;
	}
	if (key == KEY_CTRL_U) {
		buf[0] = '\0';
		return true;
	}
	if (key == KEY_CTRL_W) {
		while (len && buf[len - 1] == ' ')
			len--;
		while (len && buf[len - 1] != ' ')
			len--;
		buf[len] = '\0';
		return true;
	}
	if (key >= 32 && key < 127 && len + 1 < cap) {
		buf[len] = (char)key;
		buf[len + 1] = '\0';
		return true;
	}
	return false;
}

static int key_search(struct view *v, const struct view_env *env, int key)
{
	struct pane_view *pv = &v->per_pane[v->pane];

	switch (key) {
	case UK_ENTER:
		snprintf(v->search, sizeof(v->search), "%s", v->edit);
		v->mode = MODE_NORMAL;
		return RX_REDRAW;
	case UK_ESC:
		v->mode = MODE_NORMAL;
		return RX_REDRAW;
	case UK_F3:
	case UK_DOWN:
		if (!search_from(v, env, v->edit, pv->sel + 1))
			set_not_found(v, v->edit);
		return RX_REDRAW;
	default:
		if (edit_key(v->edit, sizeof(v->edit), key)) {
			v->status[0] = '\0';
			if (*v->edit && !search_from(v, env, v->edit, pv->sel))
				set_not_found(v, v->edit);
		}
		return RX_REDRAW;
	}
}

/* d: a new interval, in seconds; the front end applies it (delay_asked). */
static int key_delay(struct view *v, int key)
{
	char *end;
	double d;

	switch (key) {
	case UK_ENTER:
		v->mode = MODE_NORMAL;
		d = strtod(v->edit, &end);
		if (end == v->edit || *end || !(d >= 0.1 && d <= 3600))
			snprintf(v->status, sizeof(v->status),
				 "interval not changed: '%.20s' is not 0.1 to 3600 seconds",
				 v->edit);
		else
			v->delay_asked = d;
		return RX_REDRAW;
	case UK_ESC:
		v->mode = MODE_NORMAL;
		return RX_REDRAW;
	default:
		/* Digits and a point only: the prompt takes nothing else. */
		if ((key >= '0' && key <= '9') || key == '.' || key == UK_BACKSPACE || key == 127 ||
		    key == 8)
			edit_key(v->edit, sizeof(v->edit), key);
		return RX_REDRAW;
	}
}

static int key_filter(struct view *v, int key)
{
	switch (key) {
	case UK_ENTER:
		v->mode = MODE_NORMAL;
		return RX_REDRAW;
	case UK_ESC:
		v->filter[0] = '\0';
		v->mode = MODE_NORMAL;
		return RX_REQUERY;
	default:
		if (!edit_key(v->edit, sizeof(v->edit), key))
			return RX_NONE;
		snprintf(v->filter, sizeof(v->filter), "%s", v->edit);
		v->per_pane[v->pane].sel = v->per_pane[v->pane].top = 0;
		return RX_REQUERY;
	}
}

/* The cursor keys of a picker of n entries; false when key is not one of them. */
static bool picker_move(struct view *v, int key, size_t n)
{
	switch (key) {
	case UK_UP:
		if (v->picker_sel)
			v->picker_sel--;
		return true;
	case UK_DOWN:
		if (v->picker_sel + 1 < n)
			v->picker_sel++;
		return true;
	case UK_HOME:
		v->picker_sel = 0;
		return true;
	case UK_END:
		v->picker_sel = n ? n - 1 : 0;
		return true;
	default:
		return false;
	}
}

/* F2 Setup: the Threads pane's columns (view_procs: of the process view). */
static int key_setup(struct view *v, int key)
{
	bool procs = view_procs(v);
	const int *all;
	size_t n = pane_threads_setup_cols(procs, &all);

	if (picker_move(v, key, n))
		return RX_REDRAW;
	switch (key) {
	case ' ':
	case UK_ENTER:
		if (v->picker_sel < n) {
			v->cols_on[procs] ^= 1u << v->picker_sel;
			v->setup_changed = true;
		}
		return RX_REQUERY;
	case UK_ESC:
	case 'q':
	case UK_F2:
	case UK_F10:
		v->mode = MODE_NORMAL;
		return RX_REQUERY;
	default:
		return RX_NONE;
	}
}

static int key_picker(struct view *v, const struct view_env *env, int key)
{
	bool group = v->mode == MODE_GROUP;
	size_t n = group ? keys_group_dims_count : env->nr_cols;

	if (picker_move(v, key, n))
		return RX_REDRAW;
	switch (key) {
	case ' ':
		if (group && v->picker_sel < n) {
			v->group_dims ^= DIM_BIT(keys_group_dims[v->picker_sel]);
			return RX_REQUERY;
		}
		/* Space picks in the sort picker */
		/* fall through */
	case UK_ENTER:
		if (!group && v->picker_sel < n) {
			v->per_pane[v->pane].sort_col = env->cols[v->picker_sel];
			v->per_pane[v->pane].reverse = false;
		}
		v->mode = MODE_NORMAL;
		return RX_REQUERY;
	case UK_ESC:
	case 'g':
	case 'q':
	case UK_F6:
		v->mode = MODE_NORMAL;
		return RX_REQUERY;
	default:
		return RX_NONE;
	}
}

static int switch_pane(struct view *v, enum ui_pane p)
{
	v->pane = p;
	return RX_REQUERY;
}

static int drill(struct view *v, const struct view_env *env)
{
	struct crumb c;

	if (!env->drill || !env->nr_rows)
		return RX_NONE;
	memset(&c, 0, sizeof(c));
	c.syscall = MODEL_ANY_SYSCALL;
	if (!env->drill(env->ctx, v->per_pane[v->pane].sel, &c))
		return RX_NONE;
	if (!view_push(v, &c,
		       ui_panes[v->pane]->drill_target ? ui_panes[v->pane]->drill_target(v)
						       : ui_panes[v->pane]->drill_to))
		return RX_REDRAW;
	v->filter[0] = '\0';
	return RX_REQUERY;
}

static int key_normal(struct view *v, const struct view_env *env, int key)
{
	struct pane_view *pv = &v->per_pane[v->pane];
	long page = env->page ? (long)env->page : 1;

	switch (key) {
	case 'q':
	case UK_F10:
		return RX_QUIT;
	case UK_TAB:
		return switch_pane(v, (v->pane + 1) % PANE_MAX);
	case UK_BTAB:
		return switch_pane(v, (v->pane + PANE_MAX - 1) % PANE_MAX);
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
	case '8':
	case '9':
		if (key - '1' >= PANE_MAX)
			return RX_NONE;
		return switch_pane(v, (enum ui_pane)(key - '1'));
	case UK_F5:
		/*
		 * htop's F5 is the process tree; the Stacks pane, which F5 opened
		 * before, stays on 4 and Tab. From another pane it opens the tree.
		 */
		v->tree = true;
		v->procs = true;
		return switch_pane(v, PANE_THREADS);
	case UK_UP:
		view_move(v, -1, env->nr_rows, env->page);
		return RX_REDRAW;
	case UK_DOWN:
		view_move(v, 1, env->nr_rows, env->page);
		return RX_REDRAW;
	case UK_PGUP:
		view_move(v, -page, env->nr_rows, env->page);
		return RX_REDRAW;
	case UK_PGDN:
		view_move(v, page, env->nr_rows, env->page);
		return RX_REDRAW;
	case UK_HOME:
		view_select(v, 0, env->nr_rows, env->page);
		return RX_REDRAW;
	case UK_END:
		view_select(v, env->nr_rows ? env->nr_rows - 1 : 0, env->nr_rows, env->page);
		return RX_REDRAW;
	case UK_ENTER:
		return drill(v, env);
	case UK_ESC:
	case UK_BACKSPACE:
	case 127:
		if (view_pop(v))
			return RX_REQUERY;
		if (v->filter[0]) {
			v->filter[0] = '\0';
			return RX_REQUERY;
		}
		return RX_NONE;
	case '/':
	case UK_F3:
		v->mode = MODE_SEARCH;
		v->edit[0] = '\0';
		v->status[0] = '\0';
		return RX_REDRAW;
	case 'n':
		if (v->search[0] && !search_from(v, env, v->search, pv->sel + 1))
			set_not_found(v, v->search);
		return RX_REDRAW;
	case '\\':
	case UK_F4:
		v->mode = MODE_FILTER;
		snprintf(v->edit, sizeof(v->edit), "%s", v->filter);
		return RX_REDRAW;
	case '<':
	case '>':
		view_sort_step(v, env->cols, env->nr_cols, key == '<' ? -1 : 1);
		return RX_RESORT;
	case UK_F6:
		if (!env->nr_cols)
			return RX_NONE;
		v->mode = MODE_SORT;
		v->picker_sel = 0;
		for (size_t i = 0; i < env->nr_cols; i++)
			if (env->cols[i] == pv->sort_col)
				v->picker_sel = i;
		return RX_REDRAW;
	case 'I':
		pv->reverse = !pv->reverse;
		return RX_RESORT;
	case 'K':
		v->hide_kthreads = !v->hide_kthreads;
		return RX_REQUERY;
	case 'i':
		v->show_idle = !v->show_idle;
		return RX_REQUERY;
	case 'p':
	case UK_F8:
		v->paused = !v->paused;
		return RX_REQUERY;
	case 'w':
	case UK_F7:
		view_cycle_window(v);
		return RX_REQUERY;
	case 'd':
	case 's':
		/* top's d and s: the interval, asked for at the footer's prompt. */
		v->mode = MODE_DELAY;
		snprintf(v->edit, sizeof(v->edit), "%g", v->delay_s);
		return RX_REDRAW;
	case 'g':
		v->pane = PANE_GROUP;
		v->mode = MODE_GROUP;
		v->picker_sel = 0;
		return RX_REQUERY;
	case UK_F2:
		/* htop's F2 Setup: the columns of the Threads pane (its process view too). */
		v->pane = PANE_THREADS;
		v->mode = MODE_SETUP;
		v->picker_sel = 0;
		return RX_REQUERY;
	case UK_F1:
	case 'h':
	case '?':
		v->mode = MODE_HELP;
		v->help_top = 0;
		return RX_REDRAW;
	case UK_CTRL_L:
		return RX_CLEAR;
	case UK_RESIZE:
		return RX_CLEAR;
	default:
		return RX_NONE;
	}
}

int keys_dispatch(struct view *v, const struct view_env *env, int key)
{
	int rx;

	if (key == UK_RESIZE)
		return RX_CLEAR;
	switch (v->mode) {
	case MODE_HELP:
		switch (key) {
		case UK_DOWN:
			v->help_top++;
			return RX_REDRAW;
		case UK_UP:
			if (v->help_top)
				v->help_top--;
			return RX_REDRAW;
		default:
			v->mode = MODE_NORMAL;
			return RX_REDRAW;
		}
	case MODE_SEARCH:
		return key_search(v, env, key);
	case MODE_FILTER:
		return key_filter(v, key);
	case MODE_DELAY:
		return key_delay(v, key);
	case MODE_GROUP:
	case MODE_SORT:
		return key_picker(v, env, key);
	case MODE_SETUP:
		return key_setup(v, key);
	default:
		break;
	}
	if (ui_panes[v->pane]->key) {
		rx = ui_panes[v->pane]->key(v, env, key);
		if (rx >= 0)
			return rx;
	}
	return key_normal(v, env, key);
}
