/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF source: the kernel-side samplers (bpf/) loaded with libbpf
 * skeletons, all records arriving through one ring buffer. Always loaded:
 * the thread sampler (bpf/threads.bpf.c), run once per tick. It sends a
 * full sample of each thread on a CPU or that ran or changed state since its
 * last one, only the tids of the others (whose last sample stands again). On
 * kernel 6.7+ it is one program run per pass that walks the kernel's thread
 * list only when a task was created or once a second; on older kernels
 * (their BTF lacks its kfuncs) a task iterator, one per process with -p.
 * Unless cpu_hz is 0, the on-CPU perf_event sampler; on request the syscall
 * and off-CPU tracers, whose in-kernel sums are sent as records at each
 * interval's end (flush).
 */
#ifndef THREADTOP_SOURCE_BPF_H
#define THREADTOP_SOURCE_BPF_H

#include <stdbool.h>
#include <stddef.h>

#include "labels.h"
#include "threadtop/source.h"

struct maps_cache;

struct bpf_source_opts {
	const int *pids; /* only these processes; NULL = all */
	size_t nr_pids;
	unsigned hz;		  /* thread sampling passes per second; 0 = the default */
	int self_pid;		  /* left out in the kernel */
	unsigned cpu_hz;	  /* on-CPU sampling rate per CPU; 0 = no on-CPU sampler */
	unsigned unwind;	  /* enum tt_unwind_mode of the user stacks */
	unsigned stack_bytes;	  /* user stack copied per sample for DWARF (0 = the default) */
	double unwind_budget_pct; /* CPU for DWARF unwinding, % of a core (0 = the default) */
	bool syscalls;		  /* --syscalls: exact per-thread syscall counts and latency */
	bool offcpu;		  /* --offcpu: exact off-CPU time per stack, run-queue latency */
	bool io;	   /* --io: block requests per thread and device (warns if it cannot) */
	bool bpf_stats;	   /* BPF_ENABLE_STATS: run time per program (costs every BPF run) */
	bool full_samples; /* send unchanged threads as full samples, not repeats (recording) */
	/* Verify the programs first data needs not (on-CPU, LuaJIT) on a thread of
	 * their own, after the source is up: the TUI's first rows come sooner. */
	bool defer_optional;
	const struct label_set *labels; /* --label definitions, or NULL */
	void (*warn)(const char *msg);	/* told what could not be set up (the run goes on) */
	struct maps_cache *maps;	/* process maps shared with the symbolizer (outlives the
				    source); NULL = the unwinder reads its own */
};

/*
 * Probes, loads and attaches. On failure returns NULL with errno set and a
 * one-line reason in err: what failed, why, and what to do.
 */
struct source *bpf_source__new(const struct bpf_source_opts *opts, struct event_sink sink,
			       char *err, size_t errlen);

/*
 * What libbpf said during the last bpf_source__new (the verifier's log when
 * a program was rejected), "" when nothing. Static storage, valid until the
 * next bpf_source__new.
 */
const char *bpf_source__libbpf_log(void);

#endif /* THREADTOP_SOURCE_BPF_H */
