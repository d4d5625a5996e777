/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The event records: small, fixed-layout, versioned. The same records come
 * from the BPF programs (the kernel side includes this header too), the /proc
 * sampler, the LuaJIT agent and replay files. Stacks and strings travel as ids
 * into dictionaries that are themselves events, so a stream is self-contained.
 *
 * Rules: every field has a fixed width, structs have no implicit padding
 * (checked by static asserts in src/event_codec.c), the header's size covers
 * the whole record including any variable tail. A new field goes into a new
 * version of the record; a new record gets a new type. On disk the records are
 * encoded field by field, little-endian (src/event_codec.c).
 */
#ifndef THREADTOP_EVENTS_H
#define THREADTOP_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define TT_COMM_LEN 16
#define TT_MAX_STACK_DEPTH 127
#define TT_MAX_STRING_LEN 4096
#define TT_SYSCALL_NONE (-1) /* not in a syscall (user mode) or unknown */

enum tt_event_type {
	TT_EV_THREAD_SAMPLE = 1, /* one thread seen at one sampling tick */
	TT_EV_THREAD_INFO = 2,	 /* who a thread is: comm, cmdline, start time */
	TT_EV_STRING = 3,	 /* string dictionary entry: id -> text */
	TT_EV_STACK = 4,	 /* stack dictionary entry: id -> frames */
	TT_EV_TICK = 5,		 /* a sampling pass is complete */
	TT_EV_DROPS = 6,	 /* events lost since the last TT_EV_DROPS, by reason */
	/*
	 * Stream marks, 32 and up: written by the application, not by sources,
	 * so that a recording replays the loop's clock and intervals exactly.
	 */
	TT_EV_CLOCK = 32,    /* the loop's clock moved to hdr.time_ns */
	TT_EV_INTERVAL = 33, /* an output interval closed at hdr.time_ns */
	TT_EV_TYPE_MAX,
};

/* Current version of every record type; readers accept versions <= these. */
#define TT_THREAD_SAMPLE_VERSION 1
#define TT_THREAD_INFO_VERSION 1
#define TT_STRING_VERSION 1
#define TT_STACK_VERSION 1
#define TT_TICK_VERSION 1
#define TT_DROPS_VERSION 1
#define TT_CLOCK_VERSION 1
#define TT_INTERVAL_VERSION 1

/*
 * Thread states. R is "on a CPU"; Q is "runnable but waiting for a CPU"
 * (only a source that can tell emits it; /proc cannot). The letters are the
 * ones ps and /proc use.
 */
enum tt_state {
	TT_ST_R = 0, /* running on a CPU */
	TT_ST_Q,     /* runnable, waiting for a CPU */
	TT_ST_S,     /* interruptible sleep */
	TT_ST_D,     /* uninterruptible sleep (disk wait) */
	TT_ST_T,     /* stopped by a signal */
	TT_ST_t,     /* stopped by a tracer */
	TT_ST_Z,     /* zombie */
	TT_ST_X,     /* dead */
	TT_ST_I,     /* idle kernel thread */
	TT_ST_P,     /* parked kernel thread */
	TT_ST_UNKNOWN,
	TT_ST_MAX,
};

#define TT_STATE_LETTERS "RQSDTtZXIP?"

enum tt_drop_reason {
	TT_DROP_RINGBUF_FULL = 0, /* ring buffer had no room */
	TT_DROP_MAP_FULL,	  /* a BPF map could not take an entry */
	TT_DROP_DEDUP_FULL,	  /* the stack dedup set is full */
	TT_DROP_VANISHED,	  /* thread exited while it was being read */
	TT_DROP_READ_ERROR,	  /* a read failed (EACCES, EIO, ...) */
	TT_DROP_MAX,
};

struct tt_event_header {
	__u16 type;    /* enum tt_event_type */
	__u16 version; /* record version of that type */
	__u32 size;    /* bytes of the whole record, header included */
	__u64 time_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
};

/* Flags of struct tt_thread_sample. */
#define TT_SAMPLE_KTHREAD (1u << 0)   /* a kernel thread */
#define TT_SAMPLE_HAS_ARGS (1u << 1)  /* syscall_args are valid */
#define TT_SAMPLE_USER_MODE (1u << 2) /* running user code, not in a syscall */

struct tt_thread_sample {
	struct tt_event_header hdr;
	__u32 pid; /* process (tgid) */
	__u32 tid;
	__u64 start_time_ns; /* thread start, boot-relative: tells reused tids apart */
	__u64 cgroup_id;
	__u64 cpu_time_ns; /* total CPU time of the thread so far */
	__u64 syscall_args[6];
	__u32 kstack_id; /* TT_EV_STACK id, 0 = none */
	__u32 ustack_id; /* TT_EV_STACK id, 0 = none */
	__u32 wchan_id;	 /* TT_EV_STRING id of the wait channel, 0 = none */
	__u32 weight_us; /* sampling period this sample stands for */
	__s32 syscall_nr;
	__u8 state; /* enum tt_state */
	__u8 flags; /* TT_SAMPLE_* */
	__u16 cpu;  /* CPU it last ran on */
	char comm[TT_COMM_LEN];
};

#define TT_INFO_KTHREAD (1u << 0)

struct tt_thread_info {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid;
	__u64 start_time_ns;
	__u32 cmdline_id; /* TT_EV_STRING id of the process's command line, 0 = none */
	__u32 flags;	  /* TT_INFO_* */
	char comm[TT_COMM_LEN];
};

struct tt_string {
	struct tt_event_header hdr;
	__u32 id;
	__u32 len; /* bytes in data, no NUL, at most TT_MAX_STRING_LEN */
	char data[];
};

#define TT_STACK_KERNEL (1u << 0) /* kernel addresses (else user) */

struct tt_stack {
	struct tt_event_header hdr;
	__u32 id;
	__u32 pid;   /* address space of user stacks, 0 for kernel stacks */
	__u16 nr;    /* frames in ips, at most TT_MAX_STACK_DEPTH */
	__u16 flags; /* TT_STACK_* */
	__u32 reserved;
	__u64 ips[]; /* leaf first */
};

struct tt_tick {
	struct tt_event_header hdr;
	__u32 weight_us;   /* sampling period of this pass */
	__u32 nr_threads;  /* samples emitted by this pass */
	__u64 duration_ns; /* what the pass cost */
};

struct tt_drops {
	struct tt_event_header hdr;
	__u64 count[TT_DROP_MAX]; /* by enum tt_drop_reason */
};

/* The application's clock moved (the model's clock follows it). */
struct tt_clock {
	struct tt_event_header hdr;
};

/* An output interval closed at hdr.time_ns; what batch output and the TUI show. */
struct tt_interval {
	struct tt_event_header hdr;
	__u64 realtime_ns; /* CLOCK_REALTIME at that moment: the interval's "time" */
	__u32 seq;	   /* 0, 1, 2, ... within the run */
	__u32 reserved;
};

#endif /* THREADTOP_EVENTS_H */
