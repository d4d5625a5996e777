/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The /proc thread sampler (0x.tools psn style): on every tick it reads the
 * CPU clock of each process, the schedstat of each thread of those that ran
 * since the last pass, and stat, syscall and wchan of the threads that ran,
 * under the proc root, within a CPU budget (it lowers its rate past it, and
 * says so). Works without root for the processes the user
 * may read; the fallback when BPF cannot load.
 */
#ifndef THREADTOP_SOURCE_PROC_H
#define THREADTOP_SOURCE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/source.h"

struct proc_source_opts {
	const char *proc_root; /* "/proc", or a fixture tree in tests */
	const int *pids;       /* only these processes (all their threads); NULL = all */
	size_t nr_pids;
	unsigned hz;	    /* sampling rate: the weight of each sample */
	int self_pid;	    /* a process to leave out (threadtop itself), 0 = none */
	bool idle_kthreads; /* also sample idle (I) kernel threads */
	/* Send unchanged threads as full samples, not TT_EV_THREAD_REPEAT (a
	 * recording must replay from any point). */
	bool full_samples;
	/* CPU the passes may spend, % of one core (0 = no limit); past it the
	 * rate is lowered and said. Negative: SOURCE_DEFAULT_PROC_BUDGET_PCT. */
	double budget_pct;
	/* Where to say that the rate was lowered (one line); NULL = nowhere. */
	void (*warn)(const char *msg);
	/*
	 * The CPU time of all threads of process pid so far (ns), for tests
	 * over a fixture tree; NULL = the process's CPU clock when proc_root
	 * is this process's /proc, else none (every process is read).
	 */
	int (*cpu_clock)(int pid, uint64_t *ret_ns);
};

/*
 * Creates the source. On failure returns NULL with errno set and a one-line
 * reason in err (errlen bytes). The caller frees with source__free.
 */
struct source *proc_source__new(const struct proc_source_opts *opts, struct event_sink sink,
				char *err, size_t errlen);

#endif /* THREADTOP_SOURCE_PROC_H */
