/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the agentless LuaJIT unwinder (ljvm.bpf.c) and its loader
 * (src/sources/bpf_ljvm.c) share: the per-process layout of a known LuaJIT
 * build (src/sources/ljvm_builds.c) and the ids its Lua frames carry. No
 * includes: the includer brings __u32 and friends.
 */
#ifndef THREADTOP_BPF_LJVM_SHARED_H
#define THREADTOP_BPF_LJVM_SHARED_H

/*
 * tt_ljvm_procs: per process (tgid) running a known LuaJIT build, where its
 * interpreter is and the byte offsets of the fields the unwinder reads
 * (x86-64, GC64: references are 64-bit, two stack slots per frame).
 */
struct tt_ljvm_proc {
	__u64 vm_lo, vm_hi;  /* the interpreter's code [lo, hi), addresses in the process */
	__s32 dispatch_to_g; /* global_State = DISPATCH (r14 in VM code) + this */
	__u16 g_vmstate;     /* global_State.vmstate (int32) */
	__u16 g_mainthref;   /* global_State.mainthref (GCRef) */
	__u16 g_cur_L;	     /* global_State.cur_L (GCRef) */
	__u16 g_jit_base;    /* global_State.jit_base (MRef) */
	__u16 L_glref;	     /* lua_State.glref (MRef) */
	__u16 L_base;	     /* lua_State.base: base, top, maxstack, stack follow, 8 bytes each */
	__u16 fn_ffid;	     /* GCfunc.ffid (uint8) */
	__u16 fn_pc;	     /* GCfuncL.pc (MRef): the bytecode, right after the GCproto */
	__u16 fn_f;	     /* GCfuncC.f */
	__u16 proto_size;    /* sizeof(GCproto) */
	__u32 reserved;
};

/*
 * Ids of the frames of an agentless TT_EV_LUAJIT_SAMPLE (leaf first), per
 * process: a C function is its address (below 1 << 47, left unnamed so
 * that the frame namer names it); a Lua function is its GCproto's address
 * | TT_LJVM_ID_LUA, a fast function and an unreadable frame ids above any
 * user address: user space names these.
 */
#define TT_LJVM_ID_LUA (1ull << 61)		    /* | the GCproto's address */
#define TT_LJVM_ID_FFUNC (1ull << 62)		    /* | ffid */
#define TT_LJVM_ID_BAD ((1ull << 62) | 0xffffffull) /* "[lua?]": a frame that did not read */
#define TT_LJVM_ID_TRACE (1ull << 63) /* | trace number: user space's leaf of a TRACE sample */
#define TT_LJVM_FIDELITY 9	      /* INTERP/LFUNC apart from FFUNC, CFUNC ... TRACE */

/* The slot of ljvm.bpf.c's program in oncpu.bpf.c's tail-call array. */
#define TT_LJVM_TAIL_SLOT 0

#endif /* THREADTOP_BPF_LJVM_SHARED_H */
