/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysprof internals shared by the core (sysprof.c: state, signal handler,
 * timer, C API), the stream writer (sysprof_stream.c: buffer, symbol table,
 * guest stacks, samples) and the object map (sysprof_objs.c). Not installed.
 */
#ifndef TT_SYSPROF_INTERNAL_H
#define TT_SYSPROF_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <lua.h>

#include "threadtop/lmisclib.h"

/* VM states in the order of struct luam_Sysprof_Counters and of the stream. */
enum sp_vmst {
	SP_INTERP,
	SP_LFUNC,
	SP_FFUNC,
	SP_CFUNC,
	SP_GC,
	SP_EXIT,
	SP_RECORD,
	SP_OPT,
	SP_ASM,
	SP_TRACE,
	SP_NVMST,
	SP_UNKNOWN = 0xff, /* fallback mode: state known at the next callback */
};

enum sp_state { SP_IDLE, SP_PROFILE };

#define SP_FFID_OUTSIDE (-2) /* sp_slot.ffid: the sample is outside the VM */
/* Stream and probe id of fast function ffid: no code address names it. */
#define SP_FFUNC_ID(ffid) ((1ull << 62) | (uint64_t)(ffid))

#define SP_RING_SLOTS 256u /* samples waiting for their guest stack */
#define SP_HOST_MAX 120	   /* host frames kept per sample */
#define SP_GUEST_MAX 200   /* guest frames kept per sample (leaf side) */
#define SP_TEXT_MAX 512	   /* executable ranges known to the unwinder */

/* One sample taken in the signal handler, waiting for the next safe point. */
struct sp_slot {
	uint8_t vmst;
	uint8_t need_outer; /* unwind stopped in JIT code: append the callback's stack */
	uint16_t nframes;
	int16_t ffid; /* fast function running (FFUNC), -1 if unknown, or SP_FFID_OUTSIDE */
	int32_t traceno;
	uintptr_t cfunc; /* the C function running (CFUNC), if known */
	/* The thread's CPU time since the previous signal, what the sample stands
	 * for (the timer fires at the kernel's ticks: every 4 ms at HZ=250 for a
	 * 1 ms interval); 0 = not known (the first signal). */
	uint64_t cpu_ns;
	uintptr_t frames[SP_HOST_MAX];
};

/* One guest (Lua) frame: FRAME_LFUNC with a function id, or FRAME_CFUNC
 * with a C function's address. */
struct sp_gframe {
	uint8_t type;
	uint64_t id;
	int line;
};

struct sp_range {
	uintptr_t lo, hi;
};

/* Output buffer: the caller's buffer, emptied through the writer. */
struct sp_wbuf {
	uint8_t *buf;
	size_t size, pos;
	int err;     /* errno of the first failed write, 0 if none */
	int stopped; /* writer ended the stream (set *data = NULL) or failed */
};

struct sp_profiler {
	volatile sig_atomic_t state;
	/* Nonzero while a session starts or stops. Both call into Lua (require,
	 * jit.attach), where the live watcher's count hook would run and start
	 * or stop a session inside this one; the watcher waits until it is 0. */
	volatile sig_atomic_t changing;
	int mode;
	pid_t tid;
	lua_State *L; /* main thread of the profiled VM */
	char *g;      /* its global_State */
	int fidelity; /* 10 (vmstate and code address), 8 (vmstate) or 5 (public letters) */
	int layout_ok;
	int cfunc_ok; /* the running C function can be read at the signal */
	int chain_lj; /* LuaJIT's profiler runs: chain its handler, get callbacks */

	luam_Sysprof_writer writer;
	luam_Sysprof_on_stop on_stop;
	luam_Sysprof_backtracer backtracer;
	struct luam_Sysprof_Options opt;

	struct luam_Sysprof_Counters counters;
	volatile uint32_t seq;		/* odd while the handler updates counters */
	volatile uint64_t dropped;	/* stacks lost: ring full */
	volatile uint64_t foreign;	/* SIGPROF on another thread, ignored */
	volatile uint64_t self_samples; /* landed in the profiler's own code, ignored */
	volatile uint64_t
		cost_ns; /* CPU time spent in the profiler (handler, callback, start, stop) */

	uint64_t last_signal_ns; /* the thread's CPU time at the previous signal, 0 = none yet */

	struct sp_slot *ring;
	volatile uint32_t head, tail;
	struct sp_slot *cur; /* slot being filled by a custom backtracer */

	struct sigaction orig;
	void (*lj_handler)(int);
	timer_t timer;
	int have_timer;

	struct sp_wbuf wb;

	struct sp_range text[SP_TEXT_MAX];
	int ntext;
	struct sp_range self;
	struct sp_range vmobj; /* text of the object that holds the VM */
	uintptr_t entry;       /* _start: a walk that reaches it is complete */
};

extern struct sp_profiler sp;

/* sysprof_vm.c: the VM's layout and state at the signal. */
int sp_safe_read(const void *addr, void *out, size_t len);
char *sp_layout_check(lua_State *L, int *ret_cfunc_ok);
int sp_vm_map(char *g);
int sp_vm_mapped(void);
uint8_t sp_vm_classify(char *g, const void *ucv, int32_t *ret_traceno, uintptr_t *ret_cfunc,
		       int *ret_ffid);
int sp_vm_ffid(lua_State *L, int idx);
/* The bytecode of the Lua function at idx: its prototype's identity, or NULL. */
const void *sp_vm_proto(lua_State *L, int idx);

/* sysprof_objs.c: loaded objects. */
void sp_objs_scan(void);
int sp_ip_known(uintptr_t ip);
int sp_ip_self(uintptr_t ip);

/* Stream layout (Tarantool's ljp v2 and its symtab events). */
#define SP_SRC_MAX 512 /* chunk names are cut to this length */
enum {
	SYM_LFUNC_EV = 10,
	SYM_CFUNC_EV = 11,
	SYM_TRACE_EV = 12,
	FRAME_LFUNC = 1,
	FRAME_CFUNC = 2,
	FRAME_END = 0x80
};

/* sysprof_names.c: normal context only. */
int sp_names_begin(lua_State *L);
void sp_names_free(void);
/* The id of Lua function proto (NULL: a pseudo-function) of chunk src at
 * line, named name (or NULL), announced on first use; 0 on failure. */
uint64_t sp_fn_intern(const char *src, int line, const char *name, const void *proto);
/* The id of fast function ffid, named on first use; 0 if out of range. */
uint64_t sp_ff_announce(int ffid);
/* Names the C builtin at addr on first use (if it is one). */
void sp_builtin_announce(uintptr_t addr);
void sp_names_reannounce(void);

/* sysprof_stream.c: normal context only. */
int sp_stream_begin(lua_State *L);
void sp_drain(lua_State *L);
int sp_stream_end(void);
void sp_stream_detach(lua_State *L);
void sp_stream_free(void);

/* sysprof_stream.c: the output buffer, ULEB128 encoded (sp.wb). */
void sp_wb_byte(uint8_t b);
void sp_wb_uleb(uint64_t v);
void sp_wb_str(const char *s, size_t len);

/* sysprof_objs.c: C symbols of every loaded object, as symtab entries. */
int sp_symtab_dump_cfuncs(void);

/* sysprof_probe.c: threadtop's probe point and live session. */
int sp_probe_attached(void);
void sp_probe_sample(const struct sp_slot *s, uint8_t vmst, const struct sp_gframe *top, int ntop,
		     const struct sp_gframe *g, int ng, const uintptr_t *outer, int nouter);
void sp_probe_func(uint64_t id, const char *src, int line, const char *name, unsigned flags);
void sp_live_register(lua_State *L);
void sp_live_yield(void);
int sp_live_running(void);

/* sysprof.c */
uint64_t sp_cpu_ns(void);
void sp_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int sp_stop_internal(lua_State *L, int closing);
int sp_profiling_vm(lua_State *L);

#endif
