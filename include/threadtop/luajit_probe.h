/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The probe point of libthreadtop-sysprof.so, shared by the library (which
 * fills it) and bpf/luajit.bpf.c (a uprobe on threadtop_luajit_probe() that
 * reads it). No includes: the includer brings __u32 and friends
 * (vmlinux.h in BPF, <linux/types.h> in user space).
 *
 * The library calls threadtop_luajit_probe(&probe) once per complete sample
 * and once per newly named function, and only while the 16-bit counter
 * threadtop_luajit_attached is non-zero: the kernel increments it in every
 * process mapping the library while a uprobe registered with that counter
 * (ref_ctr_offset, the USDT semaphore mechanism) exists.
 */
#ifndef THREADTOP_LUAJIT_PROBE_H
#define THREADTOP_LUAJIT_PROBE_H

#define TT_LJ_PROBE_FUNC_NAME "threadtop_luajit_probe"
#define TT_LJ_PROBE_SEMAPHORE_NAME "threadtop_luajit_attached"
#define TT_LJ_PROBE_VERSION 1

enum tt_lj_probe_kind {
	TT_LJ_PROBE_SAMPLE = 1, /* a sample: vmstate, guest frames, host stack */
	TT_LJ_PROBE_FUNC = 2,	/* a function id and its name */
};

#define TT_LJ_PROBE_HOST_MAX 127 /* = TT_MAX_STACK_DEPTH */

struct tt_lj_probe {
	__u32 kind;    /* enum tt_lj_probe_kind */
	__u32 version; /* TT_LJ_PROBE_VERSION */
	/* TT_LJ_PROBE_SAMPLE */
	__u8 vmstate;  /* enum tt_lj_vmstate (events.h) */
	__u8 fidelity; /* VM states told apart (8 or 5) */
	__u16 nguest;  /* ids at guest, at most TT_LJ_MAX_FRAMES */
	__s32 traceno;
	__u32 nhost;	   /* addresses at host, at most TT_LJ_PROBE_HOST_MAX */
	__u32 interval_us; /* the thread CPU time the sample stands for: the interval as achieved */
	__u64 guest;	   /* user address of __u64[nguest]: function ids, leaf first */
	__u64 host;	   /* user address of __u64[nhost]: return addresses, leaf first */
	/* TT_LJ_PROBE_FUNC */
	__u64 id;
	__u64 name; /* user address of the name, NUL-terminated */
	__u32 name_len;
	__u32 flags; /* TT_LJ_FUNC_* (events.h) */
};

#endif /* THREADTOP_LUAJIT_PROBE_H */
