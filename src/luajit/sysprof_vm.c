/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysprof: what the stock VM is doing when the signal lands. Stock LuaJIT
 * keeps one "interpreter" state for Lua bytecode, fast functions and the
 * call and return handling between frames; Tarantool's fork sets LFUNC,
 * FFUNC and INTERP for them in its assembler VM. Without changing the VM,
 * the interrupted address tells them apart: the interpreter is one block of
 * machine code whose bytecode handlers and fast functions start where the
 * dispatch table of global_State says, so an address inside a call or return
 * handler is INTERP, inside a fast function FFUNC, elsewhere LFUNC; in C code
 * the interpreter called, the function of the frame LuaJIT synced in
 * lua_State.base says which. Layout facts are used only after the self-check
 * of layout_check() and of sp_vm_map() proved them on the running VM.
 * Everything called from the signal handler reads plain memory, bounded by
 * the VM stack's limits: async-signal-safe.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <lauxlib.h>
#include <luajit.h>

#include "sysprof_internal.h"

/*
 * Layout of LuaJIT 2.1 GC64 on x86-64 (Debian 12 libluajit-5.1 2.1.0~beta3
 * and upstream v2.1): lua_State.glref/base/maxstack/stack/cframe,
 * global_State.vmstate/cur_L, the dispatch table (GG_State.dispatch -
 * GG_State.g), a frame's function slot at base[-2] (LJ_FR2) as a tagged
 * TValue, and GCfunc.gct/ffid/f.
 */
#define LJ_OFF_GLREF 16
#define LJ_OFF_BASE 32
#define LJ_OFF_MAXSTACK 48
#define LJ_OFF_STACK 56
#define LJ_OFF_CFRAME 80
#define LJ_OFF_VMSTATE 184
#define LJ_OFF_CUR_L 368
#define LJ_OFF_DISPATCH 3968
#define LJ_ITYPE_FUNC 0x1fff7 /* ~LJ_TFUNC in the top 17 bits */
#define LJ_GCT_FUNC 8
#define LJ_FN_OFF_GCT 9
#define LJ_FN_OFF_FFID 10
#define LJ_FN_OFF_PC 32
#define LJ_FN_OFF_F 40
#define LJ_FF_C 1 /* ffid of a lua_CFunction; 0 is a Lua function, more a builtin */
/* Stock VM states (lj_obj.h): INTERP, C, GC, EXIT, RECORD, OPT, ASM. */
#define LJ_VMST_C 1

/* Bytecodes of LuaJIT 2.1 (lj_bc.h) whose handlers are call/return work. */
#define LJ_BC_CALLM 65
#define LJ_BC_ITERC 69
#define LJ_BC_RETM 73
#define LJ_BC_RET1 76
#define LJ_BC_FUNCF 89
#define LJ_BC_FUNCC 95
#define LJ_BC_MAX 97
#define LJ_NUM_ASMFF 57				/* fast functions written in assembler */
#define LJ_LEN_DDISP (LJ_BC_MAX + LJ_NUM_ASMFF) /* the static copy of the table follows */
#define LJ_LEN_SDISP 89				/* BC_FUNCF: handlers with a static copy */

static int probe_result, probe_cfunc;

/* Interpreter code: sorted handler starts, each with the state it runs in. */
static struct {
	int ok;
	uintptr_t lo, hi, ff_lo; /* the block, and where its fast functions start */
	int n;
	uintptr_t start[LJ_BC_MAX];
	uint8_t st[LJ_BC_MAX];
} vm;

int sp_safe_read(const void *addr, void *out, size_t len)
{
	struct iovec local = {.iov_base = out, .iov_len = len};
	struct iovec remote = {.iov_base = (void *)addr, .iov_len = len};

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* What the handler needs of a GCfunc. */
struct fn_hdr {
	int ffid; /* -1: not a function */
	const uint8_t *pc;
	uintptr_t f;
};

/* Reads the header of GCfunc fn without faulting: a frame slot can hold a
 * stale function whose memory is gone. */
static struct fn_hdr fn_read(const char *fn)
{
	struct fn_hdr h = {-1, NULL, 0};
	uint8_t raw[LJ_FN_OFF_F + 8];

	if (!fn || sp_safe_read(fn, raw, sizeof(raw)) < 0 || raw[LJ_FN_OFF_GCT] != LJ_GCT_FUNC)
		return h;
	h.ffid = raw[LJ_FN_OFF_FFID];
	__builtin_memcpy(&h.pc, raw + LJ_FN_OFF_PC, sizeof(h.pc));
	__builtin_memcpy(&h.f, raw + LJ_FN_OFF_F, sizeof(h.f));
	return h;
}

/* The function of the frame whose base is base on coroutine cl. */
static struct fn_hdr frame_func(const char *cl, const char *base)
{
	const char *stack = *(char *const volatile *)(cl + LJ_OFF_STACK);
	const char *maxstack = *(char *const volatile *)(cl + LJ_OFF_MAXSTACK);
	struct fn_hdr none = {-1, NULL, 0};
	uint64_t v;

	if (!base || !stack || base < stack + 16 || base > maxstack || ((uintptr_t)base & 7))
		return none;
	v = *(const volatile uint64_t *)(base - 16);
	if ((v >> 47) != LJ_ITYPE_FUNC)
		return none;
	return fn_read((const char *)(uintptr_t)(v & ((1ull << 47) - 1)));
}

/* ffid of h if it is a fast function, else -1. C builtins (table.sort)
 * have an ffid too, but their first instruction is FUNCC: a fast
 * function's is past the bytecodes (it dispatches to its assembler). */
static int fast_ffid(const struct fn_hdr *h)
{
	uint8_t op = 0;

	if (h->ffid <= LJ_FF_C || !h->pc || sp_safe_read(h->pc, &op, 1) < 0)
		return -1;
	return op >= LJ_BC_MAX ? h->ffid : -1;
}

/* The lua_CFunction running on coroutine cl (vmstate C), or 0. */
static uintptr_t current_cfunc(const char *cl)
{
	struct fn_hdr h = frame_func(cl, *(char *const volatile *)(cl + LJ_OFF_BASE));

	return h.ffid > 0 ? h.f : 0; /* not a Lua function */
}

/* Runs as a lua_CFunction: there vmstate must be ~C, cur_L must be L and
 * L->cframe must be set. */
static int sp_probe(lua_State *L)
{
	char *g = NULL;
	int32_t vs = 0;
	void *cur = NULL, *cf = NULL;

	probe_result = 0;
	if (sp_safe_read((char *)L + LJ_OFF_GLREF, &g, sizeof(g)) < 0 || !g)
		return 0;
	if (sp_safe_read(g + LJ_OFF_VMSTATE, &vs, sizeof(vs)) < 0 ||
	    sp_safe_read(g + LJ_OFF_CUR_L, &cur, sizeof(cur)) < 0 ||
	    sp_safe_read((char *)L + LJ_OFF_CFRAME, &cf, sizeof(cf)) < 0)
		return 0;
	probe_result = vs == ~LJ_VMST_C && cur == (void *)L && cf != NULL;
	/* The same layout tells which C function runs: it must be this one. */
	probe_cfunc = probe_result && current_cfunc((const char *)L) == (uintptr_t)&sp_probe;
	return 0;
}

char *sp_layout_check(lua_State *L, int *ret_cfunc_ok)
{
#if defined(__x86_64__) && LUAJIT_VERSION_NUM == 20100
	const char *e = getenv("THREADTOP_SYSPROF_NO_VMSTATE");
	char *g = NULL;

	*ret_cfunc_ok = 0;
	if (e && *e && strcmp(e, "0") != 0)
		return NULL;
	if (!lua_checkstack(L, 2))
		return NULL;
	lua_pushcfunction(L, sp_probe);
	probe_result = 0;
	if (lua_pcall(L, 0, 0, 0) != 0) {
		lua_pop(L, 1);
		return NULL;
	}
	if (!probe_result)
		return NULL;
	if (sp_safe_read((char *)L + LJ_OFF_GLREF, &g, sizeof(g)) < 0)
		return NULL;
	*ret_cfunc_ok = probe_cfunc;
	return g;
#else
	(void)L;
	*ret_cfunc_ok = 0;
	return NULL;
#endif
}

static uint8_t op_state(int op)
{
	if ((op >= LJ_BC_CALLM && op <= LJ_BC_ITERC) || (op >= LJ_BC_RETM && op <= LJ_BC_RET1) ||
	    op >= LJ_BC_FUNCF)
		return SP_INTERP; /* calls, returns, and the way back from a C function */
	return SP_LFUNC;
}

/*
 * Reads the handler starts from the dispatch table (the static copy for the
 * bytecodes that have one, as hooks rewrite the live part) and proves them:
 * the first handler starts the block libunwind's unwind info gives for it,
 * the static handlers are in bytecode order, and the fast functions follow
 * them. Normal context.
 */
int sp_vm_map(char *g)
{
	const uintptr_t *disp = (const uintptr_t *)(g + LJ_OFF_DISPATCH);
	uintptr_t tab[LJ_LEN_DDISP + LJ_LEN_SDISP], ff_lo = UINTPTR_MAX;
	unw_proc_info_t pi;
	int i, j;

	memset(&vm, 0, sizeof(vm));
	if (getenv("THREADTOP_SYSPROF_NO_VMMAP"))
		return -1;
	if (sp_safe_read(disp, tab, sizeof(tab)) < 0)
		return -1;
	if (unw_get_proc_info_by_ip(unw_local_addr_space, tab[LJ_LEN_DDISP], &pi, NULL) < 0 ||
	    pi.start_ip != tab[LJ_LEN_DDISP])
		return -1;
	vm.lo = pi.start_ip;
	vm.hi = pi.end_ip;
	for (i = 0; i < LJ_BC_MAX; i++) {
		uintptr_t a = i < LJ_LEN_SDISP ? tab[LJ_LEN_DDISP + i] : tab[i];

		if (a < vm.lo || a >= vm.hi || (i && i < LJ_LEN_SDISP && a < vm.start[i - 1]))
			return -1;
		vm.start[i] = a;
		vm.st[i] = op_state(i);
	}
	for (i = LJ_BC_MAX; i < LJ_LEN_DDISP; i++) {
		if (tab[i] <= vm.start[LJ_LEN_SDISP - 1] || tab[i] >= vm.hi)
			return -1;
		if (tab[i] < ff_lo)
			ff_lo = tab[i];
	}
	/* The function headers may be hooked or aliased: keep them sorted. */
	for (i = 1; i < LJ_BC_MAX; i++)
		for (j = i; j > 0 && vm.start[j] < vm.start[j - 1]; j--) {
			uintptr_t a = vm.start[j];
			uint8_t s = vm.st[j];

			vm.start[j] = vm.start[j - 1];
			vm.st[j] = vm.st[j - 1];
			vm.start[j - 1] = a;
			vm.st[j - 1] = s;
		}
	vm.n = LJ_BC_MAX;
	vm.ff_lo = ff_lo;
	vm.ok = 1;
	return 0;
}

int sp_vm_mapped(void)
{
	return vm.ok;
}

/* State of interpreter code at ip: the handler it is in. */
static uint8_t code_state(uintptr_t ip)
{
	int lo = 0, hi = vm.n;

	if (ip >= vm.ff_lo)
		return SP_FFUNC; /* fast functions, their fallbacks and helpers */
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (vm.start[mid] <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? vm.st[lo - 1] : SP_LFUNC;
}

/* Stock "interpreter" state at the signal: Lua, a fast function, or calls. */
static uint8_t interp_state(const char *cl, const ucontext_t *uc, int *ret_ffid)
{
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	const char *base;
	uint8_t st;

	if (!vm.ok)
		return SP_LFUNC;
	if (ip >= vm.lo && ip < vm.hi) {
		st = code_state(ip);
		if (st == SP_FFUNC) { /* the interpreter keeps BASE in rdx */
			struct fn_hdr h;

			base = (const char *)(uintptr_t)uc->uc_mcontext.gregs[REG_RDX];
			h = frame_func(cl, base);
			*ret_ffid = fast_ffid(&h);
			/* The math helpers past the fast functions (vm_mod, vm_floor)
			 * also serve bytecodes (MOD, POW): then the frame is Lua's. */
			if (h.ffid == 0)
				return SP_LFUNC;
		}
		return st;
	}
	/* C code the interpreter called (a fast function's fallback, a table
	 * or string helper): LuaJIT synced L->base before the call. */
	{
		struct fn_hdr h = frame_func(cl, *(char *const volatile *)(cl + LJ_OFF_BASE));

		*ret_ffid = fast_ffid(&h);
	}
	return *ret_ffid > LJ_FF_C ? SP_FFUNC : SP_LFUNC;
}

uint8_t sp_vm_classify(char *g, const void *ucv, int32_t *ret_traceno, uintptr_t *ret_cfunc,
		       int *ret_ffid)
{
	int32_t vs = *(volatile int32_t *)(g + LJ_OFF_VMSTATE);
	char *cl;

	*ret_traceno = 0;
	*ret_ffid = -1;
	if (vs > 0) {
		*ret_traceno = vs;
		return SP_TRACE;
	}
	if (vs == 0) { /* the VM was never entered */
		*ret_ffid = SP_FFID_OUTSIDE;
		return SP_INTERP;
	}
	switch (~vs) {
	case 0: /* stock INTERP: bytecode, fast functions, calls and returns */
	case LJ_VMST_C:
		cl = *(char *volatile *)(g + LJ_OFF_CUR_L);
		/* No C frame of the VM: host code outside the VM, which
		 * Tarantool counts as CFUNC after a Lua call returned. */
		if (!cl || !*(void *volatile *)(cl + LJ_OFF_CFRAME)) {
			*ret_ffid = SP_FFID_OUTSIDE;
			return ~vs == 0 ? SP_INTERP : SP_CFUNC;
		}
		if (~vs == 0)
			return ucv ? interp_state(cl, ucv, ret_ffid) : SP_LFUNC;
		if (sp.cfunc_ok)
			*ret_cfunc = current_cfunc(cl);
		return SP_CFUNC;
	case 2:
		return SP_GC;
	case 3:
		return SP_EXIT;
	case 4:
		return SP_RECORD;
	case 5:
		return SP_OPT;
	case 6:
		return SP_ASM;
	default:
		return SP_INTERP;
	}
}

int sp_vm_ffid(lua_State *L, int idx)
{
	struct fn_hdr h;

	if (!sp.layout_ok || !lua_iscfunction(L, idx))
		return -1;
	h = fn_read(lua_topointer(L, idx));
	return fast_ffid(&h);
}

const void *sp_vm_proto(lua_State *L, int idx)
{
	const char *fn = lua_topointer(L, idx);

	if (!sp.layout_ok || !fn || !lua_isfunction(L, idx) || lua_iscfunction(L, idx))
		return NULL;
	return *(const void *const *)(fn + LJ_FN_OFF_PC);
}
