// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Application labels (--label): generic uprobes, parameterised from user
 * space through the attach cookie (an index into tt_label_conf), set or clear
 * a per-thread label slot in task storage (labels.bpf.h); a task iterator run
 * just before the thread sampler sends each thread's labels whenever they
 * changed, so the samples that follow carry them (the on-CPU and off-CPU
 * samplers send them too, before a sample naming them by hash). The probes
 * are sleepable so that a string argument is read even from a page not yet
 * faulted in.
 */
#include "labels.bpf.h"
#include "labels.shared.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TT_LABEL_CONFS);
	__type(key, __u32);
	__type(value, struct tt_label_conf);
} tt_label_conf SEC(".maps");

/* String arguments that could not be read even by the sleepable copy. */
__u64 tt_label_read_failures = 0;

extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
				  __u64 flags) __weak __ksym;

/*
 * Argument n (1 to 6) of the probed call. The registers are copied to the
 * stack first: a switch over ctx fields compiles to ctx + variable offset,
 * which the verifier rejects.
 */
static __always_inline __u64 arg_of(struct pt_regs *ctx, __u32 n)
{
	struct pt_regs regs;

	if (bpf_probe_read_kernel(&regs, sizeof(regs), ctx))
		return 0;
	switch (n) {
	case 1:
		return PT_REGS_PARM1(&regs);
	case 2:
		return PT_REGS_PARM2(&regs);
	case 3:
		return PT_REGS_PARM3(&regs);
	case 4:
		return PT_REGS_PARM4(&regs);
	case 5:
		return PT_REGS_PARM5(&regs);
	default:
#ifdef PT_REGS_PARM6
		return PT_REGS_PARM6(&regs);
#elif defined(__TARGET_ARCH_x86)
		return regs.r9; /* libbpf 1.1 has no PT_REGS_PARM6 */
#else
		return 0;
#endif
	}
}

static __always_inline void read_string(struct tt_label_value *v, __u64 uptr)
{
	long n = -1;

	/* Faults the page in where the kernel has the kfunc (6.12+). */
	if (bpf_copy_from_user_str)
		n = bpf_copy_from_user_str(v->str, sizeof(v->str), (const void *)uptr, 0);
	if (n <= 0)
		n = bpf_probe_read_user_str(v->str, sizeof(v->str), (const void *)uptr);
	if (n > 0) {
		v->kind = TT_LABEL_STRING;
		return;
	}
	v->kind = TT_LABEL_UNREADABLE;
	v->str[0] = '\0';
	__sync_fetch_and_add(&tt_label_read_failures, 1);
	count_drop(TT_DROP_READ_ERROR);
}

/* Sets or clears the slot of conf in tl (a NULL string clears). */
static __always_inline void apply(struct pt_regs *ctx, const struct tt_label_conf *conf,
				  struct thread_labels *tl, bool is_return)
{
	__u32 slot = conf->slot & (TT_LABEL_SLOTS - 1);
	struct tt_label_value *v = &tl->v[slot];
	__u64 uptr;

	if (is_return || conf->op == TT_LABEL_OP_CLEAR) {
		tl->set_mask &= ~(1u << slot);
		return;
	}
	v->num = 0;
	/* Zeroed first: label_hash reads all of str, whatever the kind. */
	__builtin_memset(v->str, 0, sizeof(v->str));
	switch (conf->arg_kind) {
	case TT_LABEL_ARG_NUMBER:
		v->num = arg_of(ctx, conf->argn);
		v->kind = TT_LABEL_NUMBER;
		break;
	case TT_LABEL_ARG_STRING:
		uptr = arg_of(ctx, conf->argn);
		/* A NULL string means "nothing": the label is cleared. */
		if (!uptr) {
			tl->set_mask &= ~(1u << slot);
			return;
		}
		read_string(v, uptr);
		break;
	default:
		__builtin_memcpy(v->str, conf->literal, sizeof(v->str));
		v->str[sizeof(v->str) - 1] = '\0';
		v->kind = TT_LABEL_STRING;
	}
	tl->set_mask |= 1u << slot;
}

static __always_inline int label_probe(struct pt_regs *ctx, bool is_return)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx);
	struct task_struct *task = bpf_get_current_task_btf();
	struct tt_label_conf *conf = bpf_map_lookup_elem(&tt_label_conf, &idx);
	struct thread_labels *tl;

	if (!conf)
		return 0;
	tl = bpf_task_storage_get(&tt_labels, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!tl) {
		count_drop(TT_DROP_MAP_FULL);
		return 0;
	}
	tl->gen++;
	apply(ctx, conf, tl, is_return);
	/* Once per change, so that every sample reads it for free. */
	tl->hash = label_hash(tl);
	return 0;
}

SEC("uprobe.s")
int BPF_KPROBE(tt_label_enter)
{
	return label_probe(ctx, false);
}

SEC("uretprobe.s")
int BPF_KRETPROBE(tt_label_return)
{
	return label_probe(ctx, true);
}

SEC("iter/task")
int send_labels(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct thread_labels *tl;

	if (!task || !want_tgid(task->tgid))
		return 0;
	tl = bpf_task_storage_get(&tt_labels, task, 0, 0);
	if (tl && labels_unsent(tl))
		send_thread_labels(task, tl);
	return 0;
}
