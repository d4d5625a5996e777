// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The on-CPU sampler: a perf_event CPU-clock program on every online CPU
 * (--cpu-hz). Each sample says who was on the CPU, with its kernel and user
 * stacks as dedup'd ids. The idle task, threadtop and processes outside -p
 * are skipped.
 */
#include "common.bpf.h"

struct scratch {
	struct tt_cpu_sample sample;
	struct tt_stack_buf stack;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} tt_cpu_scratch SEC(".maps");

SEC("perf_event")
int sample_cpu(struct bpf_perf_event_data *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0;
	struct tt_cpu_sample *s;
	struct scratch *sc;
	bool kthread;
	long bytes;

	if (!tid || !want_tgid(tgid))
		return 0;
	sc = bpf_map_lookup_elem(&tt_cpu_scratch, &zero);
	if (!sc)
		return 0;
	kthread = task->flags & PF_KTHREAD;
	s = &sc->sample;
	s->hdr.type = TT_EV_CPU_SAMPLE;
	s->hdr.version = TT_CPU_SAMPLE_VERSION;
	s->hdr.size = sizeof(*s);
	s->hdr.time_ns = bpf_ktime_get_ns();
	s->pid = tgid;
	s->tid = tid;
	s->cgroup_id = bpf_get_current_cgroup_id();
	s->weight_us = tt_weight_us;
	s->cpu = bpf_get_smp_processor_id();
	s->flags = kthread ? TT_CPU_KTHREAD : 0;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	bytes = bpf_get_stack(ctx, sc->stack.ips, sizeof(sc->stack.ips), 0);
	s->kstack_id = stack_id(&sc->stack, bytes, tgid, true);
	s->ustack_id = 0;
	if (!kthread) {
		bytes = bpf_get_stack(ctx, sc->stack.ips, sizeof(sc->stack.ips), BPF_F_USER_STACK);
		s->ustack_id = stack_id(&sc->stack, bytes, tgid, false);
	}
	emit(s, sizeof(*s));
	return 0;
}
