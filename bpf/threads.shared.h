/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the thread sampler (threads.bpf.c) shares with user space, which
 * clears a slot of tt_last when the sample it stood for was lost. No
 * includes: the includer brings __u32 and friends.
 */
#ifndef THREADTOP_BPF_THREADS_SHARED_H
#define THREADTOP_BPF_THREADS_SHARED_H

/*
 * What the last full sample of a thread saw, in the slot of tt_last picked by
 * tid & (slots - 1). A slot shared by two tids only costs full samples (the
 * tid is checked). The loader sizes the thread maps for the box: tt_known
 * (the threads a walk remembers) and tt_changed (those a pass samples in
 * full) for twice the threads present, a power of two from
 * TT_THREAD_MAPS_MIN to TT_THREAD_MAPS_MAX; tt_last with a slot for every
 * tid below pid_max, TT_LAST_SLOTS at least and 4x tt_known at most.
 */
#define TT_LAST_SLOTS 65536 /* a power of two */
#define TT_THREAD_MAPS_MIN 65536u
#define TT_THREAD_MAPS_MAX (1u << 22) /* Linux's PID_MAX_LIMIT */

struct tt_last_seen {
	__u32 tid;
	__u32 state;
	__u64 sig; /* context switches + a hash of the start time */
};

/*
 * Threads woken since the one-pass sampler's last read, per CPU: the
 * sched_wakeup hooks put each woken tid in their CPU's ring (threads.bpf.c).
 * A ring the pass finds overrun makes that pass walk the thread list.
 */
#define TT_WAKE_RING 4096 /* tids, a power of two */

/*
 * Blocks of the one-pass sampler's order (TT_REPEAT_BLOCK threads each)
 * whose TT_EV_THREAD_REPEAT record would list, tid for tid, what it listed
 * at the pass before (at prev_ns): the kernel sends this record instead of
 * theirs, and the BPF source (bpf_ring.c) sends its copies of them on, at
 * hdr.time_ns. A block that had no record at prev_ns has none now. Never
 * leaves the BPF source.
 */
#define TT_SAME_RANGES 256 /* ranges per record */

struct tt_block_range {
	__u32 first; /* block */
	__u32 nr;    /* blocks from it */
};

struct tt_thread_same {
	struct tt_event_header hdr;
	__u64 prev_ns; /* the pass before's time (its records' hdr.time_ns) */
	__u32 nr;      /* ranges that follow */
	__u32 pad;
	struct tt_block_range ranges[];
};

/* Stack copies per pass at most: past it, frame-pointer stacks (counted). */
#define TT_COPIES_PER_PASS 64
/* -p with at most this many processes walks only their threads; more walk all, filtered. */
#define TT_WALK_PIDS_MAX 64

#endif /* THREADTOP_BPF_THREADS_SHARED_H */
