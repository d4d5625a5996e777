/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The map of the off-CPU tracer (offcpu.bpf.c) that user space reads. No
 * includes: the includer brings __u32 and friends, and threadtop/events.h
 * (TT_COMM_LEN, enum tt_offcpu_kind).
 */
#ifndef THREADTOP_BPF_OFFCPU_SHARED_H
#define THREADTOP_BPF_OFFCPU_SHARED_H

/* tt_oc_agg: per thread, stacks and kind (enum tt_offcpu_kind), cumulative. */
struct tt_oc_key {
	__u32 pid;
	__u32 tid;
	__u32 kstack_id;
	__u32 ustack_id;
	__u32 kind;
	__u32 labels_hash; /* the labels the thread blocked with (tt_thread_labels), 0 = none */
	__u32 reserved;
	/*
	 * The user call site (of this process) whose stack copy
	 * (tt_offcpu_site) user space unwinds: its time goes to that stack
	 * instead of ustack_id. 0 = none.
	 */
	__u64 site;
};

struct tt_oc_val {
	__u64 total_ns;
	__u64 count;
	char comm[TT_COMM_LEN];
};

/*
 * Frames above __schedule that bpf_get_stack sees in the tracer (the BPF
 * program, bpf_trace_run4, __traceiter_sched_switch on some builds): searched
 * this far for the __schedule frame the stack is cut to.
 */
#define TT_OC_TRACER_FRAMES 8

#endif /* THREADTOP_BPF_OFFCPU_SHARED_H */
