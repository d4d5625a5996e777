// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Group pane, the xtop/ASH view: samples grouped by the dimensions
 * picked with g (state, comm, process, syscall, wait channel, kernel and
 * user leaf frame, cgroup, application labels); each row is a distinct combination with its
 * thread count, samples, average active threads and share bar. Enter
 * narrows to the combination and shows the Threads pane.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "keys.h"
#include "panes.h"
#include "escape.h"
#include "procfs.h"

static const int dim_col[DIM_MAX] = {
	[DIM_PID] = COL_PID,	   [DIM_TID] = COL_TID,		 [DIM_COMM] = COL_COMM,
	[DIM_STATE] = COL_STATE,   [DIM_SYSCALL] = COL_SYSCALL,	 [DIM_WCHAN] = COL_WCHAN,
	[DIM_CGROUP] = COL_CGROUP, [DIM_KLEAF] = COL_KLEAF,	 [DIM_ULEAF] = COL_ULEAF,
	[DIM_LABELS] = COL_LABELS, [DIM_FD_TARGET] = COL_TARGET,
};

#define GROUP_THREAD_DIMS (DIM_BIT(DIM_PID) | DIM_BIT(DIM_COMM) | DIM_BIT(DIM_CGROUP))

/*
 * The dimensions the pane groups by: those picked (g), and on one thread
 * (the Threads pane's drill-down) with its syscalls, what their fds name.
 */
static unsigned group_dims(const struct view *v)
{
	unsigned dims = v->group_dims ? v->group_dims : DIM_BIT(DIM_STATE);

	for (size_t i = 0; i < v->nr_crumbs; i++)
		if (v->crumbs[i].tid && dims & DIM_BIT(DIM_SYSCALL))
			dims |= DIM_BIT(DIM_FD_TARGET);
	return dims;
}

static size_t group_columns(const struct view *v, int *cols, size_t cap)
{
	static const int tail[] = {COL_THREADS, COL_SAMPLES, COL_ACTIVE, COL_SHARE};
	unsigned dims = group_dims(v);
	size_t n = 0;

	for (size_t i = 0; i < keys_group_dims_count && n < cap; i++) {
		int d = keys_group_dims[i];

		if (!(dims & DIM_BIT(d)))
			continue;
		cols[n++] = dim_col[d];
		if (d == DIM_PID && !(v->group_dims & DIM_BIT(DIM_COMM)) && n < cap)
			cols[n++] = COL_COMM; /* a process is shown with its name */
	}
	/*
	 * %CPU where the model can tell it: rows of processes, comms or cgroups
	 * (their threads' CPU time), or of labels (their on-CPU samples; "-"
	 * without BPF). A row of a state or a syscall has no CPU time of its own.
	 */
	if ((v->group_dims & DIM_BIT(DIM_LABELS) || !(v->group_dims & ~GROUP_THREAD_DIMS)) &&
	    n < cap)
		cols[n++] = COL_CPU;
	for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]) && n < cap; i++)
		cols[n++] = tail[i];
	return n;
}

static void add_label(struct crumb *c, const char *part)
{
	size_t o = strlen(c->label);

	snprintf(c->label + o, sizeof(c->label) - o, "%s%s", o ? " " : "", part);
}

static bool group_drill(const struct view *v, const struct rows_ctx *c, const struct model_row *r,
			struct crumb *ret)
{
	unsigned dims = c->dims;
	char buf[96], tmp[64];
	bool any = false;

	if (dims & DIM_BIT(DIM_PID) && r->pid) {
		escape_for_terminal(r->comm ? r->comm : "", r->comm ? strlen(r->comm) : 0, tmp,
				    sizeof(tmp));
		ret->pid = r->pid;
		snprintf(buf, sizeof(buf), "pid %u %s", r->pid, tmp);
		add_label(ret, buf);
		any = true;
	} else if (dims & DIM_BIT(DIM_COMM) && r->comm) {
		snprintf(ret->comm, sizeof(ret->comm), "%s", r->comm);
		escape_for_terminal(r->comm, strlen(r->comm), tmp, sizeof(tmp));
		snprintf(buf, sizeof(buf), "comm %s", tmp);
		add_label(ret, buf);
		any = true;
	}
	if (dims & DIM_BIT(DIM_STATE)) {
		ret->state_mask = 1u << r->state;
		snprintf(buf, sizeof(buf), "%c", tt_state_letter(r->state));
		add_label(ret, buf);
		any = true;
	}
	if (dims & DIM_BIT(DIM_SYSCALL)) {
		ret->syscall = r->syscall;
		pane_syscall_label(r->syscall, buf, sizeof(buf));
		add_label(ret, buf);
		any = true;
	}
	if (dims & DIM_BIT(DIM_WCHAN) && r->wchan_id) {
		ret->wchan_id = r->wchan_id;
		rows_cell(c, r, COL_WCHAN, buf, sizeof(buf));
		add_label(ret, buf);
		any = true;
	}
	if (dims & DIM_BIT(DIM_FD_TARGET) && r->target_id) {
		ret->target_id = r->target_id;
		rows_cell(c, r, COL_TARGET, buf, sizeof(buf));
		add_label(ret, buf);
		any = true;
	}
	if (dims & DIM_BIT(DIM_CGROUP) && r->cgroup_id) {
		ret->cgroup_id = r->cgroup_id;
		rows_cell(c, r, COL_CGROUP, buf, sizeof(buf));
		add_label(ret, buf);
		any = true;
	}
	if ((dims & DIM_BIT(DIM_KLEAF) && r->kleaf_ip) ||
	    (dims & DIM_BIT(DIM_ULEAF) && r->uleaf_ip)) {
		bool k = dims & DIM_BIT(DIM_KLEAF) && r->kleaf_ip;

		/* The row is a function: model__stack_holds narrows to all its addresses. */
		ret->stack_ip = k ? r->kleaf_ip : r->uleaf_ip;
		rows_frame_pid(c->m, r->pid ? r->pid : r->leaf_pid, ret->stack_ip, k, buf,
			       sizeof(buf));
		add_label(ret, buf);
		any = true;
	}
	if (dims & DIM_BIT(DIM_LABELS)) {
		ret->labels_id = r->labels_id ? r->labels_id : MODEL_NO_LABELS;
		if (r->labels_id)
			rows_labels(c->m, r->labels_id, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "no labels");
		add_label(ret, buf);
		any = true;
	}
	return any;
}

static void group_query(const struct view *v, struct model_query *q)
{
	q->dims = group_dims(v);
}

static const struct table_pane group_table = {
	.pane = PANE_GROUP,
	.columns = group_columns,
	.drill = group_drill,
	.empty = "no samples in this window (yet)",
	.default_sort = COL_ACTIVE,
	.hide_idle = true,
};

static const struct key_help group_help[] = {
	{"g", "Group pane: pick the group-by dimensions"},
};

const struct pane_ops pane_group_ops = {
	.name = "Group",
	TABLE_PANE_OPS,
	.table = &group_table,
	.query = group_query,
	.drill_to = PANE_THREADS,
	.help = group_help,
	.nr_help = 1,
};
