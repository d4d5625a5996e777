/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The USE sampler: reads /proc and /sys once per output interval and emits
 * one TT_EV_USE_METRIC record per component (all CPUs, each CPU, memory,
 * each disk, each network interface, TCP, each CPU-limited cgroup v2) into
 * an event sink, so USE metrics travel in the same stream as thread samples
 * (and into recordings). Between intervals, use_sampler__tick reads the
 * run-queue length on every sampling tick for an average of runnable
 * threads. Roots are parameters so tests run on fixture trees.
 */
#ifndef THREADTOP_USE_SAMPLER_H
#define THREADTOP_USE_SAMPLER_H

#include <stdint.h>

#include "threadtop/source.h"

/* Sources the sampler could not find (bits of use_sampler__missing). */
enum use_missing {
	USE_MISSING_PSI = 1u << 0,	 /* /proc/pressure: kernel built or booted without PSI */
	USE_MISSING_LOADAVG = 1u << 1,	 /* /proc/loadavg */
	USE_MISSING_DISKSTATS = 1u << 2, /* /proc/diskstats */
	USE_MISSING_NET_DEV = 1u << 3,	 /* /proc/net/dev */
	USE_MISSING_SNMP = 1u << 4,	 /* /proc/net/snmp */
	USE_MISSING_VMSTAT = 1u << 5,	 /* /proc/vmstat */
	USE_MISSING_CGROUP2 = 1u << 6,	 /* no cgroup v2 hierarchy under SYS/fs/cgroup */
	USE_MISSING_MAX_BIT = 7,
};

/* One line saying what is missing and what still works; NULL for an unknown bit. */
const char *use_missing_text(unsigned bit);

struct use_sampler_opts {
	const char *proc_root; /* "/proc" */
	const char *sys_root;  /* "/sys" */
};

struct use_sampler;

/*
 * Opens the roots and reads a first set of counters at now_ns (the baseline
 * of the first interval). Fails (NULL, errno set) only when /proc/stat or
 * /proc/meminfo cannot be read; other files missing are reported by
 * use_sampler__missing. The caller frees it with use_sampler__free.
 */
struct use_sampler *use_sampler__new(const struct use_sampler_opts *opts, struct event_sink sink,
				     uint64_t now_ns);
void use_sampler__free(struct use_sampler *us);

/* Reads from other roots from now on (tests step through fixture trees).
 * 0 or a negative errno (the proc root cannot be opened). */
int use_sampler__set_roots(struct use_sampler *us, const struct use_sampler_opts *opts);

/* A sampling tick: reads the run-queue length (one small file). */
void use_sampler__tick(struct use_sampler *us, uint64_t now_ns);

/*
 * Ends an interval at now_ns: reads every file, emits the records of the
 * interval since the previous call (or since use_sampler__new), and makes
 * now the baseline of the next. Returns the number of records emitted or a
 * negative errno (/proc/stat unreadable).
 */
int use_sampler__sample(struct use_sampler *us, uint64_t now_ns);

/* Bits of enum use_missing seen so far (for "said once" messages). */
unsigned use_sampler__missing(const struct use_sampler *us);

#endif /* THREADTOP_USE_SAMPLER_H */
