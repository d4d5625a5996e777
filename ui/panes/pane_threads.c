// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Threads pane: one row per thread, top-like (PID, TID, COMM, latest
 * state, %CPU, average active threads, a bar of its state mix, latest
 * syscall, top frame). Enter narrows to the thread and opens the Group pane
 * on it.
 */
#include <stdio.h>
#include <string.h>

#include "panes.h"
#include "escape.h"
#include "syscalls.h"

static size_t threads_columns(const struct view *v, int *cols, size_t cap)
{
	static const int c[] = {COL_PID,    COL_TID, COL_COMM,	  COL_STATE, COL_CPU,
				COL_ACTIVE, COL_MIX, COL_SYSCALL, COL_FRAME};
	size_t n = sizeof(c) / sizeof(c[0]);

	if (n > cap)
		n = cap;
	memcpy(cols, c, n * sizeof(*cols));
	if (v->has_labels && n == sizeof(c) / sizeof(c[0]) && n < cap) {
		/* Labels before the top frame, which takes the rest of the line. */
		cols[n - 1] = COL_LABELS;
		cols[n++] = COL_FRAME;
	}
	return n;
}

static bool threads_drill(const struct view *v, const struct rows_ctx *c, const struct model_row *r,
			  struct crumb *ret)
{
	char comm[64];

	if (!r->tid)
		return false;
	ret->tid = r->tid;
	escape_for_terminal(r->comm ? r->comm : "", r->comm ? strlen(r->comm) : 0, comm,
			    sizeof(comm));
	snprintf(ret->label, sizeof(ret->label), "tid %u %s", r->tid, comm);
	return true;
}

static const struct table_pane threads_table = {
	.pane = PANE_THREADS,
	.columns = threads_columns,
	.drill = threads_drill,
	.empty = "no thread was sampled in this window (yet)",
	.default_sort = COL_ACTIVE,
};

const struct pane_ops pane_threads_ops = {
	.name = "Threads",
	TABLE_PANE_OPS,
	.table = &threads_table,
	.dims = DIM_BIT(DIM_TID),
	.drill_to = PANE_GROUP,
};

void pane_syscall_label(int nr, char *buf, size_t len)
{
	if (nr == TT_SYSCALL_NONE)
		snprintf(buf, len, "no syscall");
	else
		syscall_label(nr, buf, len);
}
