// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Syscalls pane: per syscall, the samples that caught a thread in it,
 * how many threads, average active threads and the share of all samples.
 * (Exact counts and latency histograms join here with --syscalls.) Enter
 * narrows to the syscall and shows the Threads pane.
 */
#include <stdio.h>
#include <string.h>

#include "panes.h"

static size_t syscalls_columns(const struct view *v, int *cols, size_t cap)
{
	static const int c[] = {COL_SYSCALL, COL_SAMPLES, COL_THREADS, COL_ACTIVE, COL_SHARE};
	size_t n = sizeof(c) / sizeof(c[0]);

	if (n > cap)
		n = cap;
	memcpy(cols, c, n * sizeof(*cols));
	return n;
}

static bool syscalls_drill(const struct view *v, const struct rows_ctx *c,
			   const struct model_row *r, struct crumb *ret)
{
	ret->syscall = r->syscall;
	pane_syscall_label(r->syscall, ret->label, sizeof(ret->label));
	return true;
}

static const struct table_pane syscalls_table = {
	.pane = PANE_SYSCALLS,
	.columns = syscalls_columns,
	.drill = syscalls_drill,
	.empty = "no samples in this window (yet)",
	.default_sort = COL_ACTIVE,
	.hide_idle = true,
	.exact_syscalls = true,
};

const struct pane_ops pane_syscalls_ops = {
	.name = "Syscalls",
	TABLE_PANE_OPS,
	.table = &syscalls_table,
	.dims = DIM_BIT(DIM_SYSCALL),
	.drill_to = PANE_THREADS,
};
