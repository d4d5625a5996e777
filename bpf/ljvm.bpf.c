// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Agentless LuaJIT: the VM state and Lua frames of an unmodified LuaJIT
 * process (x86-64, GC64 builds that src/sources/ljvm_builds.c knows), read
 * at each on-CPU sample. oncpu.bpf.c tail-calls this program after sending
 * its sample; for a process in tt_ljvm_procs it sends a TT_EV_LUAJIT_SAMPLE
 * whose frames are raw ids (ljvm.shared.h), fidelity TT_LJ_FIDELITY_BPF |
 * TT_LJVM_FIDELITY, and no host stack: user space (bpf_ljvm.c) gives it the
 * stack of the CPU sample just before it and names the ids.
 *
 * Finding the VM: in the interpreter and in traces, r14 holds DISPATCH, a
 * fixed distance from global_State; a candidate is kept when
 * g->mainthref->glref leads back to it, and remembered per thread for the
 * samples taken in C code (where r14 is anything). The Lua stack starts at
 * g->jit_base in a trace, at the interpreter's BASE (rdx) in VM code, else
 * at cur_L->base, which the VM stores before it calls out. Every read is a
 * bounded bpf_probe_read_user; a frame that does not read ends the walk
 * with TT_LJVM_ID_BAD.
 */
#include "common.bpf.h"
#include "ljvm.shared.h"

#define LJ_GCVMASK ((1ull << 47) - 1)
#define LJ_ITYPE_FUNC 0x1fff7u /* ~8 (LJ_TFUNC) in the top 17 bits of a GC64 TValue */
#define FRAME_TYPE 3
#define FRAME_TYPEP 7
#define FRAME_LUA 0
#define FRAME_VARG 3
#define FF_LUA 0
#define FF_C 1
/* ~LJ_VMST_* as g->vmstate holds them; >= 0: a trace number. */
#define VMST_INTERP (-1)
#define VMST_C (-2)
#define VMST_GC (-3)
#define VMST_EXIT (-4)
#define VMST_RECORD (-5)
#define VMST_OPT (-6)
#define VMST_ASM (-7)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct tt_ljvm_proc);
} tt_ljvm_procs SEC(".maps");

/* The global_State each thread ran last, for samples where r14 says nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} tt_ljvm_g SEC(".maps");

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
/* One walk's state, in the scratch map: values the verifier does not track, so
 * that each step of the walk verifies as one (walk_step). */
struct walk {
	__u64 frame, bot;
	__u16 fn_ffid, fn_pc, fn_f, proto_size;
	__u32 n;
	__u8 leaf_ffid;
};

struct ljvm_scratch {
	struct tt_luajit_sample rec;
	__u64 frames[TT_LJ_MAX_FRAMES];
	struct walk w;
};
#pragma clang diagnostic pop

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ljvm_scratch);
} tt_ljvm_scratch SEC(".maps");

static __always_inline __u64 read_u64(__u64 addr)
{
	__u64 v;

	return bpf_probe_read_user(&v, sizeof(v), (const void *)addr) ? 0 : v;
}

/* Whether g is a global_State of this layout: its main thread links back to it. */
static __always_inline bool is_g(const struct tt_ljvm_proc *p, __u64 g)
{
	__u64 mainth;

	if (!g || g >= (1ull << 47))
		return false;
	mainth = read_u64(g + p->g_mainthref) & LJ_GCVMASK;
	return mainth && read_u64(mainth + p->L_glref) == g;
}

struct user_regs {
	__u64 ip, r14, dx;
};

static __always_inline void user_regs(struct bpf_perf_event_data *ctx, struct user_regs *r)
{
	/* uapi struct pt_regs words: r14 1, dx 12, ip 16, cs 17 (oncpu.bpf.c, in_user_mode) */
	const __u64 *w = (const __u64 *)&ctx->regs;
	struct pt_regs *pr;

	if (w[17] & 3) {
		r->ip = w[16];
		r->r14 = w[1];
		r->dx = w[12];
		return;
	}
	/* In the kernel: the registers user space left at its entry. */
	pr = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	r->ip = BPF_CORE_READ(pr, ip);
	r->r14 = BPF_CORE_READ(pr, r14);
	r->dx = BPF_CORE_READ(pr, dx);
}

static __always_inline void put(struct ljvm_scratch *sc, struct walk *w, __u64 id)
{
	sc->frames[w->n & (TT_LJ_MAX_FRAMES - 1)] = id;
	w->n++;
}

/*
 * One frame of the walk from base down to the stack's bottom, leaf first,
 * as lj_debug_frame walks (GC64, two slots a frame: the function, then the
 * link). Returns 1 to stop.
 */
static long walk_step(__u32 i, void *arg)
{
	struct ljvm_scratch *sc;
	struct walk *w;
	__u64 slots[2], fn, ftsz, prev, frame;
	__u32 zero = 0;
	__u8 ffid = 0xff;

	sc = bpf_map_lookup_elem(&tt_ljvm_scratch, &zero);
	if (!sc)
		return 1;
	w = &sc->w;
	frame = w->frame;
	if (frame <= w->bot || w->n >= TT_LJ_MAX_FRAMES)
		return 1;
	if (bpf_probe_read_user(slots, sizeof(slots), (const void *)(frame - 8))) {
		put(sc, w, TT_LJVM_ID_BAD);
		return 1;
	}
	fn = slots[0];
	ftsz = slots[1];
	/* Not a function: a dummy frame (lua_State), skipped as lj_debug_frame does. */
	if ((fn >> 47) == LJ_ITYPE_FUNC && (ftsz & FRAME_TYPEP) != FRAME_VARG) {
		__u64 id = TT_LJVM_ID_BAD, v;

		fn &= LJ_GCVMASK;
		if (!bpf_probe_read_user(&ffid, 1, (const void *)(fn + w->fn_ffid))) {
			if (ffid == FF_LUA) {
				v = read_u64(fn + w->fn_pc);
				if (v > w->proto_size && v < (1ull << 47))
					id = TT_LJVM_ID_LUA | (v - w->proto_size);
			} else if (ffid == FF_C) {
				v = read_u64(fn + w->fn_f);
				if (v && v < (1ull << 47))
					id = v;
			} else {
				id = TT_LJVM_ID_FFUNC | ffid;
			}
		}
		if (!w->n)
			w->leaf_ffid = ffid;
		put(sc, w, id);
		if (id == TT_LJVM_ID_BAD)
			return 1;
	}
	if ((ftsz & FRAME_TYPE) == FRAME_LUA) {
		__u32 ins;

		/* The caller's CALL instruction says how far below its frame is. */
		if (bpf_probe_read_user(&ins, sizeof(ins), (const void *)(ftsz - 4))) {
			put(sc, w, TT_LJVM_ID_BAD);
			return 1;
		}
		prev = frame - 8 * (2 + ((ins >> 8) & 0xff));
	} else {
		prev = frame - (ftsz & ~(__u64)FRAME_TYPEP);
	}
	if (prev >= frame)
		return 1; /* corrupt: frames only go down */
	w->frame = prev;
	return 0;
}

static __always_inline __u8 tt_state(__s32 vmstate, __u8 leaf_ffid, __u32 nframes)
{
	if (vmstate >= 0)
		return TT_LJ_TRACE;
	switch (vmstate) {
	case VMST_INTERP:
		if (!nframes)
			return TT_LJ_INTERP;
		return leaf_ffid > FF_C && leaf_ffid != 0xff ? TT_LJ_FFUNC : TT_LJ_LFUNC;
	case VMST_C:
		/* A C function, or a fast function's C fallback: CFUNC either
		 * way, as the library counts it (sysprof_vm.c), so that a
		 * state means the same whichever source saw it. */
		return TT_LJ_CFUNC;
	case VMST_GC:
		return TT_LJ_GC;
	case VMST_EXIT:
		return TT_LJ_EXIT;
	case VMST_RECORD:
		return TT_LJ_RECORD;
	case VMST_OPT:
		return TT_LJ_OPT;
	case VMST_ASM:
		return TT_LJ_ASM;
	}
	return TT_LJ_INTERP;
}

SEC("perf_event")
int tt_ljvm_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), g = 0, *cached, base, jit_base, L, lst[4];
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0, n;
	const struct tt_ljvm_proc *p;
	struct ljvm_scratch *sc;
	struct user_regs r;
	bool in_vm;
	__u8 leaf_ffid;
	__s32 vmstate;

	p = bpf_map_lookup_elem(&tt_ljvm_procs, &tgid);
	if (!p)
		return 0;
	sc = bpf_map_lookup_elem(&tt_ljvm_scratch, &zero);
	if (!sc)
		return 0;
	user_regs(ctx, &r);
	in_vm = r.ip >= p->vm_lo && r.ip < p->vm_hi;
	cached = bpf_map_lookup_elem(&tt_ljvm_g, &tid);
	if (cached && *cached == r.r14 + p->dispatch_to_g) {
		g = *cached;
	} else if (is_g(p, r.r14 + p->dispatch_to_g)) {
		g = r.r14 + p->dispatch_to_g;
		bpf_map_update_elem(&tt_ljvm_g, &tid, &g, BPF_ANY);
	} else if (cached) {
		g = *cached;
	}
	if (!g)
		return 0; /* this thread was never seen in the VM's code yet */
	if (bpf_probe_read_user(&vmstate, sizeof(vmstate), (const void *)(g + p->g_vmstate)))
		return 0;
	L = read_u64(g + p->g_cur_L) & LJ_GCVMASK;
	jit_base = read_u64(g + p->g_jit_base);
	/* base, top, maxstack, stack */
	if (!L || bpf_probe_read_user(lst, sizeof(lst), (const void *)(L + p->L_base)))
		return 0;
	if (jit_base)
		base = jit_base;
	else if (in_vm && vmstate == VMST_INTERP)
		base = r.dx;
	else
		base = lst[0];
	if (base <= lst[3] || base > lst[2] || (base & 7))
		base = lst[0]; /* not in this Lua stack: the last base the VM stored */
	sc->w.frame = base - 8;
	sc->w.bot = lst[3] + 8;
	sc->w.fn_ffid = p->fn_ffid;
	sc->w.fn_pc = p->fn_pc;
	sc->w.fn_f = p->fn_f;
	sc->w.proto_size = p->proto_size;
	sc->w.n = 0;
	sc->w.leaf_ffid = 0xff;
	if (base > lst[3] && base <= lst[2])
		bpf_loop(TT_LJ_MAX_FRAMES, walk_step, NULL, 0);
	n = sc->w.n;
	leaf_ffid = sc->w.leaf_ffid;
	if (n > TT_LJ_MAX_FRAMES)
		n = TT_LJ_MAX_FRAMES;
	sc->rec.hdr.type = TT_EV_LUAJIT_SAMPLE;
	sc->rec.hdr.version = TT_LUAJIT_SAMPLE_VERSION;
	sc->rec.hdr.size = sizeof(sc->rec) + n * sizeof(__u64);
	sc->rec.hdr.time_ns = bpf_ktime_get_ns();
	sc->rec.pid = tgid;
	sc->rec.tid = tid;
	sc->rec.ustack_id = 0;
	sc->rec.weight_us = tt_weight_us;
	sc->rec.traceno = vmstate >= 0 ? vmstate : 0;
	sc->rec.vmstate = tt_state(vmstate, leaf_ffid, n);
	sc->rec.fidelity = TT_LJ_FIDELITY_BPF | TT_LJVM_FIDELITY;
	sc->rec.nr = (__u16)n;
	emit(&sc->rec, sizeof(sc->rec) + n * sizeof(__u64));
	return 0;
}
