// SPDX-License-Identifier: GPL-2.0-only
/* The table of the nine panes (see panes.h), in the order of their keys 1-9. */
#include "panes.h"

const struct pane_ops *const ui_panes[PANE_MAX] = {
	[PANE_THREADS] = &pane_threads_ops,
	[PANE_GROUP] = &pane_group_ops,
	[PANE_SYSCALLS] = &pane_syscalls_ops,
	[PANE_STACKS] = &pane_stacks_ops,
	[PANE_LOG] = &pane_log_ops,
	[PANE_LUAJIT] = &pane_luajit_ops,
	[PANE_USE] = &pane_use_ops,
	[PANE_TRACES] = &pane_traces_ops,
	[PANE_IO] = &pane_io_ops,
};
