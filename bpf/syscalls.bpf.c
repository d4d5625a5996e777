// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * --syscalls: exact syscall counts, total time and a log2 latency histogram
 * per thread and syscall. sys_enter notes the syscall and its start in task
 * storage; sys_exit adds the call to tt_sc_stats, whose values only grow:
 * user space reads them every interval and sends the differences.
 */
#include "common.bpf.h"

struct sc_state {
	__u64 start_ns; /* 0: not in a syscall we saw enter */
	__s64 nr;
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

static __always_inline __u32 log2_bucket(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r < TT_SYSCALL_HIST ? r : TT_SYSCALL_HIST - 1;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sc_state *st;

	if (!want_tgid(task->tgid))
		return 0;
	st = bpf_task_storage_get(&tt_sc_state, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st) {
		count_drop(TT_DROP_MAP_FULL);
		return 0;
	}
	st->nr = id;
	st->start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tt_sc_val *v, init = {};
	struct tt_sc_key key;
	struct sc_state *st;
	__u64 delta;
	long err;

	st = bpf_task_storage_get(&tt_sc_state, task, 0, 0);
	if (!st || !st->start_ns)
		return 0;
	delta = bpf_ktime_get_ns() - st->start_ns;
	st->start_ns = 0;
	key.tid = task->pid;
	key.nr = (__s32)st->nr;
	v = bpf_map_lookup_elem(&tt_sc_stats, &key);
	if (!v) {
		init.pid = task->tgid;
		err = bpf_map_update_elem(&tt_sc_stats, &key, &init, BPF_NOEXIST);
		if (err && err != -EEXIST) {
			count_drop(TT_DROP_MAP_FULL);
			return 0;
		}
		v = bpf_map_lookup_elem(&tt_sc_stats, &key);
		if (!v)
			return 0;
	}
	v->count++;
	v->total_ns += delta;
	v->hist[log2_bucket(delta)]++;
	return 0;
}
