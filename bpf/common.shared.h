/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Constants of the maps and records every BPF object shares (common.bpf.h),
 * as user space reads them (src/sources/). No includes: the includer brings
 * __u32 and friends (vmlinux.h in BPF, <linux/types.h> in user space).
 *
 * bpf/<name>.shared.h holds what program <name>.bpf.c shares with its loader,
 * <name>.bpf.h what only BPF code includes. The suffix keeps the shared
 * headers apart from src/'s on the loader's include path (src/lib/syscalls.h,
 * src/model/labels.h).
 */
#ifndef THREADTOP_BPF_COMMON_SHARED_H
#define THREADTOP_BPF_COMMON_SHARED_H

/*
 * --unwind auto: a frame-pointer walk of at most this many frames failed, so
 * the samplers send a stack copy with it; user space has every sample of a
 * process copied once DWARF unwinding beat such a walk there.
 */
#define TT_AUTO_MAX_FP_FRAMES 2
/*
 * --unwind auto, tt_dwarf_tgids values: user space's verdict on a process's
 * frame-pointer stacks from its first unwound copies. TT_AUTO_DWARF: DWARF
 * beat them (they stop in glibc, short of _start or clone3): every on-CPU
 * sample is copied. TT_AUTO_FP: they were as good: one sample in
 * TT_AUTO_PROBE_EVERY still is, in case other code paths differ.
 */
#define TT_AUTO_DWARF 1
#define TT_AUTO_FP 2
#define TT_AUTO_PROBE_EVERY 16

/* The slots of tt_counters. */
#define TT_COUNTER_LAST_ID 0  /* the last stack id handed out */
#define TT_COUNTER_INSERTED 1 /* stacks inserted into tt_stack_ids since it was emptied */
#define TT_NR_COUNTERS 2

#endif /* THREADTOP_BPF_COMMON_SHARED_H */
