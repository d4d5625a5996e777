/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The maps of the block I/O tracer (io.bpf.c) that user space sizes and
 * reads. No includes: the includer brings __u32 and friends, and
 * threadtop/events.h (TT_IO_HIST_BUCKETS, enum tt_io_op: the record made
 * from tt_io_stats).
 */
#ifndef THREADTOP_BPF_IO_SHARED_H
#define THREADTOP_BPF_IO_SHARED_H

/*
 * tt_io_inflight: requests made or issued and not yet completed, an array
 * of slots hashed by request address, TT_IO_INFLIGHT_PROBES tried in turn
 * (io.bpf.c). All of them taken, a request goes uncounted (a map_full
 * drop): a box keeps far fewer in flight (each queue's depth, 32 to 1023,
 * per device).
 */
#define TT_IO_INFLIGHT_SLOTS 16384 /* a power of 2 */
#define TT_IO_INFLIGHT_PROBES 4

/* A kernel dev_t (include/linux/kdev_t.h): 12 bits of major, 20 of minor. */
#define TT_IO_MINOR_BITS 20
#define TT_IO_MINOR_MASK ((1u << TT_IO_MINOR_BITS) - 1)

struct tt_io_inflight_val {
	__u64 rq;	/* the request's address; 0: a free slot */
	__u64 start_ns; /* made (the block layer's start_time_ns), else issued */
	__u64 issue_ns; /* 0 until issued */
	__u32 pid;
	__u32 tid;	 /* the maker (see io.bpf.c) */
	__u32 dev;	 /* kernel dev_t of the partition or disk */
	__u32 op;	 /* enum tt_io_op */
	__u32 worker;	 /* 1: made by an io_uring worker for thread tid */
	__u32 bytes;	 /* the request's size (__data_len) */
	__u32 kstack_id; /* where it was made (TT_EV_STACK ids), 0 = none */
	__u32 ustack_id;
	/* The path whose user stack copy (tt_offcpu_site) user space unwinds: its
	 * requests go to that stack instead of ustack_id. 0 = none. */
	__u64 site;
	char comm[TT_COMM_LEN];
};

/*
 * tt_io_live: per thread (tid), the latest request it made (io_wait.bpf.h):
 * its address and slot in tt_io_inflight, which still hold it while it is
 * in flight.
 */
#define TT_IO_LIVE_MAX 16384

struct tt_io_live {
	__u64 rq;
	__u32 slot;
	__u32 pad;
};

/*
 * tt_io_stats: per thread, device, direction and the stacks that made the
 * requests, cumulative since the entry was made.
 */
struct tt_io_key {
	__u32 tid;
	__u32 dev; /* kernel dev_t */
	__u32 op;  /* enum tt_io_op */
	__u32 kstack_id;
	__u32 ustack_id;
	__u32 pad;
	__u64 site; /* as tt_io_inflight_val.site */
};

struct tt_io_val {
	__u32 pid;
	__u32 reserved;
	__u64 count;
	__u64 bytes;
	__u64 total_ns;			/* made to completion */
	__u64 queue_ns;			/* of that, made to issued */
	__u64 errors;			/* completions with an error status */
	__u64 worker;			/* requests an io_uring worker made for the thread */
	__u32 hist[TT_IO_HIST_BUCKETS]; /* log2 ns buckets, as tt_io_stats.hist */
	char comm[TT_COMM_LEN];
};

#endif /* THREADTOP_BPF_IO_SHARED_H */
