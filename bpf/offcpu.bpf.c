// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * --offcpu: exact off-CPU time per thread and (kernel, user) stack, and
 * run-queue latency per thread. sched_switch notes when and where (stacks) a
 * thread blocks, sched_wakeup when it becomes runnable again; when it is
 * switched back in, the blocked time goes to its stacks and the wait for a
 * CPU (after a wakeup or a preemption) to its run-queue entry. Sums only grow
 * in tt_oc_agg; user space sends the differences every interval.
 *
 * The kernel stack is walked at every switch (one user call site blocks in
 * many kernel paths: fsync waits on writeback, then on a flush) and cut to
 * start at __schedule, so the tracer's own frames never show. The user stack
 * cannot change while the thread is in the kernel, so it is walked again
 * only when the thread blocks at another user call site; with --unwind
 * dwarf|auto that site's stack is also copied for user space to unwind (a
 * TT_EV_OFFCPU_SITE and a TT_EV_STACK_COPY) and its time keyed by the site
 * (process and call site), which user space resolves to the unwound stack. With --label the blocked
 * time is also keyed by the labels the thread blocked with.
 */
#include "labels.bpf.h"
#include "offcpu.shared.h"
#include "site_copy.bpf.h"

#define TS_RUNNING 0

/* [lo, hi) of __schedule (kallsyms, set by the loader): where stacks are cut; 0 = unknown. */
const volatile __u64 tt_sched_lo = 0;
const volatile __u64 tt_sched_hi = 0;
const volatile __u32 tt_unwind_mode = TT_UNWIND_FP;
const volatile __u32 tt_stack_bytes = 0; /* set by the loader, at most TT_STACK_COPY_MAX */

/* Set by user space while its unwinding budget for this second is spent. */
__u32 tt_copies_paused = 0;

/*
 * off_ns holds the time a thread left the CPU with OFF_BLOCKED in its lowest
 * bit (left blocked, not preempted): one word, so that settle_offcpu, which
 * takes a start by compare-and-swap on one CPU while the thread may come
 * back, run and leave again on another, never pairs a start with the next
 * switch's kind (a block counted up to an interval's end was lost whole
 * when the thread had been preempted meanwhile). The stacks and labels are
 * written before off_ns is published, so a reader that sees a start and
 * then takes it with its CAS read the fields of that block.
 */
#define OFF_BLOCKED 1ull

struct oc_state {
	__u64 off_ns;	   /* switched out at | OFF_BLOCKED; 0 = on CPU or never seen leave */
	__u64 wake_ns;	   /* runnable since; 0 = still blocked */
	__u64 site;	   /* hash of the user call site ustack_id belongs to, 0 = none */
	__u64 site_key;	   /* tt_oc_key.site: site's stack copy was sent, 0 = none */
	__u32 kstack_id;   /* the kernel stack of this block */
	__u32 ustack_id;   /* the frame-pointer user stack of site */
	__u32 labels_hash; /* its labels then (labels.bpf.h), 0 = none */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct oc_state);
} tt_oc_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* set by the loader */
	__type(key, struct tt_oc_key);
	__type(value, struct tt_oc_val);
} tt_oc_agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tt_stack_buf);
} tt_oc_scratch SEC(".maps");

/* A blocking site's stack copy (site_copy.bpf.h), indexed by CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set to the number of CPUs by the loader */
	__type(key, __u32);
	__type(value, struct site_copy_buf);
} tt_oc_copy_bufs SEC(".maps");

static __always_inline void add(struct task_struct *task, const struct oc_state *st, __u32 kind,
				__u64 ns, __u64 count)
{
	bool blocked = kind == TT_OFFCPU_BLOCKED;
	struct tt_oc_key key = {
		.pid = task->tgid,
		.tid = task->pid,
		.kstack_id = blocked ? st->kstack_id : 0,
		.ustack_id = blocked ? st->ustack_id : 0,
		.kind = kind,
		.labels_hash = blocked ? st->labels_hash : 0,
		.site = blocked ? st->site_key : 0,
	};
	struct tt_oc_val *v, init = {};
	long err;

	v = bpf_map_lookup_elem(&tt_oc_agg, &key);
	if (!v) {
		bpf_probe_read_kernel_str(init.comm, sizeof(init.comm), task->comm);
		err = bpf_map_update_elem(&tt_oc_agg, &key, &init, BPF_NOEXIST);
		if (err && err != -EEXIST) {
			count_drop(TT_DROP_MAP_FULL);
			return;
		}
		v = bpf_map_lookup_elem(&tt_oc_agg, &key);
		if (!v)
			return;
	}
	__sync_fetch_and_add(&v->total_ns, ns);
	if (count)
		__sync_fetch_and_add(&v->count, count);
}

/*
 * Where a user thread blocks, from its saved user registers: the call site
 * (ip), its stack depth (sp), the syscall and its first argument when that
 * looks like an fd. A thread that blocks again at the same site has the same
 * user stack (the kernel one may differ and is walked every time), so the
 * user walk and its copy are skipped. Registers that hold data are left out,
 * or every block would be a new site, a new copy and a new entry of
 * tt_oc_agg: an address as first argument (a thread pool waits on a new
 * futex for every job) and bp, which code built without frame pointers
 * (glibc's pthread_join) uses for the thread it waits on.
 */
#define FD_ARG_MAX (1ull << 20) /* a larger first argument is an address */

static __always_inline __u64 block_site(struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 h, arg;

	if (!regs)
		return 0;
	h = mix64(BPF_CORE_READ(regs, ip) ^ 0x5bd1e995);
	h = mix64(h ^ BPF_CORE_READ(regs, sp));
	h = mix64(h ^ BPF_CORE_READ(regs, orig_ax));
	arg = BPF_CORE_READ(regs, di);
	if (arg < FD_ARG_MAX)
		h = mix64(h ^ arg);
	return h ? h : 1;
}

/*
 * The kernel stack of the thread switching out, from __schedule down: the
 * frames above it (this program, bpf_trace_run4 and, on some builds,
 * __traceiter_sched_switch) are threadtop's own and would split one site in
 * two. Returns the bytes left in buf->ips, as bpf_get_stack does.
 */
static __always_inline long kernel_stack(void *ctx, struct tt_stack_buf *buf)
{
	long bytes = bpf_get_stack(ctx, buf->ips, sizeof(buf->ips), 0);
	__u32 nr, skip = 0;

	if (bytes <= 0 || !tt_sched_lo)
		return bytes;
	nr = (__u32)bytes / 8;
	for (__u32 i = 0; i < TT_OC_TRACER_FRAMES; i++) {
		if (i >= nr)
			break;
		if (buf->ips[i] >= tt_sched_lo && buf->ips[i] < tt_sched_hi) {
			skip = i;
			break;
		}
	}
	if (!skip)
		return bytes;
	for (__u32 i = 0; i < TT_MAX_STACK_DEPTH; i++) {
		__u32 j = i + skip;

		if (j >= nr || j >= TT_MAX_STACK_DEPTH)
			break;
		buf->ips[i] = buf->ips[j];
	}
	return bytes - (long)skip * 8;
}

/*
 * Sends task's user registers and stack, after the key of this call site's
 * time (tt_offcpu_site). Returns that key, 0 when nothing was sent (the
 * site keeps its frame-pointer stack). The key follows from the process and
 * the site alone: a thread that goes back and forth between two sites adds
 * to two entries of tt_oc_agg, not to a new one every time it blocks.
 */
static __always_inline __u64 send_copy(struct task_struct *task, __u64 site, __u32 fp_ustack_id,
				       long fp_bytes, __u64 now)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct site_copy_buf *b;
	__u64 key;

	if (tt_unwind_mode == TT_UNWIND_FP || tt_copies_paused)
		return 0;
	b = bpf_map_lookup_elem(&tt_oc_copy_bufs, &cpu);
	if (!b)
		return 0;
	key = mix64(site ^ task->tgid);
	return site_copy_send(b, task, key ? key : 1, fp_ustack_id, fp_bytes, tt_stack_bytes, now);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns(), off, wake;
	struct tt_stack_buf *buf;
	struct oc_state *st;
	__u32 zero = 0;
	long bytes;

	if (prev->pid && want_tgid(prev->tgid)) {
		st = bpf_task_storage_get(&tt_oc_state, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (st) {
			bool kthread = prev->flags & PF_KTHREAD;
			bool blocked = prev_state != TS_RUNNING;
			__u64 site = 0;

			st->labels_hash = 0;
			buf = bpf_map_lookup_elem(&tt_oc_scratch, &zero);
			if (blocked && buf) {
				/* prev is still current: its stacks are the ones it blocks in. */
				bytes = kernel_stack(ctx, buf);
				st->kstack_id = stack_id(buf, bytes, prev->tgid, true);
				if (kthread) {
					st->ustack_id = 0;
					st->site_key = 0;
					st->site = 0;
				} else {
					site = block_site(prev);
					st->labels_hash = labels_for_sample(prev);
				}
				if (!kthread && (!site || site != st->site)) {
					bytes = bpf_get_stack(ctx, buf->ips, sizeof(buf->ips),
							      BPF_F_USER_STACK);
					st->ustack_id = stack_id(buf, bytes, prev->tgid, false);
					st->site_key =
						send_copy(prev, site, st->ustack_id, bytes, now);
					st->site = site;
				}
			}
			st->wake_ns = blocked ? 0 : now;
			/* Published last (an atomic exchange orders the stores before it). */
			__sync_lock_test_and_set(&st->off_ns, (now & ~OFF_BLOCKED) |
								      (blocked ? OFF_BLOCKED : 0));
		} else {
			count_drop(TT_DROP_MAP_FULL);
		}
	}
	if (!next->pid)
		return 0;
	st = bpf_task_storage_get(&tt_oc_state, next, 0, 0);
	if (!st || !st->off_ns)
		return 0;
	/* Taken, not read: settle_offcpu may move the starts to an interval's end meanwhile. */
	off = __sync_lock_test_and_set(&st->off_ns, 0);
	wake = __sync_lock_test_and_set(&st->wake_ns, 0);
	if ((off & OFF_BLOCKED) && now > (off & ~OFF_BLOCKED))
		add(next, st, TT_OFFCPU_BLOCKED, now - (off & ~OFF_BLOCKED), 1);
	if (wake && now > wake)
		add(next, st, TT_OFFCPU_RUNQ, now - wake, 1);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	struct oc_state *st = bpf_task_storage_get(&tt_oc_state, p, 0, 0);

	if (st && st->off_ns && !st->wake_ns)
		st->wake_ns = bpf_ktime_get_ns();
	return 0;
}

/*
 * Run by user space just before it reads tt_oc_agg at an interval's end:
 * the time of every thread still off CPU is counted up to now, and its
 * start moved to now, so each interval gets the off-CPU and run-queue time
 * that fell inside it (issue #21: a 1.4 s block no longer lands whole in
 * the 1.2 s interval it ended in). A start is moved by compare-and-swap: a
 * thread switched in meanwhile took it (on_switch), and counts it itself.
 * No switch is counted here: the block goes on. What it adds is keyed by a
 * copy of the block's fields read before the CAS: after it, the thread may
 * already be in its next block, with other stacks.
 */
SEC("iter/task")
int settle_offcpu(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct oc_state *st, at;
	__u64 now, off, wake;

	if (!task)
		return 0;
	st = bpf_task_storage_get(&tt_oc_state, task, 0, 0);
	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	off = __sync_fetch_and_add(&st->off_ns, 0);
	at = *st;
	if ((off & OFF_BLOCKED) && (off & ~OFF_BLOCKED) < now &&
	    __sync_val_compare_and_swap(&st->off_ns, off, (now & ~OFF_BLOCKED) | OFF_BLOCKED) ==
		    off)
		add(task, &at, TT_OFFCPU_BLOCKED, now - (off & ~OFF_BLOCKED), 0);
	wake = st->wake_ns;
	if (wake && wake < now && __sync_val_compare_and_swap(&st->wake_ns, wake, now) == wake)
		add(task, st, TT_OFFCPU_RUNQ, now - wake, 0);
	return 0;
}
