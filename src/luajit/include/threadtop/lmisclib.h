/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysprof for stock LuaJIT 2.1: the C API of libthreadtop-sysprof.so.
 *
 * Source-compatible with the sysprof part of Tarantool's <lmisclib.h>: the
 * same functions, typedefs, option and counter structs, modes and error
 * codes, so code written against Tarantool's LuaJIT builds against this
 * header and links against -lthreadtop-sysprof. threadtop adds
 * luaM_sysprof_strerror() (the precise reason of the last failure) and
 * luaM_sysprof_fidelity() (how many of the ten VM states are told apart).
 *
 * The profiler is process-wide: one session at a time, sampling the thread
 * that called luaM_sysprof_start(). All functions return PROFILE_SUCCESS (0)
 * or one of the PROFILE_ERR* codes.
 */
#ifndef _LMISCLIB_H
#define _LMISCLIB_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef LUAMISC_API
#define LUAMISC_API LUA_API
#endif

/*
 * Writer of stream bytes. threadtop calls it from normal context only (the
 * LuaJIT profiler callback, start and stop), never from the signal handler,
 * but code shared with Tarantool should keep it async-signal-safe. Returns
 * the number of bytes written (less than len is an I/O error); it may point
 * *data at a new buffer of the same size; setting *data to NULL ends the
 * stream (later samples are only counted).
 */
typedef size_t (*luam_Sysprof_writer)(const void **data, size_t len, void *ctx);

/*
 * Called once when a session ends (stop, lua_close() of the profiled VM, or
 * a failed start) to release ctx and buf. Returns 0 on success.
 */
typedef int (*luam_Sysprof_on_stop)(void *ctx, uint8_t *buf);

/*
 * Host stack walker, run inside the SIGPROF handler: it must call
 * frame_writer(frame_no, addr) for each frame from the top of the stack to
 * the bottom and stop when frame_writer returns NULL. NULL selects the
 * default, a libunwind walk from the signal context.
 */
typedef void (*luam_Sysprof_backtracer)(void *(*frame_writer)(int frame_no, void *addr));

/* Names used in sysprof-api.md. */
typedef luam_Sysprof_writer sp_writer;
typedef luam_Sysprof_on_stop sp_on_stop;
typedef luam_Sysprof_backtracer sp_backtracer;

/* Counters only, read with luaM_sysprof_report(). */
#define LUAM_SYSPROF_DEFAULT 0
/* DEFAULT + a stream of samples with the top frame of host and guest stacks. */
#define LUAM_SYSPROF_LEAF 1
/* DEFAULT + a stream of samples with full host and guest call chains. */
#define LUAM_SYSPROF_CALLGRAPH 2

/* One counter per VM state, in the order of the states; then the total. */
struct luam_Sysprof_Counters {
	uint64_t vmst_interp;
	uint64_t vmst_lfunc;
	uint64_t vmst_ffunc;
	uint64_t vmst_cfunc;
	uint64_t vmst_gc;
	uint64_t vmst_exit;
	uint64_t vmst_record;
	uint64_t vmst_opt;
	uint64_t vmst_asm;
	uint64_t vmst_trace;
	/* Always the sum of the ten counters above. */
	uint64_t samples;
};

struct luam_Sysprof_Options {
	/* LUAM_SYSPROF_DEFAULT, _LEAF or _CALLGRAPH. */
	uint8_t mode;
	/* Sampling interval in ms of the thread's CPU time (at least 1). */
	uint64_t interval;
	/* Buffer for stream data (LEAF and CALLGRAPH), owned by the caller. */
	uint8_t *buf;
	/* Its size in bytes. */
	size_t len;
	/* Passed to the writer and on_stop. */
	void *ctx;
};

#define PROFILE_SUCCESS 0
#define PROFILE_ERRUSE 1 /* bad argument or call sequence: see luaM_sysprof_strerror() */
#define PROFILE_ERRRUN 2 /* already running (start) or not running (stop) */
#define PROFILE_ERRMEM 3 /* out of memory */
#define PROFILE_ERRIO 4	 /* the writer or on_stop failed; errno is set */

/* Configuration: needed before the first non-DEFAULT start; ERRUSE while running. */
LUAMISC_API int luaM_sysprof_set_writer(luam_Sysprof_writer writer);
LUAMISC_API int luaM_sysprof_set_on_stop(luam_Sysprof_on_stop on_stop);
LUAMISC_API int luaM_sysprof_set_backtracer(luam_Sysprof_backtracer backtracer);

/*
 * Starts sampling the calling thread, which must be running L's VM. Resets
 * the counters. On failure on_stop(opt->ctx, opt->buf) is called if set.
 */
LUAMISC_API int luaM_sysprof_start(lua_State *L, const struct luam_Sysprof_Options *opt);
/* Stops, writes the rest of the stream and calls on_stop. */
LUAMISC_API int luaM_sysprof_stop(lua_State *L);
/* Copies the counters of the running or the last session (consistent sum). */
LUAMISC_API int luaM_sysprof_report(struct luam_Sysprof_Counters *counters);

/*
 * threadtop extensions. luaM_sysprof_strerror: the reason of the last failed
 * call, e.g. "profiler mode must be 'D', 'L' or 'C'"; "" after a success.
 * The string is static, valid until the next call into this API.
 */
LUAMISC_API const char *luaM_sysprof_strerror(void);
/*
 * Number of the ten VM states the current or last session tells apart: 10
 * when the VM state is read at the signal and the interpreter's dispatch
 * map checked out, 8 when only the layout check passed (INTERP, LFUNC and
 * FFUNC read as LFUNC), 5 when it comes from LuaJIT's public profiler, 0
 * before the first start.
 */
LUAMISC_API int luaM_sysprof_fidelity(void);
/*
 * Which states that fidelity cannot tell apart from Tarantool's, and why,
 * in one sentence ("" before the first start). Static storage.
 */
LUAMISC_API const char *luaM_sysprof_fidelity_limits(void);

#define LUAM_MISCLIBNAME "misc"
/* Installs the global table misc with misc.sysprof; returns misc. */
LUALIB_API int luaopen_misc(lua_State *L);

#ifdef __cplusplus
}
#endif

#endif /* _LMISCLIB_H */
