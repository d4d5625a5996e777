// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * --syscalls: exact syscall counts, total time and a log2 latency histogram
 * per thread and syscall. sys_enter notes the syscall and its start in task
 * storage; sys_exit adds the call to a per-thread accumulator there, with no
 * map look-up, for as long as the thread repeats one syscall. The
 * accumulator goes into tt_sc_stats (whose values only grow; user space
 * sends the differences each interval) when the thread enters another
 * syscall, when it is older than FLUSH_NS, and when the thread exits.
 */
#include "common.bpf.h"
#include "syscalls.shared.h"

#define FLUSH_NS (250 * 1000 * 1000ULL)

struct sc_state {
	__u64 start_ns; /* 0: not in a syscall we saw enter */
	__s64 nr;
	/* Calls of syscall acc_nr not yet in tt_sc_stats. */
	__u64 acc_since;
	__u64 acc_total_ns;
	__u32 acc_count;
	__s32 acc_nr;
	__u32 acc_hist[TT_SYSCALL_HIST_BUCKETS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sc_state);
} tt_sc_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* set by the loader */
	__type(key, struct tt_sc_key);
	__type(value, struct tt_sc_val);
} tt_sc_stats SEC(".maps");

/* Moves the accumulator of the current thread into tt_sc_stats. */
static __always_inline void flush(struct task_struct *task, struct sc_state *st)
{
	struct tt_sc_key key = {.tid = task->pid, .nr = st->acc_nr};
	struct tt_sc_val *v, init = {};
	long err;

	v = bpf_map_lookup_elem(&tt_sc_stats, &key);
	if (!v) {
		init.pid = task->tgid;
		err = bpf_map_update_elem(&tt_sc_stats, &key, &init, BPF_NOEXIST);
		if (err && err != -EEXIST) {
			count_drop(TT_DROP_MAP_FULL);
			goto out;
		}
		v = bpf_map_lookup_elem(&tt_sc_stats, &key);
		if (!v)
			goto out;
	}
	v->count += st->acc_count;
	v->total_ns += st->acc_total_ns;
	for (int i = 0; i < TT_SYSCALL_HIST_BUCKETS; i++)
		v->hist[i] += st->acc_hist[i];
out:
	st->acc_count = 0;
	st->acc_total_ns = 0;
	__builtin_memset(st->acc_hist, 0, sizeof(st->acc_hist));
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sc_state *st;
	__u64 now;

	if (!want_tgid(task->tgid))
		return 0;
	st = bpf_task_storage_get(&tt_sc_state, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st) {
		count_drop(TT_DROP_MAP_FULL);
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (st->acc_count && (st->acc_nr != id || now - st->acc_since > FLUSH_NS))
		flush(task, st);
	st->nr = id;
	st->start_ns = now;
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sc_state *st;
	__u64 now, delta;

	st = bpf_task_storage_get(&tt_sc_state, task, 0, 0);
	if (!st || !st->start_ns)
		return 0;
	now = bpf_ktime_get_ns();
	delta = now - st->start_ns;
	st->start_ns = 0;
	if (!st->acc_count) {
		st->acc_nr = (__s32)st->nr;
		st->acc_since = now;
	}
	st->acc_count++;
	st->acc_total_ns += delta;
	st->acc_hist[log2_bucket(delta, TT_SYSCALL_HIST_BUCKETS)]++;
	return 0;
}

/* An exiting thread makes no more syscalls: what it accumulated goes to the map. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(sc_thread_exit, struct task_struct *p)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sc_state *st = bpf_task_storage_get(&tt_sc_state, task, 0, 0);

	if (st && st->acc_count)
		flush(task, st);
	return 0;
}
