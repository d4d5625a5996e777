/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fd targets for the /proc source (issue #30): what fd N of process PID
 * names, from /proc/PID/fd/N (a path, "pipe:[ino]", "anon_inode:[eventfd]")
 * and, for a socket, its line in the process's /proc/PID/net tables (tcp,
 * tcp6, udp, udp6, unix), read once a pass when a sample first needs them:
 * the same text the BPF source gives (fd_target.h formats both).
 */
#ifndef THREADTOP_PROC_TARGETS_H
#define THREADTOP_PROC_TARGETS_H

#include <stddef.h>

struct proc_targets;

/* Over the /proc tree at root_fd (kept open by the caller). NULL with errno set. */
struct proc_targets *proc_targets__new(int root_fd);
void proc_targets__free(struct proc_targets *pt);
/* A new pass: the socket tables are read again when next needed. */
void proc_targets__pass(struct proc_targets *pt);
/*
 * The text of what fd of process pid names into buf (cap bytes, raw: escape
 * it), NUL-terminated; its length, 0 when there is none to tell (no such
 * fd, no permission).
 */
size_t proc_targets__text(struct proc_targets *pt, int pid, unsigned long long fd, char *buf,
			  size_t cap);

#endif /* THREADTOP_PROC_TARGETS_H */
