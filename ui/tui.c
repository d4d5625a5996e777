// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TUI front end (see tui.h): owns the view state and the rows of the
 * pane on screen, asks the model when the view or the data changed, and
 * draws a frame after every interval (unless paused), key or resize. The
 * loop keeps draining the sources whatever the UI does: nothing here blocks.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "keys.h"
#include "screen.h"
#include "export_key.h"
#include "timeline.h"
#include "threadtop/log.h"
#include "threadtop/util.h"
#include "tui_internal.h"

#define HEADER_ROWS 6 /* title, meters, CPUs + USE verdict, summary, tabs, breadcrumb */

/* The header, and in a replay the timeline under it. */
static int header_rows(const struct tui *t)
{
	return HEADER_ROWS + (t->tl ? 1 : 0);
}

int tui_page(const struct tui *t, int rows)
{
	int h = rows - header_rows(t) - 2; /* column titles, footer */

	return h > 0 ? h : 0;
}

size_t tui_nr_rows(const struct tui *t)
{
	switch (t->v.pane) {
	case PANE_STACKS:
		return t->nr_flat;
	case PANE_LOG:
		return log_count();
	case PANE_LUAJIT:
		return luajit_nr_rows(t);
	case PANE_USE:
		return use_pane_rows((struct tui *)t);
	case PANE_TRACES:
		return t->nr_caplines;
	default:
		return t->nr_rows;
	}
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

	t->m = m;
	t->source = source;
	t->hz = hz;
	t->delay_s = delay_s;
	t->redraw_timer = -1;
	t->expanded = u64map__new();
	t->hi.ncpu = count_cpus();
	t->xp = export_prompt__new();
	view_init(&t->v);
	return t;
}

void tui__free(struct tui *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->comms);
	free(t->sc);
	free(t->flat);
	capture_pane_clear(t);
	calltree__free(t->tree);
	lj_pane__free(t->lj);
	timeline__free(t->tl);
	export_prompt__free(t->xp);
	u64map__free(t->expanded);
	free(t);
}

/* The window to ask for: the last complete interval, or the one running before any ended. */
static enum model_window effective_window(const struct tui *t)
{
	struct model_stats st;

	model__stats(t->m, &st);
	if (t->v.window == WIN_LAST && !st.intervals)
		return WIN_INTERVAL;
	return t->v.window;
}

/* The header's figures that do not need a query. */
static void header_stats(struct tui *t, enum model_window w)
{
	struct header_info *hi = &t->hi;
	struct model_stats st;

	model__stats(t->m, &st);
	hi->window = w;
	hi->nr_threads = st.nr_threads;
	hi->intervals = st.intervals;
	hi->drops_interval = hi->drops_session = 0;
	for (int r = 0; r < TT_DROP_MAX; r++) {
		hi->drops_interval += st.drops_interval[r];
		hi->drops_session += st.drops_session[r];
	}
	hi->tick_ms = st.ticks ? (double)st.tick_cost_ns / 1e6 / (double)st.ticks : 0;
	hi->window_s = model__window_seconds(t->m, w);
	memset(hi->states, 0, sizeof(hi->states));
	hi->cpu_pct = hi->active = hi->samples_per_s = 0;
}

/* Box-wide totals from rows that cover every thread once (an unfiltered per-thread query). */
static void header_from_rows(struct tui *t, const struct model_result *res)
{
	struct header_info *hi = &t->hi;

	for (size_t i = 0; i < res->nr; i++) {
		const struct model_row *r = &res->rows[i];

		for (int s = 0; s < TT_ST_MAX; s++)
			hi->states[s] += r->state_samples[s];
		hi->cpu_pct += r->cpu_pct;
		hi->active += r->avg_active;
	}
	if (res->window_s > 0)
		hi->samples_per_s = (double)res->total_samples / res->window_s;
}

/* Box-wide totals by a query of their own (the pane's query is filtered or grouped). */
static void build_header(struct tui *t)
{
	struct model_result res;
	struct model_query q;

	model_query_init(&q);
	q.window = t->hi.window;
	q.dims = 0;
	if (model__query(t->m, &q, &res) < 0)
		return;
	header_from_rows(t, &res);
	model_result__release(&res);
}

/* Keeps sort_col one of the pane's columns. */
static void fix_sort(struct tui *t)
{
	struct pane_view *pv = &t->v.pv[t->v.pane];

	for (size_t i = 0; i < t->nr_cols; i++)
		if (t->cols[i] == pv->sort_col)
			return;
	pv->sort_col = t->v.pane == PANE_THREADS ? COL_ACTIVE : COL_SAMPLES;
	pv->reverse = false;
}

static void restore_selection(struct tui *t)
{
	struct pane_view *pv = &t->v.pv[t->v.pane];

	if (!pv->sel_key)
		return;
	for (size_t i = 0; i < t->nr_rows; i++) {
		if (rows_key(&t->rows[i]) == pv->sel_key) {
			pv->sel = i;
			return;
		}
	}
}

/* Follows the selected row across refreshes, unless it is the first (the top stays the top). */
static void remember_selection(struct tui *t)
{
	struct pane_view *pv = &t->v.pv[t->v.pane];

	pv->sel_key = 0;
	if (t->tp && pv->sel && pv->sel < t->nr_rows)
		pv->sel_key = rows_key(&t->rows[pv->sel]);
}

static void sort_rows(struct tui *t)
{
	struct pane_view *pv = &t->v.pv[t->v.pane];

	if (t->v.pane == PANE_STACKS) {
		stacks_flatten(t);
		return;
	}
	if (!t->tp)
		return;
	remember_selection(t);
	fix_sort(t);
	rows_sort(&t->rc, t->rows, t->nr_rows, pv->sort_col, pv->reverse);
	restore_selection(t);
}

/*
 * Exact syscall figures (--syscalls) of the threads the filter keeps, by
 * syscall, into t->sc; and a row for every traced syscall no sample caught.
 * Returns false when there are none (not traced, or a window they lack).
 */
static bool syscall_stats(struct tui *t, const struct model_query *pane_q, bool *header_done)
{
	struct model_result threads;
	struct model_query q = *pane_q;
	bool any = false;

	if (!(model__traced(t->m) & MODEL_TRACED_SYSCALLS))
		return false;
	if (!t->sc)
		t->sc = xcalloc(UI_SC_MAX, sizeof(*t->sc));
	memset(t->sc, 0, UI_SC_MAX * sizeof(*t->sc));
	q.dims = DIM_BIT(DIM_TID);
	q.filter.state_mask = 0;
	q.filter.syscall = MODEL_ANY_SYSCALL;
	if (model__query(t->m, &q, &threads) < 0)
		return false;
	/* Every thread once, unfiltered: the header's totals come free. */
	if (!*header_done && !t->v.nr_crumbs && !q.filter.hide_kthreads &&
	    !q.filter.hide_user_threads) {
		header_from_rows(t, &threads);
		*header_done = true;
	}
	for (size_t i = 0; i < threads.nr; i++) {
		struct model_syscall_stat *st = NULL;
		int n = model__thread_syscall_stats(t->m, threads.rows[i].tid, q.window, &st);

		for (int k = 0; k < n; k++) {
			struct sc_stat *d;

			if (st[k].nr < 0 || st[k].nr >= UI_SC_MAX ||
			    (pane_q->filter.syscall != MODEL_ANY_SYSCALL &&
			     st[k].nr != pane_q->filter.syscall))
				continue;
			d = &t->sc[st[k].nr];
			d->count += st[k].count;
			d->total_ns += st[k].total_ns;
			for (int b = 0; b < TT_SYSCALL_HIST_BUCKETS; b++)
				d->hist[b] += st[k].hist[b];
			any = true;
		}
		free(st);
	}
	model_result__release(&threads);
	if (!any)
		return false;
	/* Syscalls too short for any sample to catch still get their row. */
	for (int nr = 0; nr < UI_SC_MAX; nr++) {
		bool seen = false;

		if (!t->sc[nr].count)
			continue;
		for (size_t i = 0; i < t->nr_rows && !seen; i++)
			seen = t->rows[i].syscall == nr;
		if (seen)
			continue;
		t->rows = xrealloc(t->rows, (t->nr_rows + 1) * sizeof(*t->rows));
		t->rows[t->nr_rows] = (struct model_row){.syscall = nr, .cur_syscall = nr};
		t->nr_rows++;
	}
	return true;
}

static void build_table(struct tui *t)
{
	struct model_result res;
	struct model_query q;
	bool unfiltered;

	remember_selection(t);
	free(t->rows);
	t->rows = NULL;
	t->nr_rows = 0;
	view_query(&t->v, t->v.pane, &q);
	q.window = t->hi.window;
	unfiltered = q.dims == DIM_BIT(DIM_TID) && !t->v.nr_crumbs && !q.filter.hide_kthreads &&
		     !q.filter.hide_user_threads;
	if (model__query(t->m, &q, &res) < 0)
		return;
	/* Take the rows; copy what points into threads the model may free. */
	t->rows = res.rows;
	t->nr_rows = res.nr;
	if (res.nr > t->cap_comms) {
		t->cap_comms = res.nr;
		t->comms = xrealloc(t->comms, res.nr * sizeof(*t->comms));
	}
	for (size_t i = 0; i < res.nr; i++) {
		struct model_row *r = &t->rows[i];

		if (r->comm) {
			memcpy(t->comms[i], r->comm, TT_COMM_LEN);
			t->comms[i][TT_COMM_LEN - 1] = '\0';
			r->comm = t->comms[i];
		}
		r->cmdline = NULL;
		r->wchan = NULL;
	}
	if (unfiltered)
		header_from_rows(t, &res);
	t->rc = (struct rows_ctx){t->m, q.dims, res.total_samples, res.cpu_valid, NULL};
	t->nr_cols = t->tp->columns(&t->v, t->cols, TUI_MAX_COLS);
	if (t->v.pane == PANE_SYSCALLS && syscall_stats(t, &q, &unfiltered)) {
		/* Exact figures first; what sampling adds after (fits 80 columns). */
		static const int exact[] = {COL_SYSCALL, COL_COUNT, COL_TIME,	 COL_P50,
					    COL_P99,	 COL_HIST,  COL_SAMPLES, COL_THREADS};

		t->rc.sc = t->sc;
		memcpy(t->cols, exact, sizeof(exact));
		t->nr_cols = sizeof(exact) / sizeof(exact[0]);
	}
	if (!unfiltered) /* the header's totals: a query of their own */
		build_header(t);
	t->nr_rows = rows_filter(&t->rc, t->rows, t->nr_rows, t->cols, t->nr_cols, t->v.filter);
	fix_sort(t);
	rows_sort(&t->rc, t->rows, t->nr_rows, t->v.pv[t->v.pane].sort_col,
		  t->v.pv[t->v.pane].reverse);
	restore_selection(t);
}

/* Asks the model again for the pane on screen and the header. */
static void build(struct tui *t)
{
	header_stats(t, effective_window(t));
	t->v.has_labels = false;
	for (unsigned i = 0; i < TT_LABEL_SLOTS; i++)
		t->v.has_labels |= model__label_name(t->m, i) != NULL;
	t->tp = table_pane_of(t->v.pane);
	if (t->tp) {
		build_table(t);
		return;
	}
	build_header(t);
	if (t->v.pane == PANE_STACKS)
		stacks_build(t);
	else if (t->v.pane == PANE_LUAJIT)
		luajit_build(t);
	else if (t->v.pane == PANE_TRACES)
		capture_pane_build(t);
}

static void draw(struct tui *t)
{
	int rows, cols, page;

	screen_size(&rows, &cols);
	screen_begin(t->clear_next);
	t->clear_next = false;
	memset(&t->lay, 0, sizeof(t->lay));
	if (rows < SCREEN_MIN_ROWS || cols < SCREEN_MIN_COLS) {
		char msg[96];

		snprintf(msg, sizeof(msg), "terminal too small: need %dx%d (now %dx%d)",
			 SCREEN_MIN_COLS, SCREEN_MIN_ROWS, cols, rows);
		screen_text(rows / 2, 0, cols, msg, ROLE_WARN, false);
		if (rows > 1)
			screen_text(rows / 2 + 1, 0, cols, "q quits", ROLE_NORMAL, false);
		t->lay.too_small = true;
		screen_end_frame();
		return;
	}
	page = tui_page(t, rows);
	view_clamp(&t->v, tui_nr_rows(t), (size_t)page);
	if (t->v.mode == MODE_HELP) {
		help_draw(t, rows, cols);
		screen_end_frame();
		return;
	}
	header_draw(t, cols);
	if (t->tl)
		timeline_draw(t, HEADER_ROWS, cols);
	switch (t->v.pane) {
	case PANE_STACKS:
		stacks_draw(t, header_rows(t), page + 1, cols);
		break;
	case PANE_LOG:
		log_pane_draw(t, header_rows(t), page + 1, cols);
		break;
	case PANE_LUAJIT:
		luajit_draw(t, header_rows(t), page + 1, cols);
		break;
	case PANE_USE:
		use_pane_draw(t, header_rows(t), page + 1, cols);
		break;
	case PANE_TRACES:
		capture_pane_draw(t, header_rows(t), page + 1, cols);
		break;
	default:
		table_draw(t, header_rows(t), page + 1, cols);
		break;
	}
	footer_draw(t, rows - 1, cols);
	export_prompt_draw(t, rows - 1, cols);
	if (t->v.mode == MODE_GROUP || t->v.mode == MODE_SORT)
		picker_draw(t, rows, cols);
	screen_end_frame();
}

void tui__frame(struct tui *t)
{
	build(t);
	draw(t);
}

/* view_env callbacks over the pane on screen. */
static bool env_drill(void *ctx, size_t i, struct crumb *c)
{
	struct tui *t = ctx;

	if (t->v.pane == PANE_STACKS)
		return stacks_drill(t, i, c);
	if (t->v.pane == PANE_LUAJIT)
		return luajit_drill(t, i, c);
	if (!t->tp || i >= t->nr_rows)
		return false;
	return t->tp->drill(&t->v, &t->rc, &t->rows[i], c);
}

static bool env_match(void *ctx, size_t i, const char *text)
{
	struct tui *t = ctx;

	if (t->v.pane == PANE_STACKS)
		return stacks_match(t, i, text);
	if (t->v.pane == PANE_LOG)
		return log_pane_match(i, text);
	if (t->v.pane == PANE_LUAJIT)
		return luajit_match(t, i, text);
	if (t->v.pane == PANE_USE)
		return use_pane_match(t, i, text);
	if (t->v.pane == PANE_TRACES)
		return capture_pane_match(t, i, text);
	if (!t->tp || i >= t->nr_rows)
		return false;
	return rows_match(&t->rc, &t->rows[i], t->cols, t->nr_cols, text);
}

static void env_tree(void *ctx, size_t i, int op)
{
	stacks_tree_op(ctx, i, op);
}

static void make_env(struct tui *t, struct view_env *env)
{
	static const int stack_cols[] = {COL_SAMPLES};
	int rows, cols;

	screen_size(&rows, &cols);
	memset(env, 0, sizeof(*env));
	env->nr_rows = tui_nr_rows(t);
	env->page = (size_t)tui_page(t, rows);
	if (t->tp) {
		env->cols = t->cols;
		env->nr_cols = t->nr_cols;
	} else if (t->v.pane == PANE_STACKS) {
		env->cols = stack_cols;
		env->nr_cols = 1;
	}
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
		build(t);
	else if (rx & RX_RESORT)
		sort_rows(t);
	if (rx & (RX_REDRAW | RX_REQUERY | RX_RESORT)) {
		remember_selection(t);
		draw(t);
	}
	return rx;
}

/* The mouse: clicks on tabs, column titles, rows, footer keys; the wheel scrolls. */
static int mouse(struct tui *t)
{
	static const int fkeys[] = {UK_F1, UK_F2, UK_F3, UK_F4, UK_F5,
				    UK_F6, UK_F7, UK_F8, UK_F9, UK_F10};
	struct tui_layout *l = &t->lay;
	struct screen_mouse ev;
	struct view_env env;

	screen_mouse(&ev);
	make_env(t, &env);
	if (l->too_small || t->v.mode != MODE_NORMAL)
		return RX_NONE;
	if (ev.wheel) {
		view_move(&t->v, ev.wheel * 3, env.nr_rows, env.page);
		return RX_REDRAW;
	}
	if (ev.y == l->tabs_y) {
		for (int p = 0; p < PANE_MAX; p++)
			if (ev.x >= l->tab_x[p] && ev.x < l->tab_x[p + 1]) {
				t->v.pane = (enum ui_pane)p;
				return RX_REQUERY;
			}
		return RX_NONE;
	}
	if (ev.y == l->colhead_y && l->nr_cols) {
		for (int c = 0; c < l->nr_cols; c++)
			if (ev.x >= l->col_x[c] && ev.x < l->col_x[c + 1]) {
				view_sort_by(&t->v, l->col_id[c]);
				return RX_RESORT;
			}
		return RX_NONE;
	}
	if (ev.y >= l->first_row_y && ev.y < l->first_row_y + l->nr_visible) {
		size_t i = t->v.pv[t->v.pane].top + (size_t)(ev.y - l->first_row_y);

		if (i < env.nr_rows)
			view_select(&t->v, i, env.nr_rows, env.page);
		return RX_REDRAW;
	}
	if (ev.y == l->footer_y) {
		for (int k = 9; k >= 0; k--)
			if (l->fkey_x[k] && ev.x >= l->fkey_x[k])
				return keys_dispatch(&t->v, &env, fkeys[k]);
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
		make_env(t, &env);
		if (t->lay.too_small && key != 'q' && key != UK_F10 && key != UK_RESIZE &&
		    key != UK_CTRL_L)
			return true;	 /* nothing to act on: only the message is shown */
		rx = export_key(t, key); /* an open prompt takes every key */
		if (rx < 0)
			rx = timeline_key(t, key); /* a replay's time-travel keys come first */
		if (rx < 0)
			rx = keys_dispatch(&t->v, &env, key);
	}
	apply(t, rx);
	return !t->quit;
}

/* --- the front end --------------------------------------------------- */

static int on_stdin(void *ctx, int fd, uint32_t events)
{
	struct tui *t = ctx;
	int key, n = 0;

	/* Read all that is waiting; a burst of keys costs one frame each at most. */
	while ((key = screen_key()) != UK_NONE && n++ < 256) {
		if (!tui__key(t, key)) {
			app_quit(t->app);
			return 0;
		}
	}
	if (events & (EPOLLHUP | EPOLLERR)) {
		app_quit(t->app); /* the terminal went away */
	}
	return 0;
}

static int on_redraw(void *ctx, uint64_t now, uint64_t expirations)
{
	struct tui *t = ctx;

	if (!t->v.paused)
		tui__frame(t);
	return 0;
}

static int tui_start(void *ctx, struct app *app)
{
	const struct options *o = app_options(app);
	struct tui *t;
	int err;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		log_msg("the interactive view needs a terminal on stdin and stdout; use -b for "
			"batch output");
		return -ENOTTY;
	}
	t = tui__new(app_model(app), app_source_name(app), o->hz, o->delay_s);
	t->app = app;
	if (app_replaying(app))
		t->tl = timeline__new();
	err = screen_open(NULL);
	if (err < 0) {
		log_msg("cannot open the terminal (TERM=%s): check TERM or use -b",
			getenv("TERM") ? getenv("TERM") : "");
		tui__free(t);
		return err;
	}
	log_set_stderr(false);
	/* Redraw just after each interval closes (the interval callback runs before). */
	t->redraw_timer = loop__add_timer(app_loop(app), 0, 0, on_redraw, t);
	err = t->redraw_timer < 0 ? t->redraw_timer
				  : loop__add_fd(app_loop(app), STDIN_FILENO, on_stdin, t);
	if (err < 0) {
		screen_close();
		log_set_stderr(true);
		log_msg("cannot watch the terminal: %s", strerror(-err));
		tui__free(t);
		return err;
	}
	*(struct tui **)ctx = t;
	tui__frame(t);
	return 0;
}

static int tui_interval(void *ctx, struct app *app, uint64_t now_ns)
{
	struct tui *t = *(struct tui **)ctx;

	if (t)
		capture_pane_interval(t, model__window_seconds(t->m, WIN_INTERVAL));
	if (t && t->redraw_timer >= 0)
		loop__set_timer(app_loop(app), t->redraw_timer, 1, 0);
	return 0;
}

static int tui_signal(void *ctx, struct app *app, int signo)
{
	struct tui *t = *(struct tui **)ctx;

	if (t && signo == SIGWINCH)
		tui__key(t, UK_RESIZE);
	return 0;
}

static void tui_stop(void *ctx, struct app *app)
{
	struct tui **tp = ctx;

	if (!*tp)
		return;
	loop__remove_fd(app_loop(app), STDIN_FILENO);
	screen_close();
	log_set_stderr(true);
	tui__free(*tp);
	*tp = NULL;
}

static struct tui *the_tui;

const struct frontend tui_frontend = {
	.name = "tui",
	.start = tui_start,
	.interval = tui_interval,
	.signal = tui_signal,
	.stop = tui_stop,
	.ctx = &the_tui,
};
