/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The /proc thread sampler (0x.tools psn style): on every tick it reads each
 * thread's stat, syscall and wchan under the proc root. Works without root
 * for the processes the user may read; the fallback when BPF cannot load.
 */
#ifndef THREADTOP_SOURCE_PROC_H
#define THREADTOP_SOURCE_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "threadtop/source.h"

struct proc_source_opts {
	const char *proc_root; /* "/proc", or a fixture tree in tests */
	const int *pids;       /* only these processes (all their threads); NULL = all */
	size_t nr_pids;
	unsigned hz;	    /* sampling rate: the weight of each sample */
	int self_pid;	    /* a process to leave out (threadtop itself), 0 = none */
	bool idle_kthreads; /* also sample idle (I) kernel threads */
};

/*
 * Creates the source. On failure returns NULL with errno set and a one-line
 * reason in err (errlen bytes). The caller frees with source__free.
 */
struct source *proc_source__new(const struct proc_source_opts *opts, struct event_sink sink,
				char *err, size_t errlen);

#endif /* THREADTOP_SOURCE_PROC_H */
