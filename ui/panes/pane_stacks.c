// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Stacks pane: the merged call tree of the window's samples, on-CPU
 * (running) or off-CPU (waiting), with inclusive and self columns, expanded
 * along the hottest path until the user expands or collapses a node. Frames
 * show by name through the model's frame namer ("[k]" marks kernel frames,
 * "[inlined]" functions the compiler inlined into the frame above;
 * addresses in a replay). On-CPU, LuaJIT threads show their sysprof
 * samples, Lua frames ("[lua]", another colour) stitched into the C stack.
 * A name too long for its column loses its middle, marked (elide.h); a
 * tree too deep shows its innermost levels after the marker. With the
 * /proc source there are no stacks, and the pane says so.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elide.h"
#include "escape.h"
#include "keys.h"
#include "screen.h"
#include "lj_model.h"
#include "util.h"
#include "tui_internal.h"

#define HOT_PATH_MAX 256
#define EXPAND_SUBTREE_MAX 20000
#define NAME_MIN 28 /* columns a frame's name keeps however deep the tree */

/* The pane's columns, fitted as the table panes' are (cols_fit). */
enum { SC_TOTAL, SC_SELF, SC_COUNT, SC_TREE, SC_MAX };
static const struct ui_column stack_cols[SC_MAX] = {
	[SC_TOTAL] = {"TOTAL%", 7, COLK_NUMBER, 0, 0, NULL},
	[SC_SELF] = {"SELF%", 6, COLK_NUMBER, 50, 0, NULL},
	[SC_COUNT] = {"SAMPLES", 8, COLK_NUMBER, 40, 0, NULL}, /* off-CPU: TIME ms */
	[SC_TREE] = {"CALL TREE", 0, COLK_TEXT, 0, NAME_MIN + 16, NULL},
};

static bool is_expanded(void *ctx, const struct calltree_node *n)
{
	struct tui *t = ctx;

	return t->all_expanded || u64map__get(t->expanded, n->path);
}

static void expand_hot_path(struct tui *t)
{
	uint32_t path[HOT_PATH_MAX];
	size_t n = calltree__hot_path(t->tree, path, HOT_PATH_MAX);

	for (size_t i = 0; i < n; i++)
		u64map__put(t->expanded, calltree__node(t->tree, path[i])->path, (void *)1);
}

static void clear_expanded(struct tui *t)
{
	u64map__free(t->expanded);
	t->expanded = u64map__new();
}

/* The path of the selected frame to follow, 0 when none or on the first row (stay on top). */
static uint64_t selected_path(const struct tui *t)
{
	size_t sel = t->view.per_pane[PANE_STACKS].sel;

	return t->tree && sel && sel < t->stack_rows.nr
		       ? calltree__node(t->tree, t->stack_rows.rows[sel])->path
		       : 0;
}

/* Starts the rows over (made as the screen needs them), keeping frame key selected. */
static void flatten_keeping(struct tui *t, uint64_t key)
{
	stack_rows_reset(&t->stack_rows, t->tree, is_expanded, t);
	/* Keep the same frame selected when the tree changes around it. */
	if (key) {
		size_t i = stack_rows_find(&t->stack_rows, key);

		if (i != SIZE_MAX)
			t->view.per_pane[PANE_STACKS].sel = i;
	}
}

static size_t stacks_rows(struct tui *t, size_t want)
{
	if (t->view.stacks_lines)
		return lines_nr_rows(t);
	if (t->view.stacks_hot)
		return hot_rows_needed(t, want);
	return stack_rows_fill(&t->stack_rows, want);
}

static void stacks_flatten(struct tui *t)
{
	if (t->view.stacks_lines)
		return; /* in their one order */
	if (t->view.stacks_hot)
		hot_sort(t);
	else
		flatten_keeping(t, selected_path(t));
}

/* Whether a traced stack row passes the drill-down filter. */
static bool keep_row(const struct tui *t, const struct model_filter *f,
		     const struct model_stack_row *r)
{
	if ((f->pid && r->pid != f->pid) || (f->tid && r->tid != f->tid))
		return false;
	if (f->comm_substr && (!r->comm || !strstr(r->comm, f->comm_substr)))
		return false;
	if (!model__stack_row_labels_pass(f, r))
		return false;
	return !f->stack_ip || model__stack_holds(t->model, r->kstack_id, f->stack_ip) ||
	       model__stack_holds(t->model, r->ustack_id, f->stack_ip);
}

/* Stack pairs being merged, per process: the tree's input. */
struct pairs {
	struct model_stack_counts set;
	uint64_t total;
};

/*
 * Rows the filter keeps, with the time they stand for: their ns
 * (model__oncpu_stacks), else their value (off-CPU: ns).
 */
static void add_rows(struct tui *t, const struct model_filter *f,
		     const struct model_stack_row *rows, int n, struct pairs *p)
{
	for (int i = 0; i < n; i++) {
		const struct model_stack_row *r = &rows[i];

		if (!keep_row(t, f, r))
			continue;
		p->total += r->value;
		model_stack_counts__add(&p->set, r->kstack_id, r->ustack_id, r->pid,
					r->pcomm ? r->pcomm : r->comm, r->value,
					r->ns ? r->ns : r->value);
	}
}

/* The CPU-clock sampler's period, as the exports weigh its samples (profile.c). */
static uint64_t cpu_period_ns(const struct tui *t)
{
	const struct frontend_settings *o = t->host ? t->host->settings(t->host) : NULL;

	return model_cpu_period_ns(o ? o->cpu_hz : 0);
}

/* What one thread sample stands for in window, as the model weighs it (model__stack_samples). */
static uint64_t thread_period_ns(const struct tui *t, enum model_window window)
{
	return (uint64_t)(model__sample_weight_s(t->model, window) * 1e6 + 0.5) * NSEC_PER_USEC;
}

/*
 * The pairs of the tree as every view takes them (model__oncpu_stacks):
 * on-CPU, LuaJIT threads' sysprof samples, with their Lua frames stitched
 * into the C stack, in place of their other stacks, and the CPU-clock
 * sampler's (when it ran, else the thread samples') of the other threads,
 * weighed by time and counted in samples of the other source's period;
 * off-CPU, sched_switch's time (ns) when it was traced. Sets
 * t->stacks_traced (the tracer's rows, not the thread samples') and
 * t->stacks_luajit. Returns false when a query failed.
 */
static bool merged_pairs(struct tui *t, const struct model_query *q, struct pairs *p)
{
	unsigned tr = model__traced(t->model);
	struct u64map *skip = u64map__new();
	struct model_stack_row *rows = NULL;
	bool traced = t->view.offcpu ? tr & MODEL_TRACED_OFFCPU : tr & MODEL_TRACED_ONCPU;
	uint64_t unit = traced ? 0 : thread_period_ns(t, q->window);
	int n, nlj = 0;

	if (!unit)
		unit = cpu_period_ns(t);

	if (t->view.offcpu)
		n = traced ? model__offcpu(t->model, q->window, &rows) : 0;
	else
		n = model__oncpu_stacks(t->model, q->window, unit, traced, skip, &rows);
	for (int i = 0; i < n && !t->view.offcpu; i++)
		nlj += u64map__get(skip, rows[i].tid) != NULL;
	t->stacks_luajit = nlj > 0;
	t->stacks_traced = traced && n >= 0;
	if (n > 0)
		add_rows(t, &q->filter, rows, n, p);
	free(rows);
	if (n >= 0 && !traced) {
		struct model_stack_count *pairs = NULL;
		uint64_t total = 0;
		int nr = model__stack_samples_except(t->model, q, skip, &pairs, &total);

		if (nr < 0)
			n = nr;
		if (!p->set.nr && nr > 0) {
			/* The only source: its pairs are already merged, take them as they are. */
			p->set.out = pairs;
			p->set.nr = p->set.cap = (size_t)nr;
			pairs = NULL;
		}
		for (int i = 0; i < nr && pairs; i++)
			model_stack_counts__add(&p->set, pairs[i].kstack_id, pairs[i].ustack_id,
						pairs[i].pid, pairs[i].comm, pairs[i].samples,
						pairs[i].ns);
		p->total += total;
		free(pairs);
	}
	u64map__free(skip);
	return n >= 0;
}

bool stacks_pairs(struct tui *t, const struct model_query *q, struct model_stack_counts *set,
		  uint64_t *ret_total)
{
	struct pairs p = {0};
	bool ok = merged_pairs(t, q, &p);

	model_stack_counts__done(&p.set);
	*set = p.set;
	*ret_total = p.total;
	return ok;
}

static void stacks_build(struct tui *t, bool *header_done)
{
	struct model_stack_counts set;
	uint64_t key, total;
	struct frame_key fk;
	struct model_query q;
	bool ok;

	if (t->view.stacks_lines) {
		lines_build(t);
		return;
	}
	if (t->view.stacks_hot) {
		hot_build(t);
		return;
	}
	key = selected_path(t); /* before the old tree goes */
	(void)header_done;
	view_query(&t->view, PANE_STACKS, &q);
	q.window = t->header.window;
	frame_key_make(t, &q, &fk);
	if (t->tree && frame_key_equal(&fk, &t->tree_key))
		return; /* the same data: the tree, what is open and its rows stand */
	ok = stacks_pairs(t, &q, &set, &total);
	calltree__free(t->tree);
	t->tree = NULL;
	t->window_samples = total;
	t->stack_weight = 0;
	if (ok) {
		/* A root node per process (or per comm), as the folded export roots stacks. */
		t->tree = calltree__new_flags(
			t->model, set.out, set.nr,
			CALLTREE_PROCESSES | (t->view.stacks_by_comm ? CALLTREE_MERGE_COMM : 0));
		t->stack_weight = calltree__node(t->tree, CALLTREE_ROOT)->total_weight;
		if (!t->view.tree_touched) {
			clear_expanded(t);
			expand_hot_path(t);
		}
	}
	free(set.out);
	t->tree_key = fk;
	flatten_keeping(t, key);
}

static void expand_subtree(struct tui *t, uint32_t i, size_t *budget)
{
	uint32_t c;

	if (!*budget)
		return;
	(*budget)--;
	calltree__expand(t->tree, i); /* node pointers may move: work by index */
	u64map__put(t->expanded, calltree__node(t->tree, i)->path, (void *)1);
	for (c = calltree__node(t->tree, i)->first_child; c != CALLTREE_NONE;
	     c = calltree__node(t->tree, c)->next_sibling)
		if (calltree__node(t->tree, c)->nr_children)
			expand_subtree(t, c, budget);
}

static void stacks_tree_op(struct tui *t, size_t row, int op)
{
	const struct calltree_node *n;
	size_t budget = EXPAND_SUBTREE_MAX;

	if (t->view.stacks_hot || t->view.stacks_lines || !t->tree || row >= t->stack_rows.nr)
		return;
	n = calltree__node(t->tree, t->stack_rows.rows[row]);
	switch (op) {
	case '+':
		u64map__put(t->expanded, n->path, (void *)1);
		break;
	case '-':
		if (is_expanded(t, n) && n->nr_children) {
			uint64_t path = n->path; /* n may move while the tree grows */

			if (t->all_expanded) {
				/* Leave "all" mode keeping every other node open. */
				t->all_expanded = false;
				expand_subtree(t, CALLTREE_ROOT, &budget);
			}
			u64map__remove(t->expanded, path);
		} else if (n->parent != CALLTREE_ROOT && n->parent != CALLTREE_NONE) {
			/* On a closed node, Left goes to its parent, as in a file tree. */
			for (size_t i = 0; i < t->stack_rows.nr; i++)
				if (t->stack_rows.rows[i] == n->parent)
					t->view.per_pane[PANE_STACKS].sel = i;
		}
		break;
	case '*':
		expand_subtree(t, t->stack_rows.rows[row], &budget);
		break;
	case 'E':
		if (t->all_expanded) {
			t->all_expanded = false;
			clear_expanded(t);
		} else {
			t->all_expanded = true;
		}
		break;
	default:
		break;
	}
}

static void frame_text(struct tui *t, const struct calltree_node *n, char *buf, size_t len)
{
	if (n->process) { /* the folded export's root frame: comm, with its pid unless merged */
		char comm[TT_COMM_LEN * 4 + 1];

		escape_for_terminal(n->comm, strlen(n->comm), comm, sizeof(comm));
		if (n->pid)
			snprintf(buf, len, "%s [%u]", comm[0] ? comm : "[unknown]", n->pid);
		else
			snprintf(buf, len, "%s", comm[0] ? comm : "[unknown]");
		return;
	}
	rows_frame_inlined(t->model,
			   calltree__node_pid(t->tree, (uint32_t)(n - calltree__node(t->tree, 0))),
			   n->ip, n->kernel, n->inlined, buf, len);
}

static bool stacks_drill(struct tui *t, size_t row, struct crumb *c)
{
	const struct calltree_node *n;
	char buf[256], name[CRUMB_LABEL];

	if (t->view.stacks_lines)
		return false; /* a line: nothing narrower to show */
	if (t->view.stacks_hot)
		return hot_drill(t, row, c);
	if (!t->tree || row >= t->stack_rows.nr)
		return false;
	n = calltree__node(t->tree, t->stack_rows.rows[row]);
	frame_text(t, n, buf, sizeof(buf));
	if (n->process) { /* a process node narrows to the process (or its comm) */
		c->pid = n->pid;
		if (!n->pid)
			snprintf(c->comm, sizeof(c->comm), "%s", n->comm);
		snprintf(c->label, sizeof(c->label), "process %.*s", (int)sizeof(c->label) - 9,
			 buf);
		return true;
	}
	c->stack_ip = n->ip;
	/* A long name loses its middle here, not its end (the label is short). */
	elide_name(buf, (int)sizeof(c->label) - 8, screen_utf8(), name, sizeof(name));
	snprintf(c->label, sizeof(c->label), "frame %.*s", (int)sizeof(c->label) - 7, name);
	return true;
}

static bool stacks_match(struct tui *t, size_t row, const char *text)
{
	char buf[256];

	if (t->view.stacks_lines)
		return lines_match(t, row, text);
	if (t->view.stacks_hot)
		return hot_match(t, row, text);
	if (!t->tree || row >= t->stack_rows.nr)
		return false;
	frame_text(t, calltree__node(t->tree, t->stack_rows.rows[row]), buf, sizeof(buf));
	return strcasestr(buf, text) != NULL;
}

/*
 * The tree lines of node i: one glyph per ancestor level, then its own.
 * Deep stacks show the innermost levels only, after the marker, so that
 * the frame's name keeps NAME_MIN columns.
 */
static int draw_indent(struct tui *t, int y, int x, int w, uint32_t i, enum screen_role role)
{
	const struct calltree_node *n = calltree__node(t->tree, i);
	uint32_t chain[64];
	int depth = 0, used = 0, room;
	bool hidden;

	for (uint32_t a = n->parent; a != CALLTREE_ROOT && a != CALLTREE_NONE && depth < 64;
	     a = calltree__node(t->tree, a)->parent)
		chain[depth++] = a;
	/* depth is only ever lowered, to room >= 0 (the unsigned division says so
	 * to scan-build, which otherwise walks a path with a negative room and
	 * reads chain[] past what the loop above filled). */
	room = w > NAME_MIN + 4 ? (int)((unsigned)(w - NAME_MIN - 4) / 2) : 0;
	hidden = depth > room;
	if (hidden) {
		depth = room > 0 ? room - 1 : 0; /* the marker takes a level's place */
		used += screen_text(y, x, w, elide_marker(screen_utf8()), role, false);
		used += screen_text(y, x + used, w - used, " ", role, false);
	}
	for (int d = depth - 1; d >= 0; d--)
		used += screen_text(y, x + used, w - used,
				    calltree__is_last(t->tree, chain[d])
					    ? "  "
					    : screen_tree_glyph(false, false),
				    role, false);
	used += screen_text(y, x + used, w - used,
			    screen_tree_glyph(calltree__is_last(t->tree, i), true), role, false);
	if (n->nr_children)
		used += screen_text(y, x + used, w - used,
				    is_expanded(t, n) ? (screen_utf8() ? "\u25be " : "v ")
						      : (screen_utf8() ? "\u25b8 " : "> "),
				    role, false);
	else
		used += screen_text(y, x + used, w - used, "  ", role, false);
	return used;
}

/*
 * The tree column's title in the words that fit: what the samples are and
 * the keys, then without the expand keys, without any, the bare title.
 */
static void tree_title(const struct tui *t, int w, char *buf, size_t len)
{
	const char *what = t->view.offcpu ? "OFF-CPU" : "ON-CPU";
	const char *from = t->stacks_luajit    ? "with LuaJIT samples, Lua frames [lua]"
			   : !t->stacks_traced ? "stacks of the thread samples"
			   : t->view.offcpu    ? "blocked time from sched_switch"
					       : "perf_event CPU samples";
	const char *flip = t->view.offcpu ? "on-CPU" : "off-CPU";

	snprintf(buf, len, "%s CALL TREE, %s (o: %s; c: by %s; + - * E: expand; f: hot functions)",
		 what, from, flip, t->view.stacks_by_comm ? "pid" : "comm");
	if (elide_width(buf) <= w)
		return;
	snprintf(buf, len, "%s CALL TREE, %s (o: %s; c: by %s; + - * E: expand)", what, from, flip,
		 t->view.stacks_by_comm ? "pid" : "comm");
	if (elide_width(buf) <= w)
		return;
	snprintf(buf, len, "%s CALL TREE, %s (o: %s)", what, from, flip);
	if (elide_width(buf) <= w)
		return;
	snprintf(buf, len, "%s CALL TREE, %s", what, from);
	if (elide_width(buf) <= w)
		return;
	snprintf(buf, len, "%s CALL TREE (o: %s)", what, flip);
	if (elide_width(buf) > w)
		snprintf(buf, len, "%s CALL TREE", what);
}

/* The figure of stack column c for node n (total is the root's). */
static void stack_cell(int c, const struct calltree_node *n, uint64_t total, bool ns, char *buf,
		       size_t len)
{
	if (c == SC_TOTAL)
		rows_share(n->total_weight, total, buf, len);
	else if (c == SC_SELF)
		rows_share(n->self_weight, total, buf, len);
	else
		snprintf(buf, len, "%" PRIu64, ns ? n->total / 1000000 : n->total);
}

static void draw_head(struct tui *t, int y, int cols, const int *xs, const int *idx, size_t nr,
		      bool ns)
{
	char buf[160];

	screen_fill(y, 0, cols, ROLE_COLHEAD);
	for (size_t k = 0; k < nr; k++) {
		const struct ui_column *c = &stack_cols[idx[k]];
		int w = cols_width(xs, k), tw;

		if (idx[k] == SC_TREE) {
			tree_title(t, w, buf, sizeof(buf));
			screen_text(y, xs[k], w, buf, ROLE_COLHEAD, false);
			continue;
		}
		snprintf(buf, sizeof(buf), "%s", idx[k] == SC_COUNT && ns ? "TIME ms" : c->title);
		tw = elide_width(buf);
		screen_text(y, xs[k] + (w > tw ? w - tw : 0), w, buf,
			    idx[k] == SC_TOTAL ? ROLE_COLHEAD_SORT : ROLE_COLHEAD, false);
	}
}

static void stacks_draw(struct tui *t, int y, int h, int cols)
{
	struct tui_layout *l = &t->layout;
	const struct pane_view *pv = &t->view.per_pane[PANE_STACKS];
	uint64_t total = t->stack_weight;
	bool ns = t->stacks_traced && t->view.offcpu;
	int xs[SC_MAX + 1], idx[SC_MAX];
	size_t nr = cols_fit(stack_cols, SC_MAX, cols, xs, idx);
	char buf[256], name[256];

	if (t->view.stacks_lines) {
		lines_draw(t, y, h, cols);
		return;
	}
	if (t->view.stacks_hot) {
		hot_draw(t, y, h, cols);
		return;
	}
	l->colhead_y = y;
	l->first_row_y = y + 1;
	l->nr_visible = h - 1;
	l->nr_cols = 0;
	draw_head(t, y, cols, xs, idx, nr, ns);
	if (!strcmp(t->source, "proc") && !t->stacks_traced && !stacks_rows(t, 1)) {
		screen_text(y + 2, 2, cols - 2,
			    elide_end("Stacks need the BPF source (run as root with --source bpf): "
				      "/proc gives no stacks.",
				      cols - 2, screen_utf8(), buf, sizeof(buf)),
			    ROLE_WARN, false);
		screen_text(y + 3, 2, cols - 2,
			    elide_end("The Threads pane shows each thread's wait channel (wchan) "
				      "as its top frame; the Group pane groups by it.",
				      cols - 2, screen_utf8(), buf, sizeof(buf)),
			    ROLE_DIM, false);
		return;
	}
	if (!stacks_rows(t, 1)) {
		snprintf(name, sizeof(name),
			 "no %s stack samples in this window (%llu samples in all)",
			 t->view.offcpu ? "off-CPU" : "on-CPU",
			 (unsigned long long)t->window_samples);
		screen_text(y + 2, 2, cols - 2,
			    elide_end(name, cols - 2, screen_utf8(), buf, sizeof(buf)), ROLE_DIM,
			    false);
		return;
	}
	for (int k = 0; k < l->nr_visible; k++) {
		size_t i = pv->top + (size_t)k;
		const struct calltree_node *n;
		enum screen_role role;
		bool sel;

		if (i >= stacks_rows(t, i + 1))
			break;
		n = calltree__node(t->tree, t->stack_rows.rows[i]);
		sel = i == pv->sel;
		role = sel ? ROLE_SELECTED : ROLE_NORMAL;
		if (sel)
			screen_fill(y + 1 + k, 0, cols, ROLE_SELECTED);
		for (size_t c = 0; c < nr; c++) {
			int x = xs[c], w = cols_width(xs, c), tw;

			if (idx[c] != SC_TREE) {
				stack_cell(idx[c], n, total, ns, buf, sizeof(buf));
				tw = elide_width(buf);
				screen_text(y + 1 + k, x + (w > tw ? w - tw : 0), w, buf, role,
					    false);
				continue;
			}
			x += draw_indent(t, y + 1 + k, x, w, t->stack_rows.rows[i], role);
			frame_text(t, n, name, sizeof(name));
			elide_name(name, xs[c] + w - x, screen_utf8(), buf, sizeof(buf));
			screen_text(y + 1 + k, x, xs[c] + w - x, buf,
				    sel			     ? ROLE_SELECTED
				    : n->process	     ? ROLE_VALUE
				    : n->kernel		     ? ROLE_KERNEL
				    : lj_frame_is_lua(n->ip) ? ROLE_LABEL
							     : ROLE_NORMAL,
				    false);
		}
	}
}

/* a on a hot function: its source lines, a drill-down level of its own (Esc: back). */
static int open_lines(struct view *v, const struct view_env *env)
{
	struct crumb c;
	char name[CRUMB_LABEL];
	const char *fn;

	if (!env->drill || !env->nr_rows)
		return RX_NONE;
	memset(&c, 0, sizeof(c));
	c.syscall = MODEL_ANY_SYSCALL;
	if (!env->drill(env->ctx, v->per_pane[v->pane].sel, &c))
		return RX_NONE;
	c.to_tree = false;
	c.to_lines = true;
	/* "function X" (hot_drill's) becomes "lines of X". */
	fn = strncmp(c.label, "function ", 9) ? c.label : c.label + 9;
	snprintf(name, sizeof(name), "%.*s", (int)sizeof(name) - 1, fn);
	snprintf(c.label, sizeof(c.label), "lines of %.*s", (int)sizeof(c.label) - 10, name);
	if (!view_push(v, &c, PANE_STACKS))
		return RX_REDRAW;
	v->filter[0] = '\0';
	return RX_REQUERY;
}

/* The tree's keys act on the selected frame; o flips on-CPU and off-CPU. */
static int stacks_key(struct view *v, const struct view_env *env, int key)
{
	int op;

	switch (key) {
	case 'a':
		return v->stacks_hot ? open_lines(v, env) : RX_NONE;
	case 'f': {
		struct pane_view *pv = &v->per_pane[v->pane];
		bool known = false;

		if (v->stacks_lines)
			return RX_NONE; /* Esc goes back to the hot functions */
		v->stacks_hot = !v->stacks_hot;
		pv->sel = pv->top = 0;
		pv->sel_key = 0;
		for (size_t i = 0; i < hot_nr_columns; i++)
			known |= hot_columns[i] == pv->sort_col;
		if (v->stacks_hot && !known) {
			pv->sort_col = COL_SELF;
			pv->reverse = false;
		}
		return RX_REQUERY;
	}
	case 'o':
		v->offcpu = !v->offcpu;
		return RX_REQUERY;
	case 'c':
		v->stacks_by_comm = !v->stacks_by_comm;
		return RX_REQUERY;
	case '+':
	case '=':
	case UK_RIGHT:
		op = '+';
		break;
	case '-':
	case UK_LEFT:
		op = '-';
		break;
	case '*':
	case 'E':
		op = key;
		break;
	default:
		return -1;
	}
	if (v->stacks_hot || v->stacks_lines)
		return RX_NONE; /* a flat list: nothing to open */
	if (!env->tree || !env->nr_rows)
		return RX_NONE;
	env->tree(env->ctx, v->per_pane[v->pane].sel, op);
	v->tree_touched = true;
	return RX_RESORT;
}

static void stacks_query(const struct view *v, struct model_query *q)
{
	uint32_t states = view_stack_states(v);

	q->dims = 0;
	q->filter.state_mask = q->filter.state_mask ? q->filter.state_mask & states : states;
	if (!q->filter.state_mask)
		q->filter.state_mask = 1u << TT_ST_MAX; /* nothing matches */
}

static size_t stacks_nr_rows(const struct tui *t)
{
	if (t->view.stacks_lines)
		return lines_nr_rows(t);
	if (t->view.stacks_hot)
		return hot_nr_rows(t);
	return t->stack_rows.nr; /* made so far: rows_needed makes enough */
}

static const int stacks_columns[] = {COL_SAMPLES};

static const int *stacks_columns_of(const struct view *v, size_t *ret_nr)
{
	if (v->stacks_hot && !v->stacks_lines) {
		*ret_nr = hot_nr_columns;
		return hot_columns;
	}
	*ret_nr = sizeof(stacks_columns) / sizeof(stacks_columns[0]);
	return stacks_columns;
}

static const struct key_help stacks_help[] = {
	{"4", "Stacks pane (the call tree, or the hot functions: f)"},
	{"f",
	 "Stacks: hot functions (SELF% TOTAL% module processes, as perf top) or the call tree"},
	{"Enter", "Stacks, hot functions: the call tree through the function (callers, callees)"},
	{"a", "Stacks, hot functions: the function's hottest source lines (as perf annotate)"},
	{"+ - Right Left", "Stacks: expand / collapse the selected frame"},
	{"* / E", "Stacks: expand the subtree / expand or collapse all"},
	{"o", "Stacks: on-CPU (running) or off-CPU (waiting) stacks"},
	{"c", "Stacks: a root node per process (comm [pid]) or per comm (processes merged)"},
};

const struct pane_ops pane_stacks_ops = {
	.name = "Stacks",
	.build = stacks_build,
	.sort = stacks_flatten,
	.rows = stacks_nr_rows,
	.rows_needed = stacks_rows,
	.draw = stacks_draw,
	.drill = stacks_drill,
	.match = stacks_match,
	.tree = stacks_tree_op,
	.key = stacks_key,
	.query = stacks_query,
	.drill_to = PANE_STACKS,
	.columns = stacks_columns,
	.nr_columns = 1,
	.columns_of = stacks_columns_of,
	.help = stacks_help,
	.nr_help = sizeof(stacks_help) / sizeof(stacks_help[0]),
	.export_ext = "svg",
};
