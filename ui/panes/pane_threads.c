// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Threads pane: one row per thread, top-like (PID, TID, COMM, latest
 * state, %CPU, average active threads, a bar of its state mix, latest
 * syscall, top frame; USER, NI, RES, TIME+ and the command line on demand,
 * F2). Enter narrows to the thread and opens the Group pane on it. With H it
 * shows one row per process, its threads summed (htop's habit), optionally as
 * the process tree (F5); Enter on a process opens its threads.
 */
#include <stdio.h>
#include <string.h>

#include "keys.h"
#include "panes.h"
#include "escape.h"
#include "syscalls.h"
#include "tui_internal.h"
#include "util.h"

/* What the Setup screen offers, in screen order: the thread view, then the process view. */
static const int thread_cols[] = {
	COL_PID, COL_TID, COL_USER,  COL_COMM,	  COL_STATE,  COL_NICE,	  COL_CPU,   COL_ACTIVE,
	COL_MIX, COL_RES, COL_TIMEP, COL_SYSCALL, COL_TARGET, COL_LABELS, COL_FRAME, COL_CMD};
static const int proc_cols[] = {COL_PID,    COL_USER, COL_COMM,	   COL_STATE, COL_NICE,	 COL_CPU,
				COL_ACTIVE, COL_MIX,  COL_THREADS, COL_RES,   COL_TIMEP, COL_CMD};
#define NR(a) (sizeof(a) / sizeof((a)[0]))

size_t pane_threads_setup_cols(bool procs, const int **ret)
{
	*ret = procs ? proc_cols : thread_cols;
	return procs ? NR(proc_cols) : NR(thread_cols);
}

uint32_t pane_threads_default_mask(bool procs)
{
	/* Threads: top's view of what each thread does; processes: htop's columns. */
	static const int thread_on[] = {COL_PID,    COL_TID,	COL_COMM, COL_STATE,
					COL_CPU,    COL_ACTIVE, COL_MIX,  COL_SYSCALL,
					COL_TARGET, COL_LABELS, COL_FRAME};
	static const int proc_on[] = {COL_PID, COL_USER,    COL_STATE, COL_CPU,	  COL_ACTIVE,
				      COL_MIX, COL_THREADS, COL_RES,   COL_TIMEP, COL_CMD};
	const int *on = procs ? proc_on : thread_on, *all;
	size_t n_on = procs ? NR(proc_on) : NR(thread_on);
	size_t n = pane_threads_setup_cols(procs, &all);
	uint32_t mask = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < n_on; k++)
			if (all[i] == on[k])
				mask |= 1u << i;
	return mask;
}

static size_t threads_columns(const struct view *v, int *cols, size_t cap)
{
	bool procs = view_procs(v);
	uint32_t mask = v->cols_on[procs];
	const int *all;
	size_t n = 0, nr_all = pane_threads_setup_cols(procs, &all);

	for (size_t i = 0; i < nr_all && n < cap; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (all[i] == COL_LABELS && !v->has_labels)
			continue; /* only where --label named some */
		cols[n++] = all[i];
	}
	if (!n && cap)
		cols[n++] = COL_PID; /* every column switched off: the pid stays */
	return n;
}

static bool threads_drill(const struct view *v, const struct rows_ctx *c, const struct model_row *r,
			  struct crumb *ret)
{
	char comm[64];

	escape_for_terminal(r->comm ? r->comm : "", r->comm ? strlen(r->comm) : 0, comm,
			    sizeof(comm));
	if (!r->tid) {
		/* A process row: Enter opens its threads. */
		if (!r->pid)
			return false;
		ret->pid = r->pid;
		snprintf(ret->label, sizeof(ret->label), "pid %u %s", r->pid, comm);
		return true;
	}
	ret->tid = r->tid;
	snprintf(ret->label, sizeof(ret->label), "tid %u %s", r->tid, comm);
	return true;
}

/* Process rows, per thread otherwise. */
static void threads_query(const struct view *v, struct model_query *q)
{
	q->dims = view_procs(v) ? DIM_BIT(DIM_PID) : DIM_BIT(DIM_TID);
}

/* Enter on a process shows its threads here; on a thread, the Group pane. */
static enum ui_pane threads_drill_target(const struct view *v)
{
	return view_procs(v) ? PANE_THREADS : PANE_GROUP;
}

/* The tree mode (F5): processes under their parents, the model's ppid. */
static void threads_arrange(struct tui *t)
{
	t->rows_tree = view_procs(&t->view) && t->view.tree;
	if (!t->rows_tree)
		return;
	table_pane_rows_needed(t, SIZE_MAX); /* siblings keep the order of every row */
	table_pane_rows_own(t);		     /* the cache stays in the sort's order */
	if (t->nr_rows > t->cap_tree) {
		t->cap_tree = t->nr_rows;
		t->tree_depth = xrealloc(t->tree_depth, t->cap_tree);
		t->tree_last = xrealloc(t->tree_last, t->cap_tree);
	}
	model_rows_tree(t->model, t->rows, t->nr_rows, t->tree_depth, t->tree_last);
}

static int threads_key(struct view *v, const struct view_env *env, int key)
{
	switch (key) {
	case 'H':
		/* htop's H: user threads folded into their process, which sums them. */
		v->procs = !v->procs;
		v->per_pane[PANE_THREADS].sel = v->per_pane[PANE_THREADS].top = 0;
		return RX_REQUERY;
	case 't':
	case UK_F5:
		/* htop's tree (F5, t): of processes, so it turns the process view on. */
		v->tree = !v->tree;
		if (v->tree)
			v->procs = true;
		return RX_REQUERY;
	default:
		return -1;
	}
}

static const struct table_pane threads_table = {
	.pane = PANE_THREADS,
	.columns = threads_columns,
	.drill = threads_drill,
	.empty = "no thread was sampled in this window (yet)",
	.default_sort = COL_ACTIVE,
	.arrange = threads_arrange,
};

static const struct key_help threads_help[] = {
	{"H", "Threads pane: one row per process, its threads summed (Enter: its threads)"},
	{"t or F5", "Threads pane: process tree (turns the process view on)"},
};

const struct pane_ops pane_threads_ops = {
	.name = "Threads",
	TABLE_PANE_OPS,
	.table = &threads_table,
	.query = threads_query,
	.key = threads_key,
	.dims = DIM_BIT(DIM_TID),
	.drill_to = PANE_GROUP,
	.drill_target = threads_drill_target,
	.help = threads_help,
	.nr_help = NR(threads_help),
};

void pane_syscall_label(int nr, char *buf, size_t len)
{
	if (nr == TT_SYSCALL_NONE)
		snprintf(buf, len, "no syscall");
	else
		syscall_label(nr, buf, len);
}
