/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The map of the syscall tracer (syscalls.bpf.c) that user space reads. No
 * includes: the includer brings __u32 and friends, and threadtop/events.h
 * (TT_SYSCALL_HIST_BUCKETS, the histogram of the records made from it).
 */
#ifndef THREADTOP_BPF_SYSCALLS_SHARED_H
#define THREADTOP_BPF_SYSCALLS_SHARED_H

/* tt_sc_stats: per thread and syscall, cumulative since the entry was made. */
struct tt_sc_key {
	__u32 tid;
	__s32 nr;
};

struct tt_sc_val {
	__u32 pid;
	__u32 reserved;
	__u64 count;
	__u64 total_ns;
	__u32 hist[TT_SYSCALL_HIST_BUCKETS]; /* log2 ns buckets */
};

#endif /* THREADTOP_BPF_SYSCALLS_SHARED_H */
