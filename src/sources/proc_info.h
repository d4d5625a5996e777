/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the thread sources tell the model about processes (TT_EV_PROC_INFO):
 * parent, user, nice, resident memory and CPU time of the whole process,
 * read from /proc/PID/stat and status when a process is first seen and
 * about once a second after that (a process of many threads: statm every
 * second, stat less often). Shared by the /proc and BPF sources.
 */
#ifndef THREADTOP_PROC_INFO_H
#define THREADTOP_PROC_INFO_H

#include <stdint.h>

#include "threadtop/source.h"

struct proc_info;
struct strtab;

/*
 * proc_fd is a /proc directory (not owned: it must outlive the object);
 * user names are interned in strings (not owned) and sent through sink.
 */
struct proc_info *proc_info__new(int proc_fd, struct strtab *strings,
				 const struct event_sink *sink);
void proc_info__free(struct proc_info *pi);

/* Process pid exists (a thread of it was sampled): described now when new. */
void proc_info__see(struct proc_info *pi, uint32_t pid, uint64_t now_ns);
/* A sampling pass ended: describes again the processes due, forgets those gone. */
void proc_info__pass(struct proc_info *pi, uint64_t now_ns);

#endif /* THREADTOP_PROC_INFO_H */
