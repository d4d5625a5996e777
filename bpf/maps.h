/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Types of the BPF maps that user space reads (src/sources/source_bpf.c) and that the
 * BPF programs fill. No includes: the includer brings __u32 and
 * friends (vmlinux.h in BPF, <linux/types.h> in user space).
 */
#ifndef THREADTOP_BPF_MAPS_H
#define THREADTOP_BPF_MAPS_H

#define TT_SYSCALL_HIST 32 /* = TT_SYSCALL_HIST_BUCKETS */

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
	__u32 hist[TT_SYSCALL_HIST];
};

/* tt_offcpu_agg: per thread, stacks and kind (enum tt_offcpu_kind), cumulative. */
struct tt_oc_key {
	__u32 pid;
	__u32 tid;
	__u32 kstack_id;
	__u32 ustack_id;
	__u32 kind;
	__u32 labels_hash; /* the labels the thread blocked with (tt_thread_labels), 0 = none */
};

struct tt_oc_val {
	__u64 total_ns;
	__u64 count;
	char comm[16];
};

#endif /* THREADTOP_BPF_MAPS_H */
