// SPDX-License-Identifier: GPL-2.0-only
/*
 * Asks the model for the pane on screen and the header's totals, through a
 * cache: a frame whose query and data are those of an earlier frame (a key
 * that requeries within an interval: typing a filter, picking a sort,
 * pausing, coming back to a pane) reuses that frame's rows, call tree and
 * totals; only the text filter and the sort run again. The data changes
 * when an interval closes or a replay moves (tui__data_changed), and, in
 * the windows that grow between intervals, with every event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "tui_internal.h"

void frame_key_make(const struct tui *t, const struct model_query *q, struct frame_key *k)
{
	struct model_stats st;

	model__stats(t->model, &st);
	memset(k, 0, sizeof(*k));
	k->valid = true;
	k->gen = t->data_gen;
	k->intervals = st.intervals;
	k->interval_start_ns = st.interval_start_ns;
	k->session_start_ns = st.session_start_ns;
	if (q->window != WIN_LAST) { /* the last complete interval stays put until the next */
		k->events = st.events;
		k->now_ns = st.now_ns;
	}
	k->traced = model__traced(t->model);
	k->query = *q;
	k->query.filter.comm_substr = NULL;
	if (q->filter.comm_substr)
		snprintf(k->comm, sizeof(k->comm), "%s", q->filter.comm_substr);
	k->offcpu = t->view.offcpu;
	k->by_comm = t->view.stacks_by_comm;
}

static bool filter_equal(const struct model_filter *a, const struct model_filter *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->state_mask == b->state_mask &&
	       a->syscall == b->syscall && a->wchan_id == b->wchan_id &&
	       a->target_id == b->target_id && a->cgroup_id == b->cgroup_id &&
	       a->stack_ip == b->stack_ip && a->labels_id == b->labels_id &&
	       a->hide_kthreads == b->hide_kthreads && a->hide_user_threads == b->hide_user_threads;
}

bool frame_key_equal(const struct frame_key *a, const struct frame_key *b)
{
	return a->valid && b->valid && a->gen == b->gen && a->intervals == b->intervals &&
	       a->interval_start_ns == b->interval_start_ns &&
	       a->session_start_ns == b->session_start_ns && a->events == b->events &&
	       a->now_ns == b->now_ns && a->traced == b->traced &&
	       a->query.window == b->query.window && a->query.dims == b->query.dims &&
	       a->query.sort == b->query.sort && a->query.reverse == b->query.reverse &&
	       a->query.limit == b->query.limit &&
	       filter_equal(&a->query.filter, &b->query.filter) && !strcmp(a->comm, b->comm) &&
	       a->offcpu == b->offcpu && a->by_comm == b->by_comm;
}

/* The window to ask for: the last complete interval, or the one running before any ended. */
static enum model_window effective_window(const struct tui *t)
{
	struct model_stats st;

	model__stats(t->model, &st);
	if (t->view.window == WIN_LAST && !st.intervals)
		return WIN_INTERVAL;
	return t->view.window;
}

/* The header's figures that do not need a query. */
static void header_stats(struct tui *t, enum model_window w)
{
	struct header_info *hi = &t->header;
	struct model_stats st;

	model__stats(t->model, &st);
	hi->window = w;
	hi->nr_threads = st.nr_threads;
	hi->intervals = st.intervals;
	hi->drops_interval = hi->drops_session = 0;
	for (int r = 0; r < MODEL_DROP_MAX; r++) {
		hi->drops_interval += st.drops_interval[r];
		hi->drops_session += st.drops_session[r];
	}
	hi->tick_ms = st.ticks ? (double)st.tick_cost_ns / 1e6 / (double)st.ticks : 0;
	hi->window_s = model__window_seconds(t->model, w);
	hi->has_host = model__host(t->model, &hi->host);
	if (model__rate(t->model, w, &hi->rate) < 0)
		memset(&hi->rate, 0, sizeof(hi->rate));
	memset(hi->states, 0, sizeof(hi->states));
	hi->cpu_pct = hi->active = hi->samples_per_s = 0;
}

/* The key of the header's totals: the window alone, everything else box-wide. */
static void header_key(const struct tui *t, struct frame_key *k)
{
	struct model_query q;

	model_query_init(&q);
	q.window = t->header.window;
	q.dims = 0;
	frame_key_make(t, &q, k);
	k->offcpu = false;
}

/* Box-wide totals from rows that cover every thread once (an unfiltered per-thread query). */
static void header_from_rows(struct tui *t, const struct model_result *res)
{
	struct header_info *hi = &t->header;

	/* The query summed its rows as it made them (no limit is asked here). */
	for (int s = 0; s < TT_ST_MAX; s++)
		hi->states[s] += res->total_states[s];
	hi->cpu_pct += res->total_cpu_pct;
	hi->active += res->total_active;
	if (res->window_s > 0)
		hi->samples_per_s = (double)res->total_samples / res->window_s;
}

/*
 * Whether header.now must be counted again (the data moved since it was);
 * the caller counts it, so it is marked as counted from this data.
 */
static bool header_now_due(struct tui *t)
{
	struct model_stats st;

	model__stats(t->model, &st);
	if (t->now_gen == t->data_gen + 1 && t->now_events == st.events)
		return false;
	t->now_gen = t->data_gen + 1;
	t->now_events = st.events;
	return true;
}

/*
 * Box-wide totals by a query of their own (the pane's query is filtered or
 * grouped), with the threads alive now counted in the same walk.
 */
static void build_header(struct tui *t)
{
	struct model_result res;

	if (model__box(t->model, t->header.window, &res, &t->header.now) < 0)
		return;
	header_now_due(t);
	header_from_rows(t, &res);
	model_result__release(&res);
}

/* The threads alive now: a walk of every thread, once per data (an interval, a replay's move). */
static void header_now(struct tui *t)
{
	if (header_now_due(t))
		model__now(t->model, &t->header.now);
}

/* Keeps sort_col one of the pane's columns. */
static void fix_sort(struct tui *t)
{
	struct pane_view *pv = &t->view.per_pane[t->view.pane];

	for (size_t i = 0; i < t->nr_columns; i++)
		if (t->columns[i] == pv->sort_col)
			return;
	pv->sort_col = t->table->default_sort;
	pv->reverse = false;
}

/* Rows a frame sorts before the screen asks: two pages past the selection, a few screens at least. */
#define FIRST_ROWS_MIN 256

static size_t first_rows_wanted(const struct tui *t)
{
	const struct pane_view *pv = &t->view.per_pane[t->view.pane];
	size_t at = pv->sel > pv->top ? pv->sel : pv->top;
	size_t want = at + 2 * (size_t)t->layout.nr_visible + 2;

	return want > FIRST_ROWS_MIN ? want : FIRST_ROWS_MIN;
}

/* The pane's cache when the rows on screen are it, else NULL. */
static struct table_cache *rows_cache(struct tui *t)
{
	struct table_cache *c = t->table ? &t->table_caches[t->table->pane] : NULL;

	return c && t->rows == c->rows ? c : NULL;
}

/* Rows sorted on screen are sorted in the cache they are: the next frame finds them so. */
static void rows_sorted_now(struct tui *t)
{
	const struct pane_view *pv = &t->view.per_pane[t->view.pane];
	struct table_cache *c = rows_cache(t);

	if (!c)
		return;
	c->sorted = t->rows_sorted;
	c->sorted_col = pv->sort_col;
	c->sorted_reverse = pv->reverse;
}

void table_pane_rows_own(struct tui *t)
{
	struct model_row *from = t->rows;

	if (from == t->rows_buf && t->rows_buf)
		return;
	xgrow((void **)&t->rows_buf, &t->cap_rows, t->nr_rows ? t->nr_rows : 1,
	      sizeof(*t->rows_buf));
	if (t->nr_rows && from)
		memcpy(t->rows_buf, from, t->nr_rows * sizeof(*t->rows_buf));
	t->rows = t->rows_buf;
}

size_t table_pane_rows_needed(struct tui *t, size_t want)
{
	const struct pane_view *pv = &t->view.per_pane[t->view.pane];

	if (t->table && want > t->rows_sorted && t->rows_sorted < t->nr_rows) {
		/* Every row after the sorted ones comes after all of them: sort them alone. */
		rows_sort(&t->rows_ctx, t->rows + t->rows_sorted, t->nr_rows - t->rows_sorted,
			  pv->sort_col, pv->reverse);
		t->rows_sorted = t->nr_rows;
		rows_sorted_now(t);
	}
	return t->nr_rows;
}

static void restore_selection(struct tui *t)
{
	struct pane_view *pv = &t->view.per_pane[t->view.pane];

	if (!pv->sel_key)
		return;
	for (int pass = 0; pass < 2; pass++) {
		size_t i;

		for (i = 0; i < t->nr_rows && rows_key(&t->rows[i]) != pv->sel_key; i++)
			;
		if (i == t->nr_rows)
			return;
		if (i < t->rows_sorted || pass) {
			pv->sel = i;
			return;
		}
		table_pane_rows_needed(t, SIZE_MAX); /* not in its place yet: sort, find it there */
	}
}

/* Follows the selected row across refreshes, unless it is the first (the top stays the top). */
void tui_remember_selection(struct tui *t)
{
	struct pane_view *pv = &t->view.per_pane[t->view.pane];

	pv->sel_key = 0;
	if (t->table && pv->sel && pv->sel < t->nr_rows)
		pv->sel_key = rows_key(&t->rows[pv->sel]);
}

/* The pane's own order over the sorted rows (the process tree), if it has one. */
static void arrange(struct tui *t)
{
	t->rows_tree = false;
	if (t->table->arrange)
		t->table->arrange(t);
}

void tui_sort_rows(struct tui *t)
{
	const struct pane_ops *ops = ui_panes[t->view.pane];

	if (ops->sort)
		ops->sort(t);
}

void table_pane_sort(struct tui *t)
{
	struct pane_view *pv = &t->view.per_pane[t->view.pane];

	if (!t->table)
		return;
	tui_remember_selection(t);
	fix_sort(t);
	t->rows_sorted = rows_sort_first(&t->rows_ctx, t->rows, t->nr_rows, pv->sort_col,
					 pv->reverse, first_rows_wanted(t));
	rows_sorted_now(t);
	arrange(t);
	restore_selection(t);
}

/*
 * Exact syscall figures (--syscalls) of the threads the filter keeps, by
 * syscall, into c->exact; and a row for every traced syscall no sample caught.
 * Returns false when there are none (not traced, or a window they lack).
 */
static bool syscall_stats(struct tui *t, struct table_cache *c, const struct model_query *pane_q,
			  bool *header_done)
{
	struct model_result threads;
	struct model_query q = *pane_q;
	bool any = false;

	if (!(model__traced(t->model) & MODEL_TRACED_SYSCALLS))
		return false;
	if (!c->exact)
		c->exact = xcalloc(UI_SC_MAX, sizeof(*c->exact));
	memset(c->exact, 0, UI_SC_MAX * sizeof(*c->exact));
	q.dims = DIM_BIT(DIM_TID);
	q.filter.state_mask = 0;
	q.filter.syscall = MODEL_ANY_SYSCALL;
	if (model__query(t->model, &q, &threads) < 0)
		return false;
	/* Every thread once, unfiltered: the header's totals come free. */
	if (!*header_done && !t->view.nr_crumbs && !q.filter.hide_kthreads &&
	    !q.filter.hide_user_threads) {
		header_from_rows(t, &threads);
		*header_done = true;
	}
	for (size_t i = 0; i < threads.nr; i++) {
		struct model_syscall_stat *st = NULL;
		int n = model__thread_syscall_stats(t->model, threads.rows[i].tid, q.window, &st);

		for (int k = 0; k < n; k++) {
			struct sc_stat *d;

			if (st[k].nr < 0 || st[k].nr >= UI_SC_MAX ||
			    (pane_q->filter.syscall != MODEL_ANY_SYSCALL &&
			     st[k].nr != pane_q->filter.syscall))
				continue;
			d = &c->exact[st[k].nr];
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

		if (!c->exact[nr].count)
			continue;
		for (size_t i = 0; i < c->nr && !seen; i++)
			seen = c->rows[i].syscall == nr;
		if (seen)
			continue;
		xgrow((void **)&c->rows, &c->cap, c->nr + 1, sizeof(*c->rows));
		c->rows[c->nr] = (struct model_row){.syscall = nr, .cur_syscall = nr};
		c->nr++;
	}
	return true;
}

/* Asks the model for the table pane's rows into its cache. */
static void fill_table_cache(struct tui *t, struct table_cache *c, const struct model_query *q,
			     bool *header_done)
{
	bool unfiltered = q->dims == DIM_BIT(DIM_TID) && !t->view.nr_crumbs &&
			  !q->filter.hide_kthreads && !q->filter.hide_user_threads;
	struct model_result res = {.rows = c->rows, .cap = c->cap};

	c->nr = 0;
	c->sorted = 0;
	c->show_exact = false;
	c->key.valid = false;
	/* The query walks every thread: the header's threads alive now come with it. */
	if (model__query_into_now(t->model, q, &res, header_now_due(t) ? &t->header.now : NULL) < 0)
		return;
	/* Take the rows; copy what points into threads the model may free. */
	c->rows = res.rows;
	c->cap = res.cap;
	c->nr = res.nr;
	if (res.nr > c->cap_comms) {
		c->cap_comms = res.nr;
		c->comms = xrealloc(c->comms, res.nr * sizeof(*c->comms));
	}
	for (size_t i = 0; i < res.nr; i++) {
		struct model_row *r = &c->rows[i];

		if (r->comm) {
			memcpy(c->comms[i], r->comm, TT_COMM_LEN);
			c->comms[i][TT_COMM_LEN - 1] = '\0';
			r->comm = c->comms[i];
		}
		r->cmdline = NULL;
		r->wchan = NULL;
	}
	if (unfiltered && !*header_done) {
		header_from_rows(t, &res);
		*header_done = true;
	}
	c->rows_ctx = (struct rows_ctx){t->model, q->dims, res.total_samples, res.cpu_valid, NULL};
	if (t->table->exact_syscalls)
		c->show_exact = syscall_stats(t, c, q, header_done);
	frame_key_make(t, q, &c->key);
}

/* Sorts the cache's rows by the pane's column, up to want, unless they are already. */
static void cache_sort(struct tui *t, struct table_cache *c, size_t want)
{
	const struct pane_view *pv = &t->view.per_pane[t->view.pane];

	if (want > c->nr)
		want = c->nr;
	if (c->sorted_col == pv->sort_col && c->sorted_reverse == pv->reverse && c->sorted >= want)
		return;
	c->sorted = rows_sort_first(&t->rows_ctx, c->rows, c->nr, pv->sort_col, pv->reverse, want);
	c->sorted_col = pv->sort_col;
	c->sorted_reverse = pv->reverse;
}

void table_pane_build(struct tui *t, bool *header_done)
{
	struct table_cache *c = &t->table_caches[t->table->pane];
	struct frame_key key;
	struct model_query q;
	bool trimmed;

	tui_remember_selection(t);
	view_query(&t->view, t->view.pane, &q);
	q.window = t->header.window;
	q.sort = SORT_NONE; /* rows_sort orders them, by the pane's column */
	frame_key_make(t, &q, &key);
	if (!frame_key_equal(&key, &c->key))
		fill_table_cache(t, c, &q, header_done);
	t->rows_ctx = c->rows_ctx;
	t->nr_columns = t->table->columns(&t->view, t->columns, TUI_MAX_COLS);
	if (c->show_exact) {
		/* Exact figures first; what sampling adds after (fits 80 columns). */
		static const int exact[] = {COL_SYSCALL, COL_COUNT, COL_TIME,	 COL_P50,
					    COL_P99,	 COL_HIST,  COL_SAMPLES, COL_THREADS};

		t->rows_ctx.sc = c->exact;
		memcpy(t->columns, exact, sizeof(exact));
		t->nr_columns = sizeof(exact) / sizeof(exact[0]);
	}
	fix_sort(t);
	/*
	 * The cached rows are sorted in place, the first screens only when
	 * all go on screen: the next frame of the same data finds them in
	 * order. Rows a filter or the idle rule may drop are sorted whole, so
	 * that the rows shown keep the first screens in order.
	 */
	trimmed = t->view.filter[0] || (t->table->hide_idle && !t->view.show_idle);
	cache_sort(t, c, trimmed ? SIZE_MAX : first_rows_wanted(t));
	/* The rows on screen: the cached ones where they are, or those the filters keep. */
	t->rows = c->rows;
	t->nr_rows = c->nr;
	t->rows_sorted = c->sorted;
	t->hidden_idle = 0;
	if (trimmed) {
		table_pane_rows_own(t);
		t->nr_rows = rows_filter(&t->rows_ctx, t->rows, c->nr, t->columns, t->nr_columns,
					 t->view.filter);
		if (t->table->hide_idle && !t->view.show_idle) {
			size_t n = rows_drop_idle(t->rows, t->nr_rows);

			t->hidden_idle = t->nr_rows - n;
			t->nr_rows = n;
		}
		t->rows_sorted = t->nr_rows;
	}
	arrange(t);
	restore_selection(t);
}

/* The header's totals from the cache when the data is that of their frame. */
static bool header_cached(struct tui *t)
{
	struct header_cache *hc = &t->header_cache;
	struct frame_key k;

	header_key(t, &k);
	if (!frame_key_equal(&k, &hc->key))
		return false;
	memcpy(t->header.states, hc->states, sizeof(hc->states));
	t->header.cpu_pct = hc->cpu_pct;
	t->header.active = hc->active;
	t->header.samples_per_s = hc->samples_per_s;
	return true;
}

static void header_store(struct tui *t)
{
	struct header_cache *hc = &t->header_cache;

	header_key(t, &hc->key);
	memcpy(hc->states, t->header.states, sizeof(hc->states));
	hc->cpu_pct = t->header.cpu_pct;
	hc->active = t->header.active;
	hc->samples_per_s = t->header.samples_per_s;
}

/* Asks the model (or the cache) for the pane on screen and the header. */
void tui_build(struct tui *t)
{
	const struct pane_ops *ops = ui_panes[t->view.pane];
	bool header_done;

	header_stats(t, effective_window(t));
	header_done = header_cached(t);
	t->view.has_labels = false;
	for (unsigned i = 0; i < TT_LABEL_SLOTS; i++)
		t->view.has_labels |= model__label_name(t->model, i) != NULL;
	t->table = ops->table;
	t->hidden_idle = 0;
	if (ops->build)
		ops->build(t, &header_done);
	if (!header_done)
		build_header(t);
	else
		header_now(t);
	header_store(t);
}

void tui_caches_free(struct tui *t)
{
	for (int p = 0; p < TUI_TABLE_PANES; p++) {
		free(t->table_caches[p].rows);
		free(t->table_caches[p].comms);
		free(t->table_caches[p].exact);
	}
	memset(t->table_caches, 0, sizeof(t->table_caches));
	t->header_cache.key.valid = false;
}
