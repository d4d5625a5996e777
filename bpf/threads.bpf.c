// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The thread sampler, run by user space once per tick. For every thread
 * worth showing it sends one TT_EV_THREAD_SAMPLE: state (R on a CPU, Q
 * runnable but waiting for one, S, D, ...), the syscall and its arguments
 * from the saved user registers, the kernel stack of threads off CPU and
 * their user stack by frame-pointer walk, the cgroup. Idle kernel threads,
 * threadtop itself and processes outside -p are left out here, in the kernel.
 *
 * Two programs, one loaded. sample_threads (kernel 6.7+, every thread of the
 * box) is a syscall program run once per pass. Under RCU it goes through
 * every thread and sorts them: a thread that has not run since it was last
 * sampled (same context-switch count, same state, not on a CPU) has the same
 * syscall, registers, stacks and CPU time, so only its tid is sent, in a
 * TT_EV_THREAD_REPEAT record, and user space repeats the thread's last
 * sample. The others are sampled in full afterwards, out of the RCU section,
 * since walking a user stack may sleep. It keeps the threads a walk of the
 * kernel's thread list found (tt_known) and, with the sched_wakeup hooks of
 * woken.bpf.h, rechecks only the blocks of them that hold a thread woken (or
 * created) since the last pass: a sleeping thread costs a pass nothing, and
 * the list is walked at the start and every 30 s. Without the hooks a pass
 * re-reads every thread known (two cache lines each), and walks the list
 * when a task was created since the last pass (or once a second).
 * sample_tasks (the per-task iterator: kernels before 6.7) runs once per
 * thread and sorts it the same way, against the same tt_last: an unchanged
 * thread costs its tid in a TT_EV_THREAD_REPEAT record, not a full sample
 * (Linux 6.1 took 8x the one-pass sampler's time per idle thread when each
 * was re-sent in full, most of it in user space taking the samples in). The
 * wakeup hooks mark the threads they wake for it, so that one asleep and
 * unwoken is repeated on its tid alone; the kernel's walk of every task,
 * which no program can skip, is then most of its cost.
 */
#include "common.bpf.h"
#include "threads.shared.h"

/* Frames of a user stack walk (bpf_copy_from_user_task each), 0 = none. */
const volatile __u32 tt_ustack_frames = 16;
/* --unwind (enum tt_unwind_mode) and the user stack copied for it (set by the loader). */
const volatile __u32 tt_unwind_mode = TT_UNWIND_FP;
const volatile __u32 tt_stack_bytes = 0;
const volatile __u32 tt_copies_per_pass = TT_COPIES_PER_PASS;

/* Kernel functions of the one-pass sampler (6.7+); declared weak, probed. */
extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task,
			     unsigned int flags) __weak __ksym;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __weak __ksym;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __weak __ksym;
extern void bpf_rcu_read_lock(void) __weak __ksym;
extern void bpf_rcu_read_unlock(void) __weak __ksym;
extern struct task_struct *bpf_task_from_pid(s32 pid) __weak __ksym;
extern struct task_struct *bpf_task_acquire(struct task_struct *p) __weak __ksym;
extern void bpf_task_release(struct task_struct *p) __weak __ksym;
extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __weak __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __weak __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __weak __ksym;

/* Task states (include/linux/sched.h), stable for years. */
#define TS_INTERRUPTIBLE 0x0001
#define TS_UNINTERRUPTIBLE 0x0002
#define TS_STOPPED 0x0004
#define TS_TRACED 0x0008
#define TS_EXIT_DEAD 0x0010
#define TS_EXIT_ZOMBIE 0x0020
#define TS_PARKED 0x0040
#define TS_DEAD 0x0080
#define TS_NOLOAD 0x0400
#define TS_REPORT 0x007f

struct scratch {
	struct tt_thread_sample sample;
	struct tt_stack_buf stack;
};

/*
 * The loader sizes tt_last, tt_known and tt_changed for the threads of the
 * box (threads.shared.h): tid & tt_last_mask picks a slot of tt_last, and
 * tt_known and tt_changed hold tt_known_max threads.
 */
const volatile __u32 tt_last_mask = TT_LAST_SLOTS - 1;
const volatile __u32 tt_known_max = TT_THREAD_MAPS_MIN;

/* What the last full sample of each thread saw (threads.shared.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TT_LAST_SLOTS);
	__type(key, __u32);
	__type(value, struct tt_last_seen);
} tt_last SEC(".maps");

/*
 * The threads the last walk of the thread list found, in its order, each
 * held by a reference. Walking the list costs a cache miss per thread that
 * the next step waits for (the next thread's address is in this one), about
 * 200 ns on a VM: most of an idle box's pass. While no task is created, a
 * pass reads the threads from this array instead, where the loads of one
 * thread do not wait for those of another (needs_walk says when not).
 */
#define KNOWN_NONE 0xffffffffu
#define STATE_RESAMPLE 0xff /* no full sample of the thread at this index yet */

struct known {
	struct task_struct __kptr *task;
	__u64 runtime; /* CPU time at the thread's last full sample: it ran if it moved */
	__u32 tid;
	__u8 state; /* at the thread's last full sample, or STATE_RESAMPLE */
	__u8 kthread;
	__u8 wants_copy; /* WANTS_COPY of tt_last */
	__u8 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TT_THREAD_MAPS_MIN); /* tt_known_max, set by the loader */
	__type(key, __u32);
	__type(value, struct known);
} tt_known SEC(".maps");

/*
 * Samples go to the ring buffer in batches: one ring-buffer record carries
 * up to BATCH samples back to back (user space splits them), which costs a
 * fraction of a ring-buffer write per thread. One pass runs at a time (one
 * reader), so a plain array is the batch, not a per-CPU one: a sleepable
 * pass may move between CPUs.
 */
#define BATCH 32

struct batch {
	__u32 nr;
	__u32 pad;
	struct tt_thread_sample samples[BATCH];
	__u32 known[BATCH]; /* each sample's index in tt_known, or KNOWN_NONE */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct batch);
} tt_iter_batch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} tt_iter_scratch SEC(".maps");

/* A sleeping thread's stack copy (one pass at a time: a plain array). */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct copy_buf {
	struct tt_stack_copy copy;
	__u8 data[TT_STACK_COPY_MAX + 8 + PAGE];
};
#pragma clang diagnostic pop

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct copy_buf);
} tt_iter_copy SEC(".maps");

/* Samples sent by the current pass; user space reads and resets it. */
__u32 tt_nr_samples = 0;
/* Since the start, for the log: full samples and repeats sent. */
__u64 tt_full_sent = 0;
__u64 tt_repeats_sent = 0;
/* Stack copies sent by the current pass, and those the cap refused. */
__u32 tt_nr_copies = 0;
__u32 tt_copies_capped = 0;
/* Set by user space while its unwinding budget for this second is spent. */
__u32 tt_copies_paused = 0;
/* Time of the current pass (CLOCK_MONOTONIC), set by user space: one clock
 * read per pass instead of one per thread. */
__u64 tt_pass_ns = 0;

/*
 * Runnable but not on a CPU because the sampler itself took that CPU: the
 * scheduler stamped its departure (sched_info.last_queued) with the same
 * run-queue clock reading as the sampler's arrival. Such a thread was on the
 * CPU when the tick fired, so it counts as R: otherwise, on a busy machine,
 * the sampler turns every thread it preempts into a Q.
 */
static __always_inline bool preempted_by_us(struct task_struct *task)
{
	struct task_struct *me = bpf_get_current_task_btf();
	__u64 queued, arrived;

	if (!bpf_core_field_exists(task->sched_info))
		return false;
	if (BPF_CORE_READ(task, thread_info.cpu) != bpf_get_smp_processor_id())
		return false;
	queued = BPF_CORE_READ(task, sched_info.last_queued);
	arrived = BPF_CORE_READ(me, sched_info.last_arrival);
	return queued && queued == arrived;
}

static __always_inline __u8 state_of(struct task_struct *task, unsigned int raw,
				     unsigned int exit_state)
{
	unsigned int st = (raw | exit_state) & TS_REPORT;

	if (st == 0)
		return task->on_cpu || preempted_by_us(task) ? TT_ST_R : TT_ST_Q;
	if (st == TS_UNINTERRUPTIBLE && (raw & TS_NOLOAD))
		return TT_ST_I;
	if (st & TS_PARKED)
		return TT_ST_P;
	if (st & TS_EXIT_ZOMBIE)
		return TT_ST_Z;
	if (st & TS_EXIT_DEAD)
		return TT_ST_X;
	if (st & TS_TRACED)
		return TT_ST_t;
	if (st & TS_STOPPED)
		return TT_ST_T;
	if (st & TS_UNINTERRUPTIBLE)
		return TT_ST_D;
	return TT_ST_S;
}

static __always_inline __u8 task_state(struct task_struct *task)
{
	/* Plain loads (a trusted task pointer): no helper call per field. */
	return state_of(task, task->__state, task->exit_state);
}

/*
 * The syscall a thread sits in, from the registers saved at its last kernel
 * entry. SYSCALL leaves the return address in rcx and the flags in r11, and
 * the entry code saves both as ip and flags too: an interrupt or fault entry
 * (whose orig_ax holds a vector or error code) almost never matches that.
 */
static __always_inline bool read_syscall(struct task_struct *task, struct tt_thread_sample *s)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	long nr;

	if (!regs)
		return false;
	nr = BPF_CORE_READ(regs, orig_ax);
	if (nr < 0 || nr >= 1024 || BPF_CORE_READ(regs, cx) != BPF_CORE_READ(regs, ip) ||
	    BPF_CORE_READ(regs, r11) != BPF_CORE_READ(regs, flags))
		return false;
	s->syscall_nr = nr;
	s->syscall_args[0] = BPF_CORE_READ(regs, di);
	s->syscall_args[1] = BPF_CORE_READ(regs, si);
	s->syscall_args[2] = BPF_CORE_READ(regs, dx);
	s->syscall_args[3] = BPF_CORE_READ(regs, r10);
	s->syscall_args[4] = BPF_CORE_READ(regs, r8);
	s->syscall_args[5] = BPF_CORE_READ(regs, r9);
	s->flags |= TT_SAMPLE_HAS_ARGS;
	return true;
}

/* Frame-pointer walk of a user stack from the saved user registers. */
static __always_inline long walk_user_stack(struct task_struct *task, struct tt_stack_buf *buf)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 fp, frame[2];
	__u32 n = 1;

	if (!regs || !tt_ustack_frames)
		return 0;
	buf->ips[0] = BPF_CORE_READ(regs, ip);
	fp = BPF_CORE_READ(regs, bp);
	for (__u32 i = 1; i < TT_MAX_STACK_DEPTH; i++) {
		if (i >= tt_ustack_frames || !fp || (fp & 7))
			break;
		if (bpf_copy_from_user_task(frame, sizeof(frame), (void *)fp, task, 0))
			break;
		if (!frame[1])
			break;
		buf->ips[i] = frame[1];
		n = i + 1;
		if (frame[0] <= fp)
			break; /* frames go up the stack; anything else is garbage */
		fp = frame[0];
	}
	return (long)n * 8;
}

/* Ring room for a stack copy and for a batch, each with its record header. */
#define COPY_ROOM (sizeof(struct tt_stack_copy) + (__u64)tt_stack_bytes + 16)
#define BATCH_ROOM (BATCH * sizeof(struct tt_thread_sample) + 16)

static __always_inline bool ring_room(__u64 bytes)
{
	__u64 size = bpf_ringbuf_query(&tt_events, BPF_RB_RING_SIZE);
	__u64 used = bpf_ringbuf_query(&tt_events, BPF_RB_AVAIL_DATA);

	return used <= size && size - used >= bytes;
}

#include "fd_target.bpf.h"
#include "io_wait.bpf.h"

/*
 * Sends the saved user registers and stack of a thread off CPU, for DWARF
 * unwinding in user space (--unwind dwarf, or auto when the frame-pointer
 * walk gave at most two frames). Sleepable: the copy may fault pages in. The
 * record goes before the batch holding the thread's sample; user space
 * keeps the unwound stack for that sample.
 */
static __always_inline bool copy_user_stack(struct task_struct *task, __u32 tgid, long fp_bytes)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 got;
	struct copy_buf *b;
	__u32 zero = 0;

	if (tt_unwind_mode == TT_UNWIND_FP || !regs ||
	    (tt_unwind_mode == TT_UNWIND_AUTO && fp_bytes > TT_AUTO_MAX_FP_FRAMES * 8))
		return false;
	/*
	 * Past the unwinding budget: frame pointers until the thread changes
	 * (resampling it in full on every pass would cost more than the copy).
	 */
	if (tt_copies_paused)
		return false;
	/*
	 * Past the cap, or where the copy would leave the ring no room for a
	 * batch of samples (copies yield to the samples, which a copy only
	 * improves): the thread waits for a pass with a copy to give (WANTS_COPY).
	 */
	if (tt_nr_copies >= tt_copies_per_pass || !ring_room(COPY_ROOM + BATCH_ROOM)) {
		tt_copies_capped++;
		return true;
	}
	b = bpf_map_lookup_elem(&tt_iter_copy, &zero);
	if (!b)
		return false;
	got = fill_stack_copy(&b->copy, b->data, task, regs, tt_stack_bytes, fp_bytes, true);
	b->copy.hdr.time_ns = tt_pass_ns ?: bpf_ktime_get_ns();
	b->copy.pid = tgid;
	b->copy.tid = task->pid;
	/* A copy the ring refused waits as one the cap refused: the sample itself holds. */
	if (sizeof(b->copy) + got > sizeof(*b) || emit(b, sizeof(b->copy) + got))
		return true;
	tt_nr_copies++;
	return false;
}

/*
 * The ring refused the batch: its threads are sampled in full again next
 * pass. Left as sampled, each would be repeated from a sample user space
 * never got (an older one, or none). Per thread, not every thread: marking
 * the whole box changed after any loss made a ring too small for one full
 * pass refuse every pass after it. A global function, checked once.
 */
__noinline int forget_batch(void)
{
	__u32 zero = 0;
	struct batch *b = bpf_map_lookup_elem(&tt_iter_batch, &zero);

	if (!b)
		return 0;
	for (__u32 i = 0; i < BATCH; i++) {
		__u32 tid, slot, idx;
		struct tt_last_seen *last;
		struct known *k;

		if (i >= b->nr)
			break;
		tid = b->samples[i].tid;
		slot = tid & tt_last_mask;
		idx = b->known[i];
		last = bpf_map_lookup_elem(&tt_last, &slot);
		if (last && last->tid == tid)
			last->tid = 0;
		k = idx < tt_known_max ? bpf_map_lookup_elem(&tt_known, &idx) : NULL;
		if (k && k->tid == tid)
			k->state = STATE_RESAMPLE;
	}
	return 0;
}

static __always_inline void flush_batch(struct batch *b)
{
	__u32 nr = b->nr;

	if (nr > BATCH)
		nr = BATCH;
	if (nr && !emit(b->samples, nr * sizeof(b->samples[0]))) {
		tt_nr_samples += nr;
		tt_full_sent += nr;
	} else if (nr) {
		forget_batch();
	}
	b->nr = 0;
}

static __always_inline void add_sample(struct batch *b, const struct tt_thread_sample *s,
				       __u32 known)
{
	__u32 i = b->nr;

	if (i >= BATCH)
		return;
	__builtin_memcpy(&b->samples[i], s, sizeof(*s));
	b->known[i] = known;
	b->nr = i + 1;
	if (b->nr == BATCH)
		flush_batch(b);
}

/* What became of a full sample's own records (take_sample's result). */
#define SAMPLE_LOST 1	    /* a stack it names did not fit the ring: sample it in full again */
#define SAMPLE_WANTS_COPY 2 /* its stack copy was refused (cap or ring): see WANTS_COPY */

/*
 * stack_id for the one-pass sampler, as a global function: checked once by
 * the verifier, with arguments it knows nothing of. Inlined, the size of
 * the record it sends made each frame count of a stack walk exact on every
 * path through the rest of the pass. Only here: on Linux 6.1 the per-task
 * iterator went past the verifier's limit with it (--unwind dwarf), and
 * loads with stack_id inlined. To the verifier the pointer may be NULL.
 */
__noinline __u32 stack_id_of(struct tt_stack_buf *buf, long bytes, __u32 tgid, bool kernel)
{
	return buf ? stack_id(buf, bytes, tgid, kernel) : 0;
}

/*
 * copy_user_stack for the one-pass sampler, as a global function: checked
 * once by the verifier, not once for each way the page-by-page copy can end
 * (each a different size sent) times every path through the rest of the
 * pass. With stack_id_of, this took sample_threads from past the verifier's
 * million instructions (DWARF unwinding on, Linux 6.18) to 196,282; either
 * alone was not enough. A global function cannot take the task (a trusted
 * pointer before Linux 6.8's __arg_trusted), so it looks the thread up
 * again: a copy is rare (tt_copies_per_pass at most).
 */
__noinline int copy_user_stack_of(__u32 tid, __u32 tgid, long fp_bytes)
{
	struct task_struct *task = bpf_task_from_pid((s32)tid);
	bool wants;

	if (!task)
		return 0; /* exited: nothing to copy, and no sample to improve */
	wants = copy_user_stack(task, tgid, fp_bytes);
	bpf_task_release(task);
	return wants;
}

/*
 * The full sample of task into sc->sample: identity, state, syscall and
 * arguments, stacks of a thread off CPU. May sleep (the user stack walk).
 * one_pass (a constant, folded by clang): for sample_threads, whose stack
 * ids and copy are global functions. Returns SAMPLE_* bits.
 */
static __always_inline __u32 take_sample(struct task_struct *task, struct scratch *sc, __u8 state,
					 bool kthread, const bool one_pass)
{
	struct tt_thread_sample *s = &sc->sample;
	__u32 tgid = task->tgid, refused, fate = 0;

	__builtin_memset(s, 0, sizeof(*s));
	s->hdr.type = TT_EV_THREAD_SAMPLE;
	s->hdr.version = TT_THREAD_SAMPLE_VERSION;
	s->hdr.size = sizeof(*s);
	s->hdr.time_ns = tt_pass_ns ?: bpf_ktime_get_ns();
	s->pid = tgid;
	s->tid = task->pid;
	s->start_time_ns = task->start_boottime;
	s->cgroup_id = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
	s->cpu_time_ns = task->se.sum_exec_runtime;
	s->weight_us = tt_weight_us;
	s->syscall_nr = TT_SYSCALL_NONE;
	s->state = state;
	s->flags = kthread ? TT_SAMPLE_KTHREAD : 0;
	s->cpu = task->thread_info.cpu;
	bpf_probe_read_kernel(s->comm, sizeof(s->comm), task->comm);
	if (!kthread && !read_syscall(task, s) && state != TT_ST_R)
		s->flags |= TT_SAMPLE_USER_MODE;
	fd_target_note(task, s);
	if (state == TT_ST_D)
		io_wait_send(tgid, s->tid, s->hdr.time_ns);
	/* After the target and the request: either refused leaves the sample whole, without it. */
	refused = tt_ring_refused;

	/* A thread on a CPU has no stack we could read consistently. */
	if (state != TT_ST_R) {
		long bytes = bpf_get_task_stack(task, sc->stack.ips, sizeof(sc->stack.ips), 0);

		s->kstack_id = one_pass ? stack_id_of(&sc->stack, bytes, tgid, true)
					: stack_id(&sc->stack, bytes, tgid, true);
		if (!kthread) {
			bytes = walk_user_stack(task, &sc->stack);
			s->ustack_id = one_pass ? stack_id_of(&sc->stack, bytes, tgid, false)
						: stack_id(&sc->stack, bytes, tgid, false);
		}
		/* Before the copy, whose refusal leaves the sample whole. */
		if (tt_ring_refused != refused)
			fate |= SAMPLE_LOST;
		if (!kthread && (one_pass ? copy_user_stack_of(task->pid, tgid, bytes)
					  : copy_user_stack(task, tgid, bytes)))
			fate |= SAMPLE_WANTS_COPY;
	}
	return fate;
}

/* Whether the sampler leaves task out: idle kernel threads, itself, -p. */
static __always_inline bool skipped(struct task_struct *task, __u8 state, bool kthread)
{
	if (kthread && state == TT_ST_I)
		return true;
	return !task->pid || !want_tgid(task->tgid);
}

/* --- sample_threads: one run per pass (kernel 6.7+) ----------------------- */

/*
 * In tt_last's state (and tt_known's wants_copy): the thread's stack copy was
 * refused by the per-pass cap. It is repeated with its frame-pointer stack
 * unless the pass has a copy to give it (claim_copy). Resampling every
 * refused thread in full on every pass made a box of 10,000 new idle threads
 * cost a full sample each per pass until each had its copy: minutes under
 * emulation, where a pass then took a second and so never met the unwinding
 * budget's pause.
 */
#define WANTS_COPY 0x100

/* Refused threads sampled again this pass for a copy (user space resets it). */
__u32 tt_copy_claims = 0;

static __always_inline bool claim_copy(void)
{
	/* Claims made before the pass sends anything: the ring must hold them all. */
	if (tt_copies_paused || tt_copy_claims >= tt_copies_per_pass ||
	    !ring_room((tt_copy_claims + 1) * COPY_ROOM + BATCH_ROOM))
		return false;
	tt_copy_claims++;
	return true;
}

/* The thread list is walked at least once in this many passes (set by the loader: a second). */
const volatile __u32 tt_walk_every = 0;
/* The same while the wakeup hooks tell of new threads (set by the loader: 30 s). */
const volatile __u32 tt_walk_every_woken = 0;

/* Set by user space: the next pass walks the list (it reset a slot of tt_last). */
__u32 tt_walk_now = 0;
/* Passes that walked the thread list, and those that read tt_known instead. */
__u64 tt_walks = 0;
__u64 tt_rereads = 0;
__u64 tt_passes = 0;
/* The walks' own state (one pass runs at a time). */
__u32 tt_nr_known = 0;		/* entries of tt_known the last walk filled */
bool tt_known_complete = false; /* it held every thread the walk saw */
__u32 tt_passes_since_walk = 0;
__u32 tt_pid_cursor = 0;      /* the init pid namespace's next pid, last pass */
bool tt_cursor_moved = false; /* it had moved at the last pass */

/* tids per TT_EV_THREAD_REPEAT record. */
#define REPEAT_BATCH TT_REPEAT_MAX

struct changed_thread {
	__u32 tid;
	__u32 known; /* its index in tt_known, or KNOWN_NONE */
};

/* The pass's threads to sample in full, tt_known_max at most (set by the loader). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TT_THREAD_MAPS_MIN);
	__type(key, __u32);
	__type(value, struct changed_thread);
} tt_changed SEC(".maps");

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct pass {
	struct tt_thread_repeat rep; /* tids follow */
	__u32 rep_tids[REPEAT_BATCH];
	__u32 rep_block; /* the block of the repeats in rep */
	__u32 nr_changed;
	__u32 nr_walked; /* threads the walk has put in tt_known so far */
	bool overflow;	 /* a thread the walk saw found no room in tt_known */
};
#pragma clang diagnostic pop

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pass);
} tt_pass SEC(".maps");

#include "woken.bpf.h"

static __always_inline __u64 thread_sig(struct task_struct *task)
{
	return task->nvcsw + task->nivcsw + task->start_boottime * 0x9e3779b97f4a7c15ULL;
}

/*
 * tt_last after a full sample: what it saw, so that the thread is repeated
 * until it changes. A stack copy refused marks it WANTS_COPY; a record lost
 * leaves the slot empty: sampled in full again next pass.
 */
static __always_inline void note_sample(struct task_struct *task, __u32 tid, __u8 state, __u32 fate)
{
	__u32 slot = tid & tt_last_mask;
	struct tt_last_seen *last = bpf_map_lookup_elem(&tt_last, &slot);

	if (!last)
		return;
	last->tid = fate & SAMPLE_LOST ? 0 : tid;
	last->state = state | (fate & SAMPLE_WANTS_COPY ? WANTS_COPY : 0);
	last->sig = thread_sig(task);
}

static __always_inline void flush_repeats(struct pass *p)
{
	__u32 nr = p->rep.nr;

	if (nr > REPEAT_BATCH)
		nr = REPEAT_BATCH;
	if (nr) {
		p->rep.hdr.type = TT_EV_THREAD_REPEAT;
		p->rep.hdr.version = TT_THREAD_REPEAT_VERSION;
		p->rep.hdr.size = sizeof(p->rep) + nr * sizeof(__u32);
		p->rep.hdr.time_ns = tt_pass_ns ?: bpf_ktime_get_ns();
		p->rep.nr = nr;
		p->rep.block = p->rep_block;
		if (!emit(&p->rep, sizeof(p->rep) + nr * sizeof(__u32))) {
			tt_nr_samples += nr;
			tt_repeats_sent += nr;
		} else {
			/* Not sent: the block's next record is not "the same" as this one. */
			recheck_at(p->rep_block * TT_REPEAT_BLOCK, tt_pass_no + 1);
		}
	}
	p->rep.nr = 0;
}

/*
 * idx is the thread's place in tt_known: records are cut at block bounds, so
 * that a thread that changes alters only the record of its block. This and
 * add_changed are global functions, checked by the verifier once rather than
 * on every path through the loops that call them (a third of the load time).
 */
__noinline int add_repeat(__u32 tid, __u32 idx)
{
	__u32 block = idx / TT_REPEAT_BLOCK, i, zero = 0;
	struct pass *p = bpf_map_lookup_elem(&tt_pass, &zero);

	if (!p)
		return 0;
	if (block != p->rep_block) {
		flush_repeats(p);
		p->rep_block = block;
	}
	i = p->rep.nr;
	if (i < REPEAT_BATCH) {
		p->rep_tids[i] = tid;
		p->rep.nr = i + 1;
	}
	if (p->rep.nr >= REPEAT_BATCH)
		flush_repeats(p);
	return 0;
}

__noinline int add_changed(__u32 tid, __u32 known)
{
	__u32 zero = 0, i;
	struct pass *p = bpf_map_lookup_elem(&tt_pass, &zero);
	struct changed_thread *c;

	if (!p)
		return 0;
	i = p->nr_changed;
	c = i < tt_known_max ? bpf_map_lookup_elem(&tt_changed, &i) : NULL;
	if (c) {
		c->tid = tid;
		c->known = known;
		p->nr_changed = i + 1;
	} else {
		count_drop(TT_DROP_MAP_FULL);
	}
	/* Its block's next record differs from this pass's, which lacks it. */
	if (known != KNOWN_NONE)
		recheck_at(known, tt_pass_no + 1);
	return 0;
}

/* A repeated thread in one of these states can change unwoken: it is rechecked next pass. */
static __always_inline bool changes_unwoken(__u8 state, bool wants_copy)
{
	return state == TT_ST_Q || state == TT_ST_Z || wants_copy;
}

/* tid is at tt_known's index j now (kept while the wakeup hooks run). */
static __always_inline void known_at(__u32 tid, __u32 j)
{
	__u32 *at;

	if (!tt_wakeups_live)
		return;
	at = bpf_map_lookup_elem(&tt_known_at, &tid);
	if (at)
		*at = j;
	else if (bpf_map_update_elem(&tt_known_at, &tid, &j, BPF_NOEXIST) == -E2BIG)
		tt_known_complete = false; /* full: walk, and do not add what cannot be found */
}

/* The thread at tt_known's index j leaves it. */
static __always_inline void known_gone(__u32 tid, __u32 j)
{
	__u32 *at;

	if (!tt_wakeups_live)
		return;
	at = bpf_map_lookup_elem(&tt_known_at, &tid);
	if (at && *at == j)
		bpf_map_delete_elem(&tt_known_at, &tid);
}

/*
 * Whether this pass walks the thread list. Every new thread or process
 * takes a pid of the init namespace, which moves its cursor (idr_next): the
 * list is walked when the cursor moved at this pass or the one before (a
 * task is linked into the list shortly after it took its pid). Also on
 * user space's request (it emptied a slot of tt_last), while tt_known
 * cannot hold every thread, and once every tt_walk_every passes for what
 * the cursor does not see (a pid chosen with clone3's set_tid).
 */
static __always_inline bool needs_walk(bool woken_read)
{
	struct task_struct *me = bpf_get_current_task_btf();
	__u32 cursor = BPF_CORE_READ(me, thread_pid, numbers[0].ns, idr.idr_next);
	bool moved = cursor != tt_pid_cursor;
	bool walk;

	/*
	 * With the wakeup hooks, a new thread is a woken tid (sched_wakeup_new):
	 * the cursor does not matter, but a ring overrun may have lost one.
	 */
	if (tt_wakeups_live)
		walk = !woken_read || tt_walk_now || !tt_known_complete ||
		       ++tt_passes_since_walk >= tt_walk_every_woken;
	else
		walk = moved || tt_cursor_moved || tt_walk_now || !tt_known_complete ||
		       ++tt_passes_since_walk >= tt_walk_every;

	tt_pid_cursor = cursor;
	tt_cursor_moved = moved;
	if (walk) {
		tt_walk_now = 0;
		tt_passes_since_walk = 0;
	}
	return walk;
}

/* The walk's next thread goes to tt_known, held, unless it is there already. */
static __always_inline struct known *remember(struct task_struct *task, struct pass *p,
					      bool kthread)
{
	struct task_struct *ref, *old;
	__u32 j = p->nr_walked;
	struct known *k;

	if (j >= tt_known_max) {
		p->overflow = true;
		return NULL;
	}
	k = bpf_map_lookup_elem(&tt_known, &j);
	if (!k)
		return NULL;
	if (k->task != task) {
		ref = bpf_task_acquire(task);
		if (!ref)
			return NULL; /* on its way out */
		old = bpf_kptr_xchg(&k->task, ref);
		if (old)
			bpf_task_release(old);
		known_gone(k->tid, j);
		k->state = STATE_RESAMPLE;
		k->tid = task->pid; /* an exec that changes it also makes a full sample */
		k->kthread = kthread;
		k->wants_copy = 0;
	}
	known_at(k->tid, j);
	p->nr_walked = j + 1;
	return k;
}

/* In sort_walked's state argument: the thread is a kernel thread. */
#define SORT_KTHREAD 0x100

/*
 * sort_thread's verdict on a thread, from what it read of the task: left out
 * (an idle kernel thread), repeated when unchanged since its full sample
 * (tt_last), else listed for one. known: its index in tt_known, or
 * KNOWN_NONE; state: a TT_ST_* with SORT_KTHREAD.
 *
 * A global function, checked by the verifier once, and the walk that calls
 * it compares no state: each state is a constant to the verifier, so a
 * comparison in the walk's body had it checked once per state, and a state
 * still held at the loop's next turn kept Linux 6.12's verifier from seeing
 * that the loop had converged (it unrolled the walk until its limit). Inlined,
 * this took the one-pass sampler to 589,382 instructions on 6.12.
 */
__noinline int sort_walked(__u32 tid, __u32 known, __u32 state, __u64 sig, __u64 runtime)
{
	__u32 slot = tid & tt_last_mask;
	struct tt_last_seen *last;
	struct known *k;

	if ((state & SORT_KTHREAD) && (__u8)state == TT_ST_I)
		return 0;
	state = (__u8)state;
	last = bpf_map_lookup_elem(&tt_last, &slot);
	k = known < tt_known_max ? bpf_map_lookup_elem(&tt_known, &known) : NULL;
	if (last && state != TT_ST_R && last->tid == tid && (__u8)last->state == state &&
	    last->sig == sig && (!(last->state & WANTS_COPY) || !claim_copy())) {
		/* Unchanged since its full sample: so is its entry, unless new here. */
		if (k && k->state != state) {
			k->state = state;
			k->runtime = runtime;
			k->wants_copy = !!(last->state & WANTS_COPY);
		}
		if (k && changes_unwoken(state, k->wants_copy))
			recheck_at(known, tt_pass_no + 1);
		add_repeat(tid, known);
		return 0;
	}
	add_changed(tid, known);
	return 0;
}

/* Under RCU: an unchanged thread is repeated, the others listed. */
static __always_inline void sort_thread(struct task_struct *task, struct pass *p)
{
	bool kthread = task->flags & PF_KTHREAD;
	__u32 tid = task->pid, known = KNOWN_NONE;

	if (!tid || !want_tgid(task->tgid))
		return;
	if (remember(task, p, kthread))
		known = p->nr_walked - 1;
	/* Nothing here compares the state: see sort_walked. */
	sort_walked(tid, known, task_state(task) | (kthread ? SORT_KTHREAD : 0), thread_sig(task),
		    task->se.sum_exec_runtime);
}

/* Drops the references of tt_known[from, to): threads the last walk did not see. */
static __always_inline void forget(__u32 from, __u32 to)
{
	struct task_struct *old;
	struct bpf_iter_num it;
	struct known *k;
	int *v;

	bpf_iter_num_new(&it, from, to);
	while ((v = bpf_iter_num_next(&it))) {
		__u32 i = *v;

		k = bpf_map_lookup_elem(&tt_known, &i);
		if (!k)
			continue;
		old = bpf_kptr_xchg(&k->task, NULL);
		if (old)
			bpf_task_release(old);
		known_gone(k->tid, i);
		k->tid = 0;
	}
	bpf_iter_num_destroy(&it);
}

/*
 * -p: the processes whose threads a walk visits (set by the loader), so
 * that -p costs what its own threads cost, not what the box's do (issue
 * #21: -p on a box of 2,000 idle threads was dearer than the whole box).
 * 0 = every thread of the box (want_tgid still filters past the list).
 */
const volatile __u32 tt_walk_pids[TT_WALK_PIDS_MAX] = {};
const volatile __u32 tt_nr_walk_pids = 0;

static __always_inline void walk_procs(struct pass *p)
{
	struct task_struct *leader, *task;
	struct bpf_iter_task it;
	struct bpf_iter_num procs;
	int *v;

	bpf_iter_num_new(&procs, 0,
			 tt_nr_walk_pids < TT_WALK_PIDS_MAX ? tt_nr_walk_pids : TT_WALK_PIDS_MAX);
	while ((v = bpf_iter_num_next(&procs))) {
		__u32 i = *v;

		if (i >= TT_WALK_PIDS_MAX)
			break;
		leader = bpf_task_from_pid(tt_walk_pids[i]);
		if (!leader)
			continue; /* exited: its threads are forgotten below */
		bpf_rcu_read_lock();
		bpf_iter_task_new(&it, leader, BPF_TASK_ITER_PROC_THREADS);
		while ((task = bpf_iter_task_next(&it)))
			sort_thread(task, p);
		bpf_iter_task_destroy(&it);
		bpf_rcu_read_unlock();
		bpf_task_release(leader);
	}
	bpf_iter_num_destroy(&procs);
}

static __always_inline void walk_threads(struct pass *p)
{
	struct task_struct *task;
	struct bpf_iter_task it;

	p->nr_walked = 0;
	p->overflow = false;
	if (tt_nr_walk_pids) {
		walk_procs(p);
	} else {
		bpf_rcu_read_lock();
		bpf_iter_task_new(&it, NULL, BPF_TASK_ITER_ALL_THREADS);
		while ((task = bpf_iter_task_next(&it)))
			sort_thread(task, p);
		bpf_iter_task_destroy(&it);
		bpf_rcu_read_unlock();
	}
	if (p->nr_walked < tt_nr_known)
		forget(p->nr_walked, tt_nr_known);
	tt_nr_known = p->nr_walked;
	tt_known_complete = !p->overflow;
	tt_walks++;
}

/*
 * recheck's verdict on the i-th thread of tt_known, from what it read of the
 * task: left out (an idle kernel thread), repeated when it kept its state and
 * did not run, else listed. A global function, as sort_walked, for the same
 * reasons.
 */
__noinline int sort_known(__u32 i, __u32 state, __u64 runtime)
{
	struct known *k = i < tt_known_max ? bpf_map_lookup_elem(&tt_known, &i) : NULL;

	if (!k || (k->kthread && state == TT_ST_I))
		return 0;
	if (state != TT_ST_R && state == k->state && k->runtime == runtime &&
	    (!k->wants_copy || !claim_copy())) {
		if (changes_unwoken(state, k->wants_copy))
			recheck_at(i, tt_pass_no + 1);
		add_repeat(k->tid, i);
	} else {
		add_changed(k->tid, i);
	}
	return 0;
}

/*
 * Under RCU, the i-th thread of tt_known as sort_thread would see it. Only
 * the first four cache lines of the task are read (state, on_cpu, CPU time:
 * a thread that ran has more): a dead one (TASK_DEAD) also has its exit
 * state read, to tell a zombie from a reaped thread.
 */
static __always_inline void recheck(__u32 i)
{
	struct known *k = bpf_map_lookup_elem(&tt_known, &i);
	struct task_struct *task;
	unsigned int raw;

	if (!k)
		return;
	task = k->task;
	if (!task)
		return;
	raw = task->__state;
	sort_known(i, state_of(task, raw, raw & TS_DEAD ? task->exit_state : 0),
		   task->se.sum_exec_runtime);
}

static __always_inline void reread_known(void)
{
	struct bpf_iter_num it;
	int *v;

	bpf_rcu_read_lock();
	bpf_iter_num_new(&it, 0, tt_nr_known);
	while ((v = bpf_iter_num_next(&it)))
		recheck(*v);
	bpf_iter_num_destroy(&it);
	bpf_rcu_read_unlock();
	tt_rereads++;
}

/*
 * A thread not in tt_known joins it at its end (woken, new: the walk that
 * would have found it is not needed), held by task's reference, which this
 * takes. Its block is rechecked at pass.
 */
static __always_inline void append_known(struct task_struct *task, __u32 pass)
{
	__u32 j = tt_nr_known, tid = task->pid;
	bool kthread = task->flags & PF_KTHREAD;
	struct task_struct *old;
	struct known *k;

	k = j < tt_known_max ? bpf_map_lookup_elem(&tt_known, &j) : NULL;
	if (!k) {
		tt_known_complete = false; /* full: the next pass walks */
		bpf_task_release(task);
		return;
	}
	old = bpf_kptr_xchg(&k->task, task);
	if (old)
		bpf_task_release(old);
	k->tid = tid;
	k->state = STATE_RESAMPLE;
	k->kthread = kthread;
	k->wants_copy = 0;
	k->runtime = 0;
	tt_nr_known = j + 1;
	known_at(tid, j);
	recheck_at(j, pass);
}

/*
 * A reaped thread leaves tt_known. Its tid may be another thread's already
 * (pids wrap), one that a wakeup found at this index: that one joins.
 */
static __always_inline void gone_from_known(__u32 tid, __u32 idx)
{
	struct task_struct *task;
	struct known *k = idx < tt_known_max ? bpf_map_lookup_elem(&tt_known, &idx) : NULL;

	if (k && k->tid == tid)
		k->tid = 0;
	known_gone(tid, idx);
	if (!tt_wakeups_live)
		return;
	task = bpf_task_from_pid(tid);
	if (!task)
		return;
	if (want_tgid(task->tgid))
		append_known(task, tt_pass_no + 1);
	else
		bpf_task_release(task);
}

/* A woken tid: its block is rechecked at this pass; a thread new to tt_known joins it. */
__noinline int note_woken(__u32 tid)
{
	__u32 slot = tid & (WOKEN_SEEN - 1), *at, idx;
	__u64 mark = tid | (__u64)tt_pass_no << 32, *seen;
	struct task_struct *task;
	struct known *k;

	if (!tid)
		return 0;
	seen = bpf_map_lookup_elem(&tt_woken_seen, &slot);
	if (seen) {
		if (*seen == mark)
			return 0;
		*seen = mark;
	}
	at = bpf_map_lookup_elem(&tt_known_at, &tid);
	if (at) {
		idx = *at;
		k = idx < tt_nr_known && idx < tt_known_max ? bpf_map_lookup_elem(&tt_known, &idx)
							    : NULL;
		if (k && k->tid == tid) {
			recheck_at(idx, tt_pass_no);
			return 0;
		}
	}
	task = bpf_task_from_pid(tid);
	if (!task)
		return 0; /* gone before anyone saw it */
	if (want_tgid(task->tgid))
		append_known(task, tt_pass_no);
	else
		bpf_task_release(task);
	return 0;
}

/*
 * Reads every CPU's ring of woken tids. False when one was overrun (woken
 * tids lost: this pass walks), or when nothing reads them yet.
 */
static __always_inline bool read_woken(void)
{
	struct bpf_iter_num cpus, in;
	bool whole = true;
	__u32 zero = 0;
	int *c, *v;

	if (!tt_wakeups_live)
		return false;
	bpf_iter_num_new(&cpus, 0, tt_nr_cpus);
	while ((c = bpf_iter_num_next(&cpus))) {
		struct wake_ring *r = bpf_map_lookup_percpu_elem(&tt_woken, &zero, *c);
		__u64 head, tail;

		if (!r)
			continue;
		head = *(volatile __u64 *)&r->head;
		tail = r->tail;
		if (head - tail > TT_WAKE_RING) {
			whole = false;
		} else {
			bpf_iter_num_new(&in, 0, (int)(head - tail));
			while ((v = bpf_iter_num_next(&in)))
				note_woken(r->tids[(tail + *v) & (TT_WAKE_RING - 1)]);
			bpf_iter_num_destroy(&in);
			/* Written over while read: some of what was read is later tids. */
			if (*(volatile __u64 *)&r->head - tail > TT_WAKE_RING)
				whole = false;
		}
		r->tail = head;
	}
	bpf_iter_num_destroy(&cpus);
	if (!whole)
		tt_wake_overruns++;
	return whole;
}

/*
 * The pass with the wakeup rings read: blocks that must be rechecked are
 * (recheck, in order), the others are the same as at the pass before.
 */
static __always_inline void reread_woken(void)
{
	__u32 nb = (tt_nr_known + TT_REPEAT_BLOCK - 1) / TT_REPEAT_BLOCK, pass = tt_pass_no;
	struct bpf_iter_num blocks, in;
	int *v, *w;

	bpf_rcu_read_lock();
	bpf_iter_num_new(&blocks, 0, (int)nb);
	while ((v = bpf_iter_num_next(&blocks))) {
		__u32 b = *v, first = b * TT_REPEAT_BLOCK, end = first + TT_REPEAT_BLOCK;
		__u32 *until = bpf_map_lookup_elem(&tt_blocks, &b);

		if (until && (__s32)(*until - pass) < 0) {
			add_same(b);
			continue;
		}
		if (end > tt_nr_known)
			end = tt_nr_known;
		bpf_iter_num_new(&in, (int)first, (int)end);
		while ((w = bpf_iter_num_next(&in)))
			recheck(*w);
		bpf_iter_num_destroy(&in);
	}
	bpf_iter_num_destroy(&blocks);
	bpf_rcu_read_unlock();
	tt_woken_passes++;
}

/*
 * Phase two, one thread of the list: a full sample, remembered in tt_last
 * and tt_known. A thread of tt_known is taken out of it for the sample (it
 * may sleep) and put back, unless it has exited and been reaped.
 */
static long sample_changed(__u32 i, void *ctx)
{
	struct task_struct *task;
	struct changed_thread *c;
	struct known *k = NULL;
	struct scratch *sc;
	struct batch *batch;
	struct pass *p;
	__u32 zero = 0, fate, known;
	bool kthread;
	__u8 state;

	p = bpf_map_lookup_elem(&tt_pass, &zero);
	sc = bpf_map_lookup_elem(&tt_iter_scratch, &zero);
	batch = bpf_map_lookup_elem(&tt_iter_batch, &zero);
	c = bpf_map_lookup_elem(&tt_changed, &i);
	if (!p || !sc || !batch || !c)
		return 1;
	known = c->known;
	if (known < tt_known_max)
		k = bpf_map_lookup_elem(&tt_known, &known);
	if (k) {
		task = bpf_kptr_xchg(&k->task, NULL);
		if (!task)
			return 0;
		if (!task->thread_pid) { /* reaped: leaves tt_known */
			bpf_task_release(task);
			gone_from_known(c->tid, known);
			return 0;
		}
	} else {
		task = bpf_task_from_pid(c->tid);
		if (!task)
			return 0; /* exited since phase one */
	}
	kthread = task->flags & PF_KTHREAD;
	state = task_state(task);
	fate = take_sample(task, sc, state, kthread, true);
	note_sample(task, sc->sample.tid, state, fate);
	if (k) {
		if (k->tid != task->pid) { /* an exec by another thread: it took the leader's tid */
			known_gone(k->tid, known);
			known_at(task->pid, known);
		}
		k->tid = task->pid;
		k->state = fate & SAMPLE_LOST ? STATE_RESAMPLE : state;
		k->wants_copy = !!(fate & SAMPLE_WANTS_COPY);
		k->runtime = task->se.sum_exec_runtime;
		task = bpf_kptr_xchg(&k->task, task);
	}
	if (task)
		bpf_task_release(task);
	add_sample(batch, &sc->sample, k ? known : KNOWN_NONE);
	return 0;
}

/*
 * Run by user space once per pass (BPF_PROG_TEST_RUN): a syscall program,
 * sleepable, costs one bpf() call where an iterator costs a file, a read
 * and a close.
 */
SEC("syscall")
int sample_threads(void *ctx)
{
	struct batch *batch;
	bool woken_read;
	struct pass *p;
	__u32 zero = 0;

	p = bpf_map_lookup_elem(&tt_pass, &zero);
	batch = bpf_map_lookup_elem(&tt_iter_batch, &zero);
	if (!p || !batch)
		return 0;
	p->rep.nr = 0;
	p->rep_block = 0;
	p->nr_changed = 0;
	tt_pass_no++;
	woken_read = read_woken();
	/* A full barrier: the threads are read after the rings' heads (see push_woken). */
	__sync_fetch_and_add(&tt_passes, 1);
	if (needs_walk(woken_read))
		walk_threads(p);
	else if (!woken_read)
		reread_known();
	else
		reread_woken();
	flush_repeats(p);
	flush_same();
	bpf_loop(p->nr_changed, sample_changed, NULL, 0);
	flush_batch(batch);
	tt_prev_pass_ns = tt_pass_ns;
	return 0;
}

/* --- sample_tasks: the per-task iterator (kernels before 6.7) ------------ */

/*
 * The place of the pass's next thread in its order (the blocks of its repeat
 * records): user space resets it before each pass, so that the processes of
 * -p, one iterator each, share one order.
 */
__u32 tt_task_order = 0;
/* Iterator runs to the end (one per pass, one per process with -p), for the log. */
__u64 tt_task_passes = 0;

/*
 * The wakeup hooks' marks (woken.bpf.h) are trusted from the end of the first
 * pass that ran with the hooks attached: every thread that pass checked was
 * read after they were, so a thread woken since has its mark. Until then (and
 * without the hooks) every thread is read.
 */
bool tt_marks_trusted = false;
/* Since the start, for the log: repeats of threads found asleep and unwoken on their mark. */
__u64 tt_unwoken_repeats = 0;

/* A state a thread leaves only when woken (woken.bpf.h): S, D, T, t, I, P. */
static __always_inline bool asleep(__u32 last_state)
{
	__u32 st = last_state & 0xff;

	return st == TT_ST_S || st == TT_ST_D || st == TT_ST_T || st == TT_ST_t || st == TT_ST_I ||
	       st == TT_ST_P;
}

/*
 * Runs once per thread, then once with no task at the pass's end. Sorts a
 * thread as sort_thread does, against the same tt_last: an unchanged one is
 * a tid in a repeat record, the others are sampled in full at once (a
 * sleepable iterator may sleep in the user stack walk). No tt_known: the
 * iterator walks the thread list itself. With the wakeup hooks, a thread
 * asleep at its last check and not woken since is repeated on that alone:
 * only its tid and tgid are read (on Linux 6.1, where this is the only
 * sampler, the reads of its state, context switches and start time were
 * most of the program's time per idle thread).
 */
SEC("iter.s/task")
int sample_tasks(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct tt_last_seen *last;
	struct scratch *sc;
	struct batch *batch;
	struct pass *p;
	__u32 zero = 0, tid, slot, idx, *mark;
	bool kthread, claimed = false;
	__u8 state;

	batch = bpf_map_lookup_elem(&tt_iter_batch, &zero);
	p = bpf_map_lookup_elem(&tt_pass, &zero);
	if (!batch || !p)
		return 0;
	if (!task) { /* the end of the pass */
		flush_repeats(p);
		flush_batch(batch);
		tt_task_passes++;
		tt_marks_trusted = tt_wakeups_live;
		return 0;
	}
	tid = task->pid;
	if (!tid || !want_tgid(task->tgid))
		return 0;
	/* Counted before the idle kernel threads leave: their coming and going moves no block. */
	idx = tt_task_order++;
	slot = tid & tt_last_mask;
	last = bpf_map_lookup_elem(&tt_last, &slot);
	mark = tt_wake_marks && tt_marks_trusted ? bpf_map_lookup_elem(&tt_woke, &slot) : NULL;
	if (mark && last && !*mark && last->tid == tid && asleep(last->state)) {
		/* Unchanged; one waiting for a stack copy is sampled again if it gets one. */
		claimed = (last->state & WANTS_COPY) && claim_copy();
		if (!claimed) {
			tt_unwoken_repeats++;
			add_repeat(tid, idx);
			return 0;
		}
	}
	/* Taken before the task is read (a full barrier): a wakeup after it marks the slot again. */
	if (mark && *mark)
		__sync_lock_test_and_set(mark, 0);
	kthread = task->flags & PF_KTHREAD;
	state = task_state(task);
	if (kthread && state == TT_ST_I)
		return 0;
	if (!claimed && last && state != TT_ST_R && last->tid == tid &&
	    (__u8)last->state == state && last->sig == thread_sig(task) &&
	    (!(last->state & WANTS_COPY) || !claim_copy())) {
		add_repeat(tid, idx);
		return 0;
	}
	sc = bpf_map_lookup_elem(&tt_iter_scratch, &zero);
	if (!sc)
		return 0;
	note_sample(task, tid, state, take_sample(task, sc, state, kthread, false));
	add_sample(batch, &sc->sample, KNOWN_NONE);
	return 0;
}
