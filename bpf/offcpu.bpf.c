// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * --offcpu: exact off-CPU time per thread and (kernel, user) stack, and
 * run-queue latency per thread. sched_switch notes when and where (stacks) a
 * thread blocks, sched_wakeup when it becomes runnable again; when it is
 * switched back in, the blocked time goes to its stacks and the wait for a
 * CPU (after a wakeup or a preemption) to its run-queue entry. Sums only grow
 * in tt_oc_agg; user space sends the differences every interval. Stacks are
 * walked again only when a thread blocks at another call site. With --label
 * the blocked time is also keyed by the labels the thread blocked with.
 */
#include "labels.bpf.h"
#include "offcpu.shared.h"

#define TS_RUNNING 0

struct oc_state {
	__u64 off_ns;  /* switched out at; 0 = on CPU or never seen leave */
	__u64 wake_ns; /* runnable since; 0 = still blocked */
	__u64 site;    /* hash of the blocking call site the stacks belong to, 0 = none */
	__u32 kstack_id;
	__u32 ustack_id;
	__u32 blocked;	   /* left the CPU blocked (else preempted) */
	__u32 labels_hash; /* its labels then (labels.bpf.h), 0 = none */
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

static __always_inline void add(struct task_struct *task, __u32 kstack, __u32 ustack, __u32 kind,
				__u32 labels_hash, __u64 ns, __u64 count)
{
	struct tt_oc_key key = {
		.pid = task->tgid,
		.tid = task->pid,
		.kstack_id = kstack,
		.ustack_id = ustack,
		.kind = kind,
		.labels_hash = labels_hash,
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
 * (ip), its frame (sp, bp), the syscall and its first argument (the fd). A
 * thread that blocks again at the same site blocks in the same stacks, so
 * the two stack walks, the bulk of this program's cost, are skipped.
 */
static __always_inline __u64 block_site(struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 h;

	if (!regs)
		return 0;
	h = mix64(BPF_CORE_READ(regs, ip) ^ 0x5bd1e995);
	h = mix64(h ^ BPF_CORE_READ(regs, sp));
	h = mix64(h ^ BPF_CORE_READ(regs, bp));
	h = mix64(h ^ BPF_CORE_READ(regs, orig_ax));
	h = mix64(h ^ BPF_CORE_READ(regs, di));
	return h ? h : 1;
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
			__u64 site = 0;

			st->off_ns = now;
			st->blocked = prev_state != TS_RUNNING;
			st->wake_ns = st->blocked ? 0 : now;
			st->labels_hash = 0;
			if (st->blocked && !kthread) {
				site = block_site(prev);
				st->labels_hash = labels_for_sample(prev);
			}
			buf = bpf_map_lookup_elem(&tt_oc_scratch, &zero);
			if (st->blocked && (!site || site != st->site) && buf) {
				/* prev is still current: its stacks are the ones it blocks in. */
				bytes = bpf_get_stack(ctx, buf->ips, sizeof(buf->ips), 0);
				st->kstack_id = stack_id(buf, bytes, prev->tgid, true);
				st->ustack_id = 0;
				if (!kthread) {
					bytes = bpf_get_stack(ctx, buf->ips, sizeof(buf->ips),
							      BPF_F_USER_STACK);
					st->ustack_id = stack_id(buf, bytes, prev->tgid, false);
				}
				st->site = site;
			}
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
	if (st->blocked && off && now > off)
		add(next, st->kstack_id, st->ustack_id, TT_OFFCPU_BLOCKED, st->labels_hash,
		    now - off, 1);
	if (wake && now > wake)
		add(next, 0, 0, TT_OFFCPU_RUNQ, 0, now - wake, 1);
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
 * No switch is counted here: the block goes on.
 */
SEC("iter/task")
int settle_offcpu(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct oc_state *st;
	__u64 now, off, wake;

	if (!task)
		return 0;
	st = bpf_task_storage_get(&tt_oc_state, task, 0, 0);
	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	off = st->off_ns;
	if (off && off < now && __sync_val_compare_and_swap(&st->off_ns, off, now) == off &&
	    st->blocked)
		add(task, st->kstack_id, st->ustack_id, TT_OFFCPU_BLOCKED, st->labels_hash,
		    now - off, 0);
	wake = st->wake_ns;
	if (wake && wake < now && __sync_val_compare_and_swap(&st->wake_ns, wake, now) == wake)
		add(task, 0, 0, TT_OFFCPU_RUNQ, 0, now - wake, 0);
	return 0;
}
