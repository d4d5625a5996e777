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
 * tid & (TT_LAST_SLOTS - 1). A slot shared by two tids only costs full
 * samples (the tid is checked).
 */
#define TT_LAST_SLOTS 65536 /* a power of two */

struct tt_last_seen {
	__u32 tid;
	__u32 state;
	__u64 sig; /* context switches + a hash of the start time */
};

/* Stack copies per pass at most: past it, frame-pointer stacks (counted). */
#define TT_COPIES_PER_PASS 64
/* -p with at most this many processes walks only their threads; more walk all, filtered. */
#define TT_WALK_PIDS_MAX 64

#endif /* THREADTOP_BPF_THREADS_SHARED_H */
