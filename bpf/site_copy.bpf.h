/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A user call site's stack copy, sent once for user space to unwind with
 * DWARF (frame pointers alone give garbage for most of Debian's binaries):
 * a TT_EV_OFFCPU_SITE naming the site's key, then the TT_EV_STACK_COPY, in
 * one record. User space remembers the unwound stack under the key
 * (bpf_unwind__site), and the tracer's sums name the key, which user space
 * resolves to that stack (bpf_unwind__site_stack). The off-CPU tracer keys
 * blocking sites, the block I/O tracer the paths requests are made by.
 *
 * The includer defines its per-CPU buffer map of struct site_copy_buf
 * (indexed by CPU: a per-CPU array value cannot be this large), sized by
 * the loader, and the rodata tt_unwind_mode and tt_stack_bytes.
 */
#ifndef THREADTOP_SITE_COPY_BPF_H
#define THREADTOP_SITE_COPY_BPF_H

#include "common.bpf.h"

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct site_copy_buf {
	struct tt_offcpu_site site;
	struct tt_stack_copy copy;
	__u8 data[TT_STACK_COPY_MAX + 8 + PAGE];
};
#pragma clang diagnostic pop

/*
 * Sends task's user registers and want bytes of its user stack in b, under
 * key (never 0), its frame-pointer walk having given fp_ustack_id in
 * fp_bytes. Returns key, 0 when nothing was sent (the ring refused it, or
 * task has no user registers): the site keeps its frame-pointer stack.
 */
static __always_inline __u64 site_copy_send(struct site_copy_buf *b, struct task_struct *task,
					    __u64 key, __u32 fp_ustack_id, long fp_bytes,
					    __u64 want, __u64 now)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 got, size;

	if (!regs)
		return 0;
	got = fill_stack_copy(&b->copy, b->data, task, regs, want, fp_bytes, false);
	b->copy.hdr.time_ns = now;
	b->copy.pid = task->tgid;
	b->copy.tid = task->pid;
	b->site.hdr.type = TT_EV_OFFCPU_SITE;
	b->site.hdr.version = TT_OFFCPU_SITE_VERSION;
	b->site.hdr.size = sizeof(b->site);
	b->site.hdr.time_ns = now;
	b->site.pid = task->tgid;
	b->site.tid = task->pid;
	b->site.site = key;
	b->site.fp_ustack_id = fp_ustack_id;
	size = sizeof(b->site) + sizeof(b->copy) + got;
	if (size > sizeof(*b) || emit(b, size))
		return 0;
	return key;
}

#endif /* THREADTOP_SITE_COPY_BPF_H */
