/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The event records: small, fixed-layout, versioned. The same records come
 * from the BPF programs (the kernel side includes this header too), the /proc
 * sampler, the LuaJIT agent and replay files. Stacks and strings travel as ids
 * into dictionaries that are themselves events, so a stream is self-contained.
 *
 * Rules: every field has a fixed width, structs have no implicit padding
 * (checked by static asserts in src/record/event_codec.c), the header's size covers
 * the whole record including any variable tail. A new field goes into a new
 * version of the record; a new record gets a new type. On disk the records are
 * encoded field by field, little-endian (src/record/event_codec.c).
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
	TT_EV_THREAD_SAMPLE = 1,  /* one thread seen at one sampling tick */
	TT_EV_THREAD_INFO = 2,	  /* who a thread is: comm, cmdline, start time */
	TT_EV_STRING = 3,	  /* string dictionary entry: id -> text */
	TT_EV_STACK = 4,	  /* stack dictionary entry: id -> frames */
	TT_EV_TICK = 5,		  /* a sampling pass is complete */
	TT_EV_DROPS = 6,	  /* events lost since the last TT_EV_DROPS, by reason */
	TT_EV_USE_METRIC = 7,	  /* one resource's USE figures over one interval */
	TT_EV_CPU_SAMPLE = 8,	  /* an on-CPU sample (perf_event CPU clock) */
	TT_EV_SYSCALL_STATS = 9,  /* exact syscall counts of one thread (--syscalls) */
	TT_EV_OFFCPU = 10,	  /* off-CPU or run-queue time of one thread + stack (--offcpu) */
	TT_EV_PROG_STATS = 11,	  /* run time of one BPF program (BPF_ENABLE_STATS) */
	TT_EV_THREAD_LABELS = 16, /* a thread's application labels changed (--label) */
	TT_EV_LABEL_NAME = 17,	  /* the name of a label slot */
	TT_EV_THREAD_REPEAT = 19, /* threads unchanged since their last sample, sampled again */
	TT_EV_LUAJIT_SAMPLE = 12, /* one sysprof sample of a LuaJIT thread */
	TT_EV_LUAJIT_FUNC = 13,	  /* LuaJIT function dictionary entry: (pid, id) -> name */
	TT_EV_TRACE_LINE = 20,	  /* one kernel trace line (--trace) */
	TT_EV_CMD_OUTPUT = 21,	  /* a finished --cmd run, or one more piece of its output */
	TT_EV_STACK_COPY = 18,	  /* user registers + stack bytes to unwind (live only) */
	TT_EV_PROC_INFO = 22,	  /* a process now: parent, user, nice, resident memory, CPU */
	TT_EV_HOST_STATS = 23,	  /* the box now: load average, uptime, memory and swap */
	TT_EV_OFFCPU_SITE = 24,	  /* a blocking site's token, before its stack copy (live only) */
	TT_EV_THREAD_SAME = 25,	  /* blocks repeated as at the pass before (BPF source only) */
	TT_EV_FD_TARGET = 26,	  /* what a sampled fd names, by kernel id (BPF source only) */
	TT_EV_IO_STATS = 27,	  /* block I/O requests of one thread and device (--io) */
	TT_EV_IO_WAIT = 28,	  /* the request a thread sampled in D had in flight (--io) */
	/*
	 * Stream marks, 32 and up: written by the application, not by sources,
	 * so that a recording replays the loop's clock and intervals exactly.
	 */
	TT_EV_CLOCK = 32,      /* the loop's clock moved to hdr.time_ns */
	TT_EV_INTERVAL = 33,   /* an output interval closed at hdr.time_ns */
	TT_EV_FRAME_NAME = 34, /* a recording's name of one stack frame (symbolized live) */
	TT_EV_BUILD_ID = 35,   /* a recording's GNU build-id of one module of one process */
	TT_EV_TYPE_MAX,
};

/* Current version of every record type; readers accept versions <= these. */
#define TT_THREAD_SAMPLE_VERSION 2 /* 2: syscall_target_id */
#define TT_THREAD_INFO_VERSION 1
#define TT_THREAD_REPEAT_VERSION 1
#define TT_STRING_VERSION 1
#define TT_STACK_VERSION 1
#define TT_TICK_VERSION 2 /* 2: asked_us, target_us, missed */
#define TT_DROPS_VERSION 1
#define TT_CLOCK_VERSION 1
#define TT_INTERVAL_VERSION 1
#define TT_FRAME_NAME_VERSION 2
#define TT_BUILD_ID_VERSION 1
#define TT_USE_METRIC_VERSION 1
#define TT_CPU_SAMPLE_VERSION 2 /* 2: labels_hash */
#define TT_SYSCALL_STATS_VERSION 1
#define TT_OFFCPU_VERSION 2 /* 2: labels_hash */
#define TT_PROG_STATS_VERSION 1
#define TT_THREAD_LABELS_VERSION 2 /* 2: labels_hash */
#define TT_LABEL_NAME_VERSION 1
/* 2: an agentless sample, whose fidelity carries TT_LJ_FIDELITY_BPF (a reader
 * older than the bit skips it rather than read fidelity 137); the library's
 * samples stay version 1, the same layout, which every reader reads. */
#define TT_LUAJIT_SAMPLE_VERSION 2
#define TT_LUAJIT_SAMPLE_VERSION_LIB 1
#define TT_LUAJIT_FUNC_VERSION 1
#define TT_TRACE_LINE_VERSION 1
#define TT_CMD_OUTPUT_VERSION 1
#define TT_STACK_COPY_VERSION 1
#define TT_PROC_INFO_VERSION 1
#define TT_HOST_STATS_VERSION 1
#define TT_IO_STATS_VERSION 3 /* 2: io_worker; 3: kstack_id, ustack_id */
#define TT_IO_WAIT_VERSION 1

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
#define TT_SAMPLE_RESENT (1u << 3) /* not run since the previous pass: that pass's sample again */

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
	/*
	 * Version 2+: TT_EV_STRING id of what the fd argument of the syscall
	 * names (a path, a socket's addresses, "pipe:[ino]"), 0 = none or
	 * unknown; which argument is the fd: bpf/fd_target.shared.h.
	 */
	__u32 syscall_target_id;
	__u32 reserved;
};

/*
 * One sampling pass saw these threads exactly as their last thread sample
 * described them (they have not run since, same state): each counts as that
 * sample again, at hdr.time_ns. The BPF source sends idle threads this way;
 * a thread the reader has no sample of is skipped. The sender cuts its
 * thread order into blocks of at most TT_REPEAT_BLOCK threads, one record
 * per block and pass: when nothing in a block changed, its record lists the
 * same tids as the pass before (the model counts such a record as a run).
 */
#define TT_REPEAT_MAX 1024  /* tids per record */
#define TT_REPEAT_BLOCK 128 /* threads per block of the sender's order */

struct tt_thread_repeat {
	struct tt_event_header hdr;
	__u32 nr;    /* tids that follow */
	__u32 block; /* the block of the sender's order they come from */
	__u32 tids[];
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

/*
 * A process as /proc/PID/stat and status describe it now, sent by the thread
 * sources when a process is first seen and about once a second after that
 * (resident memory and CPU time move). Recordings without these records (older
 * threadtops) replay with those columns unknown.
 */
struct tt_proc_info {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 ppid;    /* 0 for init and kernel threads' parent kthreadd's */
	__u32 uid;     /* effective uid */
	__u32 user_id; /* TT_EV_STRING id of the user's name, 0 = none (a bare uid) */
	__u64 rss_bytes;
	__u64 cpu_time_ns; /* utime + stime of the whole process, exited threads included */
	__s32 nice;
	__u32 nr_threads; /* threads the kernel counts in the process */
};

/* The box as /proc/loadavg, /proc/uptime and /proc/meminfo say, at each interval end. */
struct tt_host_stats {
	struct tt_event_header hdr;
	__u64 uptime_ns;
	__u64 mem_total_kb;
	__u64 mem_avail_kb;
	__u64 swap_total_kb;
	__u64 swap_free_kb;
	__u32 load_milli[3]; /* 1, 5 and 15 minute load averages, x 1000 */
	__u32 nr_tasks;	     /* the threads the kernel has ("2/345": 345) */
};

/*
 * A string dictionary entry, or with len 0 its retirement: the source has
 * forgotten id and puts it on no record after this one (the same text
 * comes back under a new id), so a reader may drop the text once nothing
 * it holds names id. Empty strings are never entries (id 0 is "none").
 * Streams from before retirements (2026-12) never send one.
 */
struct tt_string {
	struct tt_event_header hdr;
	__u32 id;
	__u32 len; /* bytes in data, no NUL, at most TT_MAX_STRING_LEN; 0: retired */
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

/*
 * The id spaces: every id that names an entry of a dictionary, who hands it
 * out and from which range. Spaces of one dictionary (one key space: the
 * stack ids of a stream and of the model share one map) never overlap, and
 * 0 means "none" in the stack and string dictionaries (checked by
 * tests/unit/test_id_spaces.c). An allocator that has handed out the last id
 * of its space refuses (the stack or string goes without one, counted as a
 * dedup_full drop) rather than spill into the next space. Spaces marked
 * "stream" travel in recordings: their values are part of the .ttr format.
 * Each pair below: [BASE, LAST], with who allocates it.
 */
/* stream: stacks the BPF programs dedup (kernel, frame-pointer user): bpf/common.bpf.h */
#define TT_KSTACK_ID_BASE 0x00000001u
#define TT_KSTACK_ID_LAST 0x7fffffffu
/* stream: user stacks unwound in user space from a TT_EV_STACK_COPY: src/sources/source_bpf.c */
#define TT_USER_STACK_ID_BASE 0x80000000u
#define TT_USER_STACK_ID_LAST 0xbfffffffu
/*
 * Stack ids of the two stream spaces above are handed out in increasing
 * order, and a source puts an id on no new record once it has sent
 * TT_STACK_ID_HORIZON newer ids of the same space and an interval has ended
 * after that: the BPF dedup set (bpf/common.bpf.h, STACK_IDS_MAX entries)
 * is emptied at the first interval end past three quarters of it
 * (bpf_sums.c), the unwound stacks' set (bpf_unwind.c, USTACKS_MAX) at its
 * size. So the model may forget a stack no thread names past that point
 * (model_age.c) without a later sample finding it gone. Both sets must stay
 * within this.
 */
#define TT_STACK_ID_HORIZON 65536u
/* model only, never in a stream: stitched LuaJIT stacks, src/model/model_luajit.c */
#define TT_LJ_STACK_ID_BASE 0xc0000000u
#define TT_LJ_STACK_ID_LAST 0xffffffffu
/* stream: TT_EV_STRING, one table per source (one source per stream): src/lib/strtab.c */
#define TT_STRING_ID_BASE 0x00000001u
#define TT_STRING_ID_LAST 0xffffffffu
/* stream: TT_EV_LUAJIT_FUNC, per pid, the function's address in the agent: src/luajit */
#define TT_LJ_FUNC_ID_BASE 0x0000000000000001ull
#define TT_LJ_FUNC_ID_LAST 0xffffffffffffffffull
/* stream: label slots (tt_label_name.slot), in --label order: src/model/labels.c */
#define TT_LABEL_SLOT_ID_BASE 0u
#define TT_LABEL_SLOT_ID_LAST (TT_LABEL_SLOTS - 1u)
/* model only: label values and label sets (labels_id): strtab, src/model/model_labels.c */
#define TT_LABEL_ID_BASE 0x00000001u
#define TT_LABEL_ID_LAST 0xffffffffu
/* model only: Lua frame tags' function identity (lj_frame_ip): src/model/lj_model.c */
#define TT_LJ_FRAME_ID_BASE 0x00000000u
#define TT_LJ_FRAME_ID_LAST 0xfffffffeu /* 0xffffffff: "(other)" */

/* The dictionaries the spaces key. */
enum tt_id_dict {
	TT_DICT_STACK = 0, /* tt_stack.id, the model's stack map */
	TT_DICT_STRING,	   /* tt_string.id */
	TT_DICT_LJ_FUNC,   /* tt_luajit_func.id, per pid */
	TT_DICT_LABEL_SLOT,
	TT_DICT_LABEL, /* the model's label values and sets */
	TT_DICT_LJ_FRAME,
};

/*
 * The table above, for code that walks it: X(space, dictionary) for each
 * TT_<space>_ID_BASE / TT_<space>_ID_LAST pair. A new space goes in both.
 */
#define TT_ID_SPACES(X)                   \
	X(KSTACK, TT_DICT_STACK)          \
	X(USER_STACK, TT_DICT_STACK)      \
	X(LJ_STACK, TT_DICT_STACK)        \
	X(STRING, TT_DICT_STRING)         \
	X(LJ_FUNC, TT_DICT_LJ_FUNC)       \
	X(LABEL_SLOT, TT_DICT_LABEL_SLOT) \
	X(LABEL, TT_DICT_LABEL)           \
	X(LJ_FRAME, TT_DICT_LJ_FRAME)

/*
 * A sampling pass is complete. Version 2 says what the schedule asked for and
 * what it got, so every view shows the rate achieved beside the rate asked:
 * the application's clock skips a tick it could not take on time (missed),
 * and a source that cannot keep the asked rate within its budget lowers it
 * (target_us longer than asked_us), counting the ticks it leaves out as
 * missed too. The model weighs thread samples by what was really taken
 * (model__rate), so neither makes a figure wrong, only coarser.
 */
struct tt_tick {
	struct tt_event_header hdr;
	__u32 weight_us;   /* time this pass stands for: since the previous pass (1: the period) */
	__u32 nr_threads;  /* samples emitted by this pass */
	__u64 duration_ns; /* what the pass cost */
	/* Version 2+. */
	__u32 asked_us;	 /* the period asked for (-F) */
	__u32 target_us; /* the period the source keeps now: asked_us, or longer when lowered */
	__u32 missed;	 /* ticks of the asked schedule not taken since the previous pass */
	__u32 reserved;
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

/* What a USE record describes (struct tt_use_metric.kind). */
enum tt_use_kind {
	TT_USE_CPU = 0,	   /* index TT_USE_ALL: all CPUs; else one CPU */
	TT_USE_MEMORY,	   /* the whole box's memory */
	TT_USE_DISK,	   /* one block device (name: "vda") */
	TT_USE_NET,	   /* one network interface (name: "eth0") */
	TT_USE_TCP,	   /* the TCP stack, all interfaces */
	TT_USE_CGROUP_CPU, /* CPU bandwidth of one cgroup v2 (name: its path) */
	TT_USE_KIND_MAX,
};

#define TT_USE_ALL 0xffff /* tt_use_metric.index of a whole-resource record */

/* The figures a USE record can carry (saturation and auxiliary figure). */
enum tt_use_figure {
	TT_USE_FIG_NONE = 0,
	TT_USE_FIG_RUNNABLE_PER_CPU, /* runnable threads per CPU, averaged over the ticks */
	TT_USE_FIG_WAITING,	     /* threads waiting for this CPU (run-queue length) */
	TT_USE_FIG_PAGING,	     /* pages swapped in/out + scanned by direct reclaim, per s */
	TT_USE_FIG_SCAN,	     /* pages scanned by kswapd, per s */
	TT_USE_FIG_QUEUE,	     /* average requests in flight or queued (aqu-sz) */
	TT_USE_FIG_AWAIT_MS,	     /* average request time, ms */
	TT_USE_FIG_DROPS,	     /* packets dropped (drop + fifo), per s */
	TT_USE_FIG_BYTES,	     /* bytes received + sent, per s */
	TT_USE_FIG_RETRANS_PCT,	     /* TCP segments retransmitted, % of segments sent */
	TT_USE_FIG_THROTTLED_PCT,    /* time the cgroup was throttled, % of the interval */
	TT_USE_FIG_MAX,
};

/* Flags of struct tt_use_metric. */
#define TT_USE_SATURATED (1u << 0)    /* the saturation figure is over its limit */
#define TT_USE_ERRORS_KNOWN (1u << 1) /* errors is a real count (else no source) */

#define TT_USE_UNKNOWN (-1) /* a milli-figure with no source */

/*
 * One component's USE figures over one interval (time_ns is its end).
 * Fractional figures are fixed-point thousandths ("milli"): util_milli =
 * 97500 is 97.5 %. The component is named inline rather than by a string
 * id: the sampler and the thread sources would otherwise share an id space.
 */
struct tt_use_metric {
	struct tt_event_header hdr;
	__u64 interval_ns;
	__u64 errors;	       /* error events in the interval (see TT_USE_ERRORS_KNOWN) */
	__s64 sat_milli;       /* the saturation figure (sat_what), or TT_USE_UNKNOWN */
	__s64 sat_limit_milli; /* above this the component is saturated */
	__s64 aux_milli;       /* a supporting figure (aux_what), or TT_USE_UNKNOWN */
	__s32 util_milli;      /* utilization, % x 1000, or TT_USE_UNKNOWN */
	__s32 psi_some_milli;  /* PSI "some" stall, % of the interval x 1000, or unknown */
	__s32 psi_full_milli;  /* PSI "full" stall, likewise */
	__u16 kind;	       /* enum tt_use_kind */
	__u16 index;	       /* CPU number, or TT_USE_ALL */
	__u16 sat_what;	       /* enum tt_use_figure */
	__u16 aux_what;	       /* enum tt_use_figure */
	__u8 flags;	       /* TT_USE_* */
	__u8 reserved0;
	__u16 reserved1;
	char name[2 * TT_COMM_LEN]; /* "cpu", "cpu3", "memory", "vda", "eth0", NUL-padded */
};

/* Flags of struct tt_cpu_sample. */
#define TT_CPU_KTHREAD (1u << 0)    /* a kernel thread */
#define TT_CPU_STACK_COPY (1u << 1) /* a TT_EV_STACK_COPY follows in the same buffer */
#define TT_CPU_LABELS (1u << 2)	    /* labels_hash says the thread's labels (version 2+) */

/* One perf_event CPU-clock sample: who was on the CPU and where. */
struct tt_cpu_sample {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid;
	__u64 cgroup_id;
	__u32 kstack_id; /* TT_EV_STACK id, 0 = none (user mode or unreadable) */
	__u32 ustack_id; /* TT_EV_STACK id, 0 = none */
	__u32 weight_us; /* sampling period this sample stands for */
	__u16 cpu;
	__u16 flags; /* TT_CPU_* */
	char comm[TT_COMM_LEN];
	/* Version 2+: the thread's labels (tt_thread_labels.labels_hash), 0 = none. */
	__u32 labels_hash;
	__u32 reserved;
};

#define TT_SYSCALL_HIST_BUCKETS 32

/*
 * Exact syscall figures of one thread and one syscall, as deltas since the
 * previous record of the same thread and syscall. Bucket i of hist counts
 * calls that took [2^i, 2^(i+1)) ns (bucket 0 also takes 0 ns).
 */
struct tt_syscall_stats {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid;
	__s32 nr;
	__u32 reserved;
	__u64 count;
	__u64 total_ns;
	__u32 hist[TT_SYSCALL_HIST_BUCKETS];
};

#define TT_IO_HIST_BUCKETS 32
#define TT_IO_DISK_LEN 32 /* bytes of a device name ("nvme0n1p1"), NUL-padded */

/* The direction of block requests (struct tt_io_stats.op). */
enum tt_io_op {
	TT_IO_READ = 0,
	TT_IO_WRITE = 1,
	TT_IO_OTHER = 2, /* flush, discard, write zeroes, ... */
	TT_IO_OP_MAX,
};

/*
 * Block I/O requests that one thread issued to one device in one direction
 * from one pair of stacks and that completed, as deltas since the previous
 * record of the same key (--io). Latency runs from the request's making (queued, when the kernel
 * timed it, else its issue to the driver) to its completion; queue_ns is
 * the part before the issue. Bucket i of hist counts requests that took
 * [2^i, 2^(i+1)) ns (bucket 0 also takes 0).
 * The device is named inline, as the live run's /sys named it, so that a
 * replay elsewhere names it the same.
 */
struct tt_io_stats {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid; /* the thread that made the requests (bpf/io.bpf.c says which) */
	__u32 major;
	__u32 minor;
	__u32 op; /* enum tt_io_op */
	/*
	 * Of count, the requests an io_uring worker thread (iou-wrk-TID) made
	 * for thread tid, which queued them. Version 2; version 1 reserved it (0).
	 */
	__u32 io_worker;
	__u64 count;
	__u64 bytes;
	__u64 total_ns;
	__u64 queue_ns; /* of total_ns, before the issue to the driver */
	__u64 errors;	/* requests completed with an error */
	__u32 hist[TT_IO_HIST_BUCKETS];
	char comm[TT_COMM_LEN];
	char disk[TT_IO_DISK_LEN]; /* "vda", "loop0"; "" when /sys did not say */
	/*
	 * Where the requests were made (TT_EV_STACK ids, 0 = none): the
	 * kernel's path from the tracepoint's caller down and the maker's user
	 * stack (none for a kernel thread's or an io_uring worker's).
	 * Version 3; older versions end before them (no stacks).
	 */
	__u32 kstack_id;
	__u32 ustack_id;
};

/*
 * A thread sampled in uninterruptible sleep (D) while the oldest block
 * request it made was still in flight (--io): the request it most likely
 * waits on, sent with the sample (same hdr.time_ns) by the BPF thread
 * sampler; the sample's later repeats carry it on. age_ns is its age when
 * the sampler read the thread, which may be well after the pass's start
 * (hdr.time_ns) on a loaded box. The device is named inline as in
 * tt_io_stats; the kernel sends "" and user space fills it in.
 */
#define TT_IO_WAIT_ISSUED (1u << 0) /* issued to the driver (else queued in the block layer) */

struct tt_io_wait {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid;
	__u32 major;
	__u32 minor;
	__u32 op;    /* enum tt_io_op */
	__u32 flags; /* TT_IO_WAIT_* */
	__u64 bytes;
	__u64 age_ns; /* since made (queued), else issued: as tt_io_stats' latency starts */
	char disk[TT_IO_DISK_LEN];
};

enum tt_offcpu_kind {
	TT_OFFCPU_BLOCKED = 0, /* switched out while not runnable, until switched back in */
	TT_OFFCPU_RUNQ = 1,    /* runnable (woken or preempted) until switched in */
};

/*
 * Off-CPU time of one thread with one (kernel, user) stack, as a delta since
 * the previous record of the same key. Run-queue records carry no stacks.
 */
struct tt_offcpu {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid;
	__u32 kstack_id;
	__u32 ustack_id;
	__u64 total_ns;
	__u64 count;	   /* switches (blocked) or waits (runq) */
	__u32 kind;	   /* enum tt_offcpu_kind */
	__u32 labels_hash; /* version 2+: labels when it blocked (tt_thread_labels), 0 = none */
	char comm[TT_COMM_LEN];
};

/* What one BPF program cost since the previous record of the same name. */
struct tt_prog_stats {
	struct tt_event_header hdr;
	__u64 run_cnt;
	__u64 run_time_ns;
	__u64 recursion_misses; /* runs skipped because the program was already running */
	char name[TT_COMM_LEN]; /* program name (BPF names are at most 15 bytes) */
};

/* Application labels: slots set and cleared by uprobes (--label). */
#define TT_LABEL_SLOTS 4
#define TT_LABEL_VALUE_LEN 64

enum tt_label_kind {
	TT_LABEL_NONE = 0,
	TT_LABEL_NUMBER = 1,	 /* num holds the value */
	TT_LABEL_STRING = 2,	 /* str holds up to 63 bytes, NUL-terminated */
	TT_LABEL_UNREADABLE = 3, /* a string argument could not be read */
};

struct tt_label_value {
	__u64 num;
	__u8 kind; /* enum tt_label_kind */
	__u8 reserved[7];
	char str[TT_LABEL_VALUE_LEN];
};

/*
 * A thread's labels, sent by the label iterator before the thread samples of
 * the same tick whenever they differ from what was last sent (and by the
 * on-CPU and off-CPU samplers before a sample naming them by labels_hash);
 * the thread samples that follow carry them until the next such record.
 */
struct tt_thread_labels {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid;
	__u32 set_mask; /* bit per slot with a value */
	/*
	 * Version 2+: a hash of set_mask and the values, never 0 when a value is
	 * set; on-CPU samples and off-CPU records name these labels by it.
	 */
	__u32 labels_hash;
	struct tt_label_value v[TT_LABEL_SLOTS];
};

struct tt_label_name {
	struct tt_event_header hdr;
	__u32 slot;
	__u32 reserved;
	char name[TT_COMM_LEN];
};

/* The user registers a DWARF unwinder starts from (x86-64 callee-saved + ip, sp). */
enum tt_ureg {
	TT_UREG_IP = 0,
	TT_UREG_SP,
	TT_UREG_BP,
	TT_UREG_BX,
	TT_UREG_R12,
	TT_UREG_R13,
	TT_UREG_R14,
	TT_UREG_R15,
	TT_UREG_NR,
};

/* How user stacks are walked (--unwind). */
enum tt_unwind_mode {
	TT_UNWIND_FP = 0,    /* frame pointers, in the kernel */
	TT_UNWIND_DWARF = 1, /* a stack copy on every sample, DWARF CFI in user space */
	TT_UNWIND_AUTO = 2,  /* DWARF where the frame-pointer walk fails */
};

#define TT_STACK_COPY_MAX 65528u /* --stack-bytes limit, as perf's */

/*
 * The user registers of a sampled thread and a copy of its user stack from
 * regs[TT_UREG_SP] up, for unwinding in user space (--unwind dwarf|auto). It
 * follows the tt_cpu_sample it belongs to (flag TT_CPU_STACK_COPY) in the
 * same ring-buffer record. The BPF source unwinds it into a TT_EV_STACK and
 * consumes it, so it never reaches the model or a recording.
 */
struct tt_stack_copy {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid;
	__u64 regs[TT_UREG_NR]; /* enum tt_ureg */
	__u32 len;		/* stack bytes in data, at most TT_STACK_COPY_MAX */
	__u32 fp_frames;	/* frames the frame-pointer walk of the same sample gave */
	__u8 data[];
};

#define TT_OFFCPU_SITE_VERSION 2

/*
 * A thread blocked at a user call site new to it (--offcpu with --unwind
 * dwarf|auto): the off-CPU tracer keys that site's time by site and sends
 * this record followed, in the same ring-buffer record, by the thread's
 * TT_EV_STACK_COPY. The BPF source unwinds the copy and gives the site's
 * time the unwound stack (else fp_ustack_id, the frame-pointer walk). Live
 * only: consumed by the BPF source, never in the model or a recording.
 */
struct tt_offcpu_site {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid;
	__u64 site;	    /* tt_oc_key.site (bpf/offcpu.shared.h), never 0 */
	__u32 fp_ustack_id; /* the frame-pointer stack of the same block */
	__u32 reserved;
};

#define TT_FRAME_KERNEL (1u << 0) /* a kernel address (pid is 0) */

/*
 * The name the live run gave a frame, so that a replay elsewhere names it the
 * same: written to recordings when a stack first arrives, while its process
 * still exists. The tail is name_len bytes of name, then module_len bytes of
 * module (no NULs); together at most TT_MAX_STRING_LEN.
 */
struct tt_frame_name {
	struct tt_event_header hdr;
	__u64 addr;
	__u32 pid;   /* the address space, 0 for kernel frames */
	__u16 flags; /* TT_FRAME_* */
	__u16 name_len;
	__u16 module_len;
	__u16 inlined_len; /* version 2: bytes of inlined names after the module (0 in v1) */
	__u32 reserved2;
	/* name, module, then the functions inlined at addr, outermost first, each NUL-ended */
	char data[];
};

#define TT_FRAME_MAX_INLINED 16 /* inlined functions kept per frame in a recording */
#define TT_BUILD_ID_MAX 64	/* bytes of a GNU build-id (SHA-1 ones have 20) */

/*
 * The GNU build-id of a module that the frames of process pid named in a
 * recording belong to, so that a replay's pprof mappings carry it as a live
 * export's do. Written once per (pid, module), before the first
 * TT_EV_FRAME_NAME naming that module. The tail is module_len bytes of the
 * module, as the frame names spell it (no NULs), then id_len bytes of the
 * build-id (binary, as in the ELF note).
 */
struct tt_build_id {
	struct tt_event_header hdr;
	__u32 pid;
	__u16 module_len; /* 1 to TT_MAX_STRING_LEN */
	__u16 id_len;	  /* 1 to TT_BUILD_ID_MAX */
	char data[];
};

/*
 * LuaJIT VM states, in the order of Tarantool's sysprof counters
 * (struct luam_Sysprof_Counters) and of the sysprof stream.
 */
enum tt_lj_vmstate {
	TT_LJ_INTERP = 0, /* outside the VM, or the VM never entered */
	TT_LJ_LFUNC,	  /* Lua bytecode (interpreted) */
	TT_LJ_FFUNC,	  /* fast (builtin) function */
	TT_LJ_CFUNC,	  /* C function called from Lua */
	TT_LJ_GC,	  /* garbage collector */
	TT_LJ_EXIT,	  /* trace exit handler */
	TT_LJ_RECORD,	  /* JIT compiler: recording */
	TT_LJ_OPT,	  /* JIT compiler: optimising */
	TT_LJ_ASM,	  /* JIT compiler: assembling */
	TT_LJ_TRACE,	  /* JIT-compiled code */
	TT_LJ_VMSTATE_MAX,
};

#define TT_LJ_VMSTATE_NAMES                                                                        \
	{                                                                                          \
		"INTERP", "LFUNC", "FFUNC", "CFUNC", "GC", "EXIT", "RECORD", "OPT", "ASM", "TRACE" \
	}
#define TT_LJ_MAX_FRAMES 64 /* Lua frames kept per sample (leaf side) */

/*
 * One sample taken by libthreadtop-sysprof.so inside a LuaJIT process, as the
 * BPF uprobe on its probe point saw it. frames[] are Lua function ids of that
 * process (TT_EV_LUAJIT_FUNC names them), leaf first; the host (C) stack is a
 * user TT_EV_STACK of pid.
 */
struct tt_luajit_sample {
	struct tt_event_header hdr;
	__u32 pid;
	__u32 tid;
	__u32 ustack_id; /* TT_EV_STACK id of the host stack, 0 = none */
	__u32 weight_us; /* thread CPU time it stands for: the library's interval, as achieved */
	__s32 traceno;	 /* trace number of TRACE samples, else 0 */
	__u8 vmstate;	 /* enum tt_lj_vmstate */
	__u8 fidelity;	 /* states told apart, of 10; | TT_LJ_FIDELITY_BPF */
	__u16 nr;	 /* frames in the tail, at most TT_LJ_MAX_FRAMES */
	__u64 frames[];
};

/*
 * The top bit of tt_luajit_sample.fidelity: the sample was taken by
 * threadtop's eBPF unwinder of an unmodified VM (bpf/ljvm.bpf.c), not by
 * libthreadtop-sysprof.so in the process. The count is in the low bits.
 */
#define TT_LJ_FIDELITY_BPF 0x80u
#define TT_LJ_FIDELITY_MASK 0x7fu

/* Flags of struct tt_luajit_func. */
#define TT_LJ_FUNC_C (1u << 0)	   /* a C or builtin function (id is its address) */
#define TT_LJ_FUNC_TRACE (1u << 1) /* the "TRACE [n] chunk" pseudo-frame */

/*
 * Names Lua function id of process pid: "name @chunk:line". A later entry for
 * the same (pid, id) replaces the earlier one (a new sysprof session).
 */
struct tt_luajit_func {
	struct tt_event_header hdr;
	__u64 id;
	__u32 pid;
	__u32 flags; /* TT_LJ_FUNC_* */
	__u32 len;   /* bytes in data, no NUL, at most TT_MAX_STRING_LEN */
	__u32 reserved;
	char data[];
};

/* Bounds of the trace and command records (checked when decoding). */
#define TT_TRACE_EVENT_MAX 127	      /* bytes of "SUBSYSTEM:EVENT" */
#define TT_TRACE_LINE_MAX 1023	      /* bytes of one formatted line */
#define TT_CMD_MAX 16		      /* --cmd given at most this often */
#define TT_CMD_TEXT_MAX 1024	      /* bytes of a command's text */
#define TT_CMD_OUTPUT_MAX (64u << 20) /* bytes of one run's kept output (--cmd-max-output) */

/*
 * A line of formatted ftrace output of one tracepoint, as the live run
 * read it from its private tracefs instance. Written at each interval end
 * for the lines that interval kept, oldest first; total says how many
 * lines the tracepoint had by then, so lines the ring dropped still count.
 * The tail is event_len bytes of "SUBSYSTEM:EVENT", then line_len bytes
 * of the line (no NULs, no newline).
 */
struct tt_trace_line {
	struct tt_event_header hdr;
	__u64 total; /* lines of this tracepoint since the start, this one included */
	__u64 lost;  /* events the kernel dropped so far, all tracepoints */
	__u16 event_len;
	__u16 line_len;
	__u32 reserved;
	char data[];
};

/* Flags of struct tt_cmd_output. */
#define TT_CMD_TIMED_OUT (1u << 0) /* killed at the timeout */
#define TT_CMD_TRUNCATED (1u << 1) /* output beyond the cap was dropped */
#define TT_CMD_FLAGS_KNOWN (TT_CMD_TIMED_OUT | TT_CMD_TRUNCATED)

/*
 * A finished run of --cmd number index. Its output (output_len bytes in
 * all) travels in pieces: each record carries the command text (cmd_len
 * bytes), then piece_len bytes of output that go at offset. The piece at
 * offset 0 starts a new run; the others follow it in order.
 */
struct tt_cmd_output {
	struct tt_event_header hdr;
	__u64 started_ns;  /* CLOCK_REALTIME of the start */
	__u64 duration_ns; /* start to exit */
	__u64 runs;	   /* finished runs so far, this one included */
	__u64 skipped;	   /* snapshots at which it was still running */
	__u32 output_len;  /* bytes of the run's kept output */
	__u32 offset;	   /* where this piece goes in it */
	__s32 exit_code;   /* -1 when a signal ended it */
	__s32 signal;	   /* the signal that ended it, 0 when it exited */
	__u16 index;	   /* which --cmd, 0 to TT_CMD_MAX - 1 */
	__u16 flags;	   /* TT_CMD_* */
	__u16 cmd_len;	   /* 1 to TT_CMD_TEXT_MAX */
	__u16 piece_len;   /* cmd_len + piece_len <= TT_MAX_STRING_LEN */
	char data[];
};

#endif /* THREADTOP_EVENTS_H */
