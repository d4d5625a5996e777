// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TUI front end (see tui.h): owns the view state and the rows of the
 * pane on screen, asks the model when the view or the data changed, and
 * draws a frame after every interval (unless paused), key or resize. The
 * loop keeps draining the sources whatever the UI does: nothing here blocks.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "keys.h"
#include "screen.h"
#include "export_key.h"
#include "setup.h"
#include "timeline.h"
#include "log.h"
#include "loop.h"
#include "util.h"
#include "tui_internal.h"

#define HEADER_ROWS 6 /* title, meters, CPUs + USE verdict, summary, tabs, breadcrumb */

/* The header, and in a replay the timeline under it. */
static int header_rows(const struct tui *t)
{
	return HEADER_ROWS + (t->timeline ? 1 : 0);
}

int tui_page(const struct tui *t, int rows)
{
	int h = rows - header_rows(t) - 2; /* column titles, footer */

	return h > 0 ? h : 0;
}

size_t tui_nr_rows(const struct tui *t)
{
	const struct pane_ops *ops = ui_panes[t->view.pane];

	return ops->rows ? ops->rows(t) : 0;
}

void tui_rows_needed(struct tui *t, size_t page, bool all)
{
	const struct pane_ops *ops = ui_panes[t->view.pane];
	const struct pane_view *pv = &t->view.per_pane[t->view.pane];
	size_t at = pv->sel > pv->top ? pv->sel : pv->top;

	if (ops->rows_needed)
		ops->rows_needed(t, all ? SIZE_MAX : at + 2 * page + 2);
}

static int count_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return 1;
}

struct tui *tui__new(struct model *m, const char *source, unsigned hz, double delay_s)
{
	struct tui *t = xcalloc(1, sizeof(*t));

	t->model = m;
	t->source = source;
	t->hz = hz;
	t->delay_s = delay_s;
	t->redraw_timer = -1;
	t->expanded = u64map__new();
	t->header.ncpu = count_cpus();
	t->export_prompt = export_prompt__new();
	view_init(&t->view);
	t->view.delay_s = delay_s;
	return t;
}

void tui__free(struct tui *t)
{
	if (!t)
		return;
	free(t->rows_buf);
	free(t->tree_depth);
	free(t->tree_last);
	tui_caches_free(t);
	stack_rows_release(&t->stack_rows);
	capture_pane_clear(t);
	calltree__free(t->tree);
	hotfuncs__free(t->hot);
	hotfuncs_cache__free(t->hot_cache);
	free(t->hot_rows);
	hotlines__free(t->lines);
	source_files__free(t->sources);
	lj_pane__free(t->luajit);
	free(t->io_rows);
	timeline__free(t->timeline);
	export_prompt__free(t->export_prompt);
	u64map__free(t->expanded);
	free(t);
}

#define STATUS_NS (5 * NSEC_PER_SEC) /* how long a message stays in the footer */

/* A new message is stamped; one shown for STATUS_NS goes. */
static void age_status(struct tui *t)
{
	uint64_t now = monotonic_ns();

	if (strcmp(t->view.status, t->shown_status)) {
		snprintf(t->shown_status, sizeof(t->shown_status), "%s", t->view.status);
		t->status_since_ns = now;
	} else if (t->view.status[0] && now - t->status_since_ns > STATUS_NS) {
		t->view.status[0] = t->shown_status[0] = '\0';
	}
}

static void draw(struct tui *t)
{
	int rows, cols, page;

	screen_size(&rows, &cols);
	age_status(t);
	screen_begin(t->clear_next);
	t->clear_next = false;
	memset(&t->layout, 0, sizeof(t->layout));
	if (rows < SCREEN_MIN_ROWS || cols < SCREEN_MIN_COLS) {
		char msg[96];

		snprintf(msg, sizeof(msg), "terminal too small: need %dx%d (now %dx%d)",
			 SCREEN_MIN_COLS, SCREEN_MIN_ROWS, cols, rows);
		screen_text(rows / 2, 0, cols, msg, ROLE_WARN, false);
		if (rows > 1)
			screen_text(rows / 2 + 1, 0, cols, "q quits", ROLE_NORMAL, false);
		t->layout.too_small = true;
		screen_end_frame();
		return;
	}
	page = tui_page(t, rows);
	tui_rows_needed(t, (size_t)page, false);
	view_clamp(&t->view, tui_nr_rows(t), (size_t)page);
	if (t->view.mode == MODE_HELP) {
		help_draw(t, rows, cols);
		screen_end_frame();
		return;
	}
	header_draw(t, cols);
	if (t->timeline)
		timeline_draw(t, HEADER_ROWS, cols);
	ui_panes[t->view.pane]->draw(t, header_rows(t), page + 1, cols);
	footer_draw(t, rows - 1, cols);
	export_prompt_draw(t, rows - 1, cols);
	if (t->view.mode == MODE_GROUP || t->view.mode == MODE_SORT)
		picker_draw(t, rows, cols);
	else if (t->view.mode == MODE_SETUP)
		setup_draw(t, rows, cols);
	screen_end_frame();
}

void tui__frame(struct tui *t)
{
	tui_build(t);
	draw(t);
}

void tui__data_changed(struct tui *t)
{
	t->data_gen++;
}

/* view_env callbacks over the pane on screen. */
static bool env_drill(void *ctx, size_t i, struct crumb *c)
{
	struct tui *t = ctx;
	const struct pane_ops *ops = ui_panes[t->view.pane];

	return ops->drill && ops->drill(t, i, c);
}

static bool env_match(void *ctx, size_t i, const char *text)
{
	struct tui *t = ctx;
	const struct pane_ops *ops = ui_panes[t->view.pane];

	return ops->match && ops->match(t, i, text);
}

static void env_tree(void *ctx, size_t i, int op)
{
	struct tui *t = ctx;
	const struct pane_ops *ops = ui_panes[t->view.pane];

	if (ops->tree)
		ops->tree(t, i, op);
}

/* Whether key may reach any row of the pane: End, and searching (it wraps around). */
static bool key_needs_all_rows(const struct tui *t, int key)
{
	if (t->view.mode == MODE_SEARCH)
		return true;
	return t->view.mode == MODE_NORMAL && (key == UK_END || key == 'n');
}

const int *tui_sort_columns(const struct tui *t, size_t *ret_nr)
{
	const struct pane_ops *ops = ui_panes[t->view.pane];

	if (t->table) {
		*ret_nr = t->nr_columns;
		return t->columns;
	}
	if (ops->columns_of)
		return ops->columns_of(&t->view, ret_nr);
	*ret_nr = ops->nr_columns;
	return ops->columns;
}

static void make_env(struct tui *t, struct view_env *env, int key)
{
	int rows, cols;

	screen_size(&rows, &cols);
	memset(env, 0, sizeof(*env));
	env->page = (size_t)tui_page(t, rows);
	tui_rows_needed(t, env->page, key_needs_all_rows(t, key));
	env->nr_rows = tui_nr_rows(t);
	env->cols = tui_sort_columns(t, &env->nr_cols);
	env->drill = env_drill;
	env->match = env_match;
	env->tree = env_tree;
	env->ctx = t;
}

static int apply(struct tui *t, int rx)
{
	if (rx & RX_QUIT) {
		t->quit = true;
		return rx;
	}
	if (rx & RX_CLEAR) {
		t->clear_next = true;
		rx |= RX_REDRAW;
	}
	if (rx & RX_REQUERY)
		tui_build(t);
	else if (rx & RX_RESORT)
		tui_sort_rows(t);
	if (rx & (RX_REDRAW | RX_REQUERY | RX_RESORT)) {
		tui_remember_selection(t);
		draw(t);
	}
	return rx;
}

/* The mouse: clicks on tabs, column titles, rows, footer keys; the wheel scrolls. */
static int mouse(struct tui *t)
{
	static const int fkeys[] = {UK_F1, UK_F2, UK_F3, UK_F4, UK_F5,
				    UK_F6, UK_F7, UK_F8, UK_F9, UK_F10};
	struct tui_layout *l = &t->layout;
	struct screen_mouse ev;
	struct view_env env;

	screen_mouse(&ev);
	make_env(t, &env, UK_MOUSE);
	if (l->too_small || t->view.mode != MODE_NORMAL)
		return RX_NONE;
	if (ev.wheel) {
		view_move(&t->view, ev.wheel * 3, env.nr_rows, env.page);
		return RX_REDRAW;
	}
	if (ev.y == l->tabs_y) {
		for (int p = 0; p < PANE_MAX; p++)
			if (ev.x >= l->tab_x[p] && ev.x < l->tab_x[p + 1]) {
				t->view.pane = (enum ui_pane)p;
				return RX_REQUERY;
			}
		return RX_NONE;
	}
	if (ev.y == l->colhead_y && l->nr_cols) {
		for (int c = 0; c < l->nr_cols; c++)
			if (ev.x >= l->col_x[c] && ev.x < l->col_x[c + 1]) {
				view_sort_by(&t->view, l->col_id[c]);
				return RX_RESORT;
			}
		return RX_NONE;
	}
	if (ev.y >= l->first_row_y && ev.y < l->first_row_y + l->nr_visible) {
		size_t i = t->view.per_pane[t->view.pane].top + (size_t)(ev.y - l->first_row_y);

		if (i < env.nr_rows)
			view_select(&t->view, i, env.nr_rows, env.page);
		return RX_REDRAW;
	}
	if (ev.y == l->footer_y) {
		for (int k = 9; k >= 0; k--)
			if (l->fkey_x[k] && ev.x >= l->fkey_x[k])
				return keys_dispatch(&t->view, &env, fkeys[k]);
	}
	return RX_NONE;
}

bool tui__key(struct tui *t, int key)
{
	struct view_env env;
	int rx;

	if (key == UK_IGNORED || key == UK_NONE)
		return !t->quit;
	if (key == UK_MOUSE) {
		rx = mouse(t);
	} else {
		if (key == UK_RESIZE)
			screen_resize();
		make_env(t, &env, key);
		if (t->layout.too_small && key != 'q' && key != UK_F10 && key != UK_RESIZE &&
		    key != UK_CTRL_L)
			return true;	 /* nothing to act on: only the message is shown */
		rx = export_key(t, key); /* an open prompt takes every key */
		if (rx < 0) {
			rx = timeline_key(t, key); /* a replay's time-travel keys come first */
			if (rx >= 0 && (rx & RX_REQUERY))
				tui__data_changed(t); /* the replay moved */
		}
		if (rx < 0)
			rx = keys_dispatch(&t->view, &env, key);
	}
	if (t->view.delay_asked > 0) {
		int err = t->host && t->host->set_delay
				  ? t->host->set_delay(t->host, t->view.delay_asked)
				  : -ENOTSUP;

		if (err < 0)
			snprintf(t->view.status, sizeof(t->view.status), "interval not changed: %s",
				 err == -ENOTSUP ? "a replay keeps the recording's intervals"
						 : strerror(-err));
		else
			snprintf(t->view.status, sizeof(t->view.status),
				 "interval now %g s (from the next one on)", t->view.delay_asked);
		if (!err)
			t->delay_s = t->view.delay_s = t->view.delay_asked;
		t->view.delay_asked = 0;
	}
	/* The chooser closed after a change: the rc file keeps it. */
	if (t->view.setup_changed && t->view.mode != MODE_SETUP)
		setup_save(t);
	apply(t, rx);
	return !t->quit;
}

/* --- the front end --------------------------------------------------- */

static int on_stdin(void *ctx, int fd, uint32_t events)
{
	struct tui *t = ctx;
	int key, n = 0;

	/*
	 * Read all that is waiting; a burst of keys costs one frame each at
	 * most. The cap is checked before a key is taken: a key read is a key
	 * acted on (the rest waits for the next call; stdin stays readable).
	 */
	while (n++ < 256 && (key = screen_key()) != UK_NONE) {
		if (!tui__key(t, key)) {
			t->host->quit(t->host);
			return 0;
		}
	}
	if (events & (EPOLLHUP | EPOLLERR)) {
		t->host->quit(t->host); /* the terminal went away */
	}
	return 0;
}

static int on_redraw(void *ctx, uint64_t now, uint64_t expirations)
{
	struct tui *t = ctx;

	if (!t->view.paused)
		tui__frame(t);
	return 0;
}

/* The screen the start-up steps opened, before tui_start takes it over. */
static bool early_screen;
static size_t early_log_mark; /* log_count() when it opened */

/*
 * A start-up step: the first one opens the screen (within milliseconds of
 * the start), each one says what threadtop is doing while it cannot yet
 * show data. NULL: start-up failed; the terminal is given back with the
 * messages logged meanwhile, which curses kept off stderr.
 */
static void tui_progress(void *ctx, const char *step)
{
	sigset_t stop;
	int rows, cols;

	if (!step) {
		size_t n;

		if (!early_screen)
			return;
		screen_close();
		log_set_stderr(true);
		early_screen = false;
		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGHUP);
		sigprocmask(SIG_UNBLOCK, &stop, NULL);
		n = log_count() - early_log_mark;
		if (n > LOG_RING)
			n = LOG_RING;
		while (n-- > 0)
			if (log_line(n))
				fprintf(stderr, "threadtop: %s\n", log_line(n));
		return;
	}
	if (!early_screen) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || screen_open(NULL) < 0)
			return; /* tui_start says why */
		log_set_stderr(false);
		early_screen = true;
		early_log_mark = log_count();
		/* Ctrl-C now would leave the terminal in curses' modes: it waits,
		 * pending, for the loop's signalfd (or for the failure above). */
		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGHUP);
		sigprocmask(SIG_BLOCK, &stop, NULL);
	}
	screen_size(&rows, &cols);
	screen_begin(true);
	screen_text(0, 0, cols, "threadtop " TT_VERSION, ROLE_TITLE, true);
	screen_text(2, 2, cols - 2, "starting:", ROLE_LABEL, false);
	screen_text(2, 12, cols - 12, step, ROLE_NORMAL, true);
	if (rows > 4)
		screen_text(4, 2, cols - 2, "(Ctrl-C stops)", ROLE_DIM, true);
	screen_end_frame();
}

static int tui_start(void *ctx, const struct frontend_host *host)
{
	const struct frontend_settings *o = host->settings(host);
	struct tui *t;
	int err;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		log_msg("the interactive view needs a terminal on stdin and stdout; use -b for "
			"batch output");
		return -ENOTTY;
	}
	t = tui__new(host->model(host), host->source_name(host), o->hz, o->delay_s);
	t->host = host;
	if (host->replaying(host))
		t->timeline = timeline__new();
	err = screen_open(NULL);
	if (err < 0) {
		log_msg("cannot open the terminal (TERM=%s): check TERM or use -b",
			getenv("TERM") ? getenv("TERM") : "");
		tui__free(t);
		return err;
	}
	log_set_stderr(false);
	setup_load(t);
	/* Redraw just after each interval closes (the interval callback runs before). */
	t->redraw_timer = loop__add_timer(host->loop(host), 0, 0, on_redraw, t);
	err = t->redraw_timer < 0 ? t->redraw_timer
				  : loop__add_fd(host->loop(host), STDIN_FILENO, on_stdin, t);
	if (err < 0) {
		screen_close();
		log_set_stderr(true);
		log_msg("cannot watch the terminal: %s", strerror(-err));
		tui__free(t);
		return err;
	}
	*(struct tui **)ctx = t;
	early_screen = false; /* handed over: tui_stop closes it */
	tui__frame(t);
	return 0;
}

static int tui_interval(void *ctx, const struct frontend_host *host, uint64_t now_ns)
{
	struct tui *t = *(struct tui **)ctx;

	if (t) {
		tui__data_changed(t);
		capture_pane_interval(t, model__window_seconds(t->model, WIN_INTERVAL));
	}
	if (t && t->redraw_timer >= 0)
		loop__set_timer(host->loop(host), t->redraw_timer, 1, 0);
	return 0;
}

static void tui_names_changed(void *ctx, const struct frontend_host *host)
{
	struct tui *t = *(struct tui **)ctx;

	if (!t)
		return;
	tui__data_changed(t);
	if (t->redraw_timer >= 0)
		loop__set_timer(host->loop(host), t->redraw_timer, 1, 0);
}

static int tui_signal(void *ctx, const struct frontend_host *host, int signo)
{
	struct tui *t = *(struct tui **)ctx;

	if (t && signo == SIGWINCH)
		tui__key(t, UK_RESIZE);
	return 0;
}

static void tui_stop(void *ctx, const struct frontend_host *host)
{
	struct tui **tp = ctx;

	if (!*tp)
		return;
	loop__remove_fd(host->loop(host), STDIN_FILENO);
	screen_close();
	log_set_stderr(true);
	tui__free(*tp);
	*tp = NULL;
}

static struct tui *the_tui;

const struct frontend tui_frontend = {
	.name = "tui",
	.progress = tui_progress,
	.start = tui_start,
	.interval = tui_interval,
	.signal = tui_signal,
	.names_changed = tui_names_changed,
	.stop = tui_stop,
	.ctx = &the_tui,
};
