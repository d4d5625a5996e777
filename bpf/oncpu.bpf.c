// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The on-CPU sampler: a perf_event CPU-clock program on every online CPU
 * (--cpu-hz). Each sample says who was on the CPU, with its kernel and user
 * stacks as dedup'd ids. The idle task, threadtop and processes outside -p
 * are skipped. With --unwind dwarf (every sample) or auto (samples whose
 * frame-pointer walk is at most TT_AUTO_MAX_FP_FRAMES deep, every sample of a
 * process until user space has judged its frame-pointer stacks, then all or
 * one in TT_AUTO_PROBE_EVERY as it found, in tt_dwarf_tgids) the sample is followed by a
 * TT_EV_STACK_COPY: the user registers and up to tt_stack_bytes of user
 * stack, which user space unwinds with the binaries' DWARF CFI. With --label
 * each sample carries the thread's labels hash (labels.bpf.h). A user
 * thread's sample is followed by a tail call to the agentless LuaJIT
 * unwinder (ljvm.bpf.c) when it loaded.
 */
#include "labels.bpf.h"
#include "ljvm.shared.h"

const volatile __u32 tt_unwind_mode = TT_UNWIND_FP;
const volatile __u32 tt_stack_bytes = 0; /* set by the loader, at most TT_STACK_COPY_MAX */

/*
 * One sample with its stack copy, contiguous so that one ring-buffer record
 * carries both. data has a page of slack so that the verifier sees every
 * page-sized read stay inside it.
 */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct copy_buf {
	struct tt_cpu_sample sample;
	struct tt_stack_copy copy;
	__u8 data[TT_STACK_COPY_MAX + 8 + PAGE];
};
#pragma clang diagnostic pop

/* Indexed by CPU (a per-CPU array value cannot be this large). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set to the number of CPUs by the loader */
	__type(key, __u32);
	__type(value, struct copy_buf);
} tt_copy_bufs SEC(".maps");

/*
 * --unwind auto: what user space found of a process's frame-pointer stacks
 * (TT_AUTO_*); a process not in it has every sample copied until it is.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} tt_dwarf_tgids SEC(".maps");

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

/*
 * The agentless LuaJIT unwinder (ljvm.bpf.c), tail-called after each user
 * thread's sample when it loaded; an empty slot costs nothing but the call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tt_lj_tail SEC(".maps");

/* Set by user space while its unwinding budget for this second is spent. */
__u32 tt_copies_paused = 0;

static __always_inline bool want_copy(__u32 tgid, long fp_bytes)
{
	__u8 *found;

	if (tt_copies_paused)
		return false;
	if (tt_unwind_mode == TT_UNWIND_DWARF)
		return true;
	if (tt_unwind_mode != TT_UNWIND_AUTO)
		return false;
	if (fp_bytes <= TT_AUTO_MAX_FP_FRAMES * 8)
		return true;
	found = bpf_map_lookup_elem(&tt_dwarf_tgids, &tgid);
	return !found || *found == TT_AUTO_DWARF ||
	       bpf_get_prandom_u32() % TT_AUTO_PROBE_EVERY == 0;
}

/*
 * Sends s followed by the user registers and up to tt_stack_bytes of the
 * user stack of task. Returns false when nothing was sent (the caller then
 * sends s alone).
 */
static __always_inline bool copy_and_emit(struct task_struct *task, struct tt_cpu_sample *s,
					  long fp_bytes)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 got, size;
	struct copy_buf *b;

	b = bpf_map_lookup_elem(&tt_copy_bufs, &cpu);
	if (!b || !regs)
		return false;
	got = fill_stack_copy(&b->copy, b->data, task, regs, tt_stack_bytes, fp_bytes, false);
	b->sample = *s;
	b->sample.flags |= TT_CPU_STACK_COPY;
	b->copy.hdr.time_ns = s->hdr.time_ns;
	b->copy.pid = s->pid;
	b->copy.tid = s->tid;
	size = sizeof(b->sample) + sizeof(b->copy) + got;
	if (size > sizeof(*b))
		return false;
	emit(b, size);
	return true;
}

/*
 * Whether the sample interrupted user mode: then the kernel stack is empty,
 * and asking bpf_get_stack for it costs ~0.25 us a sample to learn that.
 */
static __always_inline bool in_user_mode(const struct bpf_perf_event_data *ctx)
{
#if defined(__TARGET_ARCH_x86)
	/*
	 * cs, word 17 of the uapi struct pt_regs, read whole: the context
	 * allows only 8-byte reads of regs, and vmlinux.h's cs is a u16.
	 */
	return ((const __u64 *)&ctx->regs)[17] & 3;
#elif defined(__TARGET_ARCH_arm64)
	return (ctx->regs.pstate & 0xf) == 0; /* PSR_MODE_EL0t */
#else
	return false; /* bpf_get_stack finds out */
#endif
}

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
	s->flags = (kthread ? TT_CPU_KTHREAD : 0) | TT_CPU_LABELS;
	s->labels_hash = kthread ? 0 : labels_for_sample(task);
	s->reserved = 0;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	s->kstack_id = 0;
	if (!in_user_mode(ctx)) {
		bytes = bpf_get_stack(ctx, sc->stack.ips, sizeof(sc->stack.ips), 0);
		s->kstack_id = stack_id(&sc->stack, bytes, tgid, true);
	}
	s->ustack_id = 0;
	if (!kthread) {
		bytes = bpf_get_stack(ctx, sc->stack.ips, sizeof(sc->stack.ips), BPF_F_USER_STACK);
		s->ustack_id = stack_id(&sc->stack, bytes, tgid, false);
	}
	if (!kthread && want_copy(tgid, bytes) && copy_and_emit(task, s, bytes))
		goto lua;
	emit(s, sizeof(*s));
lua:
	if (!kthread)
		bpf_tail_call(ctx, &tt_lj_tail, TT_LJVM_TAIL_SLOT);
	return 0;
}
