/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LuaJIT part of the model: per LuaJIT thread, samples per VM state
 * (INTERP ... TRACE) and per Lua function (self and total), built from
 * TT_EV_LUAJIT_SAMPLE and TT_EV_LUAJIT_FUNC records only, in three windows
 * (this interval, the last complete one, the session). Functions are
 * counted by identity (one function of one process, whatever the names it
 * is announced with) and named when asked, by the best name known then.
 * Owned by the model (model__luajit); no output formats here.
 */
#ifndef THREADTOP_LJ_MODEL_H
#define THREADTOP_LJ_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"
#include "model.h"

#define LJ_MODEL_MAX_FUNCS 4096	 /* distinct functions kept per thread; more go to "(other)" */
#define LJ_MODEL_MAX_STACKS 8192 /* distinct stacks kept per thread; more count only as states */

struct lj_model;

struct lj_model *lj_model__new(void);
void lj_model__free(struct lj_model *lm);
/*
 * Bounds the function names (per process and interned) by b, not owned:
 * past it a new name is not kept (its frames read "[dropped]"). NULL: none.
 */
struct dict_budget;
void lj_model__set_budget(struct lj_model *lm, struct dict_budget *b);

/* Takes one validated TT_EV_LUAJIT_SAMPLE or TT_EV_LUAJIT_FUNC record. */
void lj_model__ingest(struct lj_model *lm, const struct tt_event_header *ev);
/* The interval closed: interval counters become the last interval's. */
void lj_model__end_interval(struct lj_model *lm);

/* One LuaJIT thread in a window (WIN_MINUTE reads as WIN_SESSION). */
struct lj_thread_row {
	uint32_t pid;
	uint32_t tid;
	uint8_t fidelity; /* VM states this process tells apart */
	bool agentless;	  /* read by the eBPF unwinder (no library in the process) */
	uint32_t weight_us;
	uint64_t counts[TT_LJ_VMSTATE_MAX];
	uint64_t samples;
};

/*
 * Threads with samples in window, most samples first; pid 0 = all. *ret is
 * allocated (free it). Returns the count or a negative errno.
 */
int lj_model__threads(const struct lj_model *lm, enum model_window window, uint32_t pid,
		      struct lj_thread_row **ret);

struct lj_func_row {
	const char *name; /* its name now; owned by the model, valid while it lives */
	uint64_t ip;	  /* its least frame tag (lj_frame_ip): stack frame and drill-down key */
	uint64_t self;	  /* samples with it as the innermost Lua function */
	uint64_t total;	  /* samples with it anywhere on the Lua stack */
	uint64_t trace;	  /* of self: in JIT-compiled code */
};

/*
 * Lua functions of the threads matching pid and tid (0 = any) in window,
 * one row per name as known now (the samples of a function from before its
 * name came and after are one row, so is a function run by several
 * processes), by self then total, at most limit (0 = all). *ret is
 * allocated (free it). Returns the count or a negative errno.
 */
int lj_model__functions(const struct lj_model *lm, enum model_window window, uint32_t pid,
			uint32_t tid, size_t limit, struct lj_func_row **ret);
/*
 * The tag (lj_frame_ip) of thread tid's hottest Lua function in window: the
 * one most often innermost on its Lua stack, a trace's samples counted to
 * the function under it (lj_func_row.self, as the LuaJIT pane counts;
 * ties: most total, then the least tag). 0 when the thread, of process
 * pid, has no LuaJIT sample in window. One thread's functions are walked,
 * no other's.
 */
uint64_t lj_model__thread_top(const struct lj_model *lm, enum model_window window, uint32_t pid,
			      uint32_t tid);

/*
 * Lua frames in stacks. A Lua function has no address, so stacks, the call
 * tree, filters and exporters carry it as a tag: a non-canonical x86-64
 * address (no user or kernel code can be there) holding its identity in
 * the model (a slot, LJ_FRAME_IDX_MASK, and the slot's generation above
 * it, as slots are reused): one function of one process, from the
 * announcement of the library's id for it that opened it to the one that
 * shows the id reused for another function. Its name is looked up when
 * asked (lj_model__frame_name), so a tag taken before the function was
 * named reads as named once it is; views merge frames by name.
 */
#define LJ_FRAME_TAG 0x4c75610000000000ull /* "Lua" in the top bytes */
#define LJ_FRAME_TAG_MASK 0xffffff0000000000ull
#define LJ_FRAME_IDX_MASK 0x00000000ffffffffull
#define LJ_FRAME_MODULE "[lua]" /* the module of Lua frames */

static inline bool lj_frame_is_lua(uint64_t ip)
{
	return (ip & LJ_FRAME_TAG_MASK) == LJ_FRAME_TAG;
}

/* The tag of identity fn (lj_stack_row.frames). */
static inline uint64_t lj_frame_ip(uint64_t fn)
{
	return LJ_FRAME_TAG | (fn & ~LJ_FRAME_TAG_MASK);
}

/* The name of Lua frame tag ip now ("fib @app.lua:3"), or NULL when ip is no
 * Lua frame. Owned by the model, valid while it lives (a later name of the
 * function is another string). */
const char *lj_model__frame_name(const struct lj_model *lm, uint64_t ip);
/* Whether Lua frame tags a and b read as one function now (the same name). */
bool lj_model__frame_same(const struct lj_model *lm, uint64_t a, uint64_t b);
/* Whether Lua frame tag ip is a C function called from Lua (a builtin, or an
 * id the library never named: a C function it could not name). */
bool lj_model__frame_cfunc(const struct lj_model *lm, uint64_t ip);
/* The address of the C function of tag ip when its library never named it
 * (its id is its address, for the frame namer), else 0. */
uint64_t lj_model__frame_addr(const struct lj_model *lm, uint64_t ip);
/* Whether thread tid ran the Lua function of tag ip, or one of the same name
 * now, this session. */
bool lj_model__thread_ran(const struct lj_model *lm, uint32_t tid, uint64_t ip);

/* One distinct (host stack, Lua frames) pair of a LuaJIT thread in a window. */
struct lj_stack_row {
	uint32_t pid, tid;
	uint32_t weight_us;
	uint32_t ustack_id;	/* the host stack (model__stack), 0 = none */
	const uint64_t *frames; /* identities (lj_frame_ip), leaf first */
	uint16_t nr;
	uint64_t samples;
	uint64_t ns; /* the CPU time they stand for: each sample its thread's interval then */
	uint32_t *stitched_id; /* the model's cache of the stitched stack's id, 0 = none yet */
};

/*
 * Stack pairs of every LuaJIT thread in window (WIN_MINUTE reads as
 * WIN_SESSION). *ret is allocated (free it); its pointers live until the
 * next ingest. A pair stitched while one of its ids was unknown (stitched
 * as an address) and announced since has its stitched id cleared, to be
 * stitched again. Returns the count or a negative errno.
 */
int lj_model__stacks(struct lj_model *lm, enum model_window window, struct lj_stack_row **ret);

/*
 * Whether the library of process pid named its function id (or names past
 * the budget were dropped there, so frames may read "[dropped]"). An id it
 * never named is a C function it could not name, whose id is its address:
 * such frames are named by the frame namer, as C frames (model_luajit.c).
 */
bool lj_model__func_named(const struct lj_model *lm, uint32_t pid, uint64_t id);

/*
 * The key of the stack pair the latest TT_EV_LUAJIT_SAMPLE counted in, for
 * lj_model__stitched_id; 0 when it counted in none (past LJ_MODEL_MAX_STACKS).
 */
uint64_t lj_model__last_stack(const struct lj_model *lm);
/*
 * The stitched stack id (model__luajit_stacks) of thread tid's pair key, 0
 * when not stitched yet, or the pair or thread (of process pid) is gone.
 */
uint32_t lj_model__stitched_id(const struct lj_model *lm, uint32_t pid, uint32_t tid, uint64_t key);

/* Samples ingested, session (0: no LuaJIT process seen). */
uint64_t lj_model__samples(const struct lj_model *lm);
/*
 * Forgets the threads with no sample since before_ns (exited, past the
 * retention) and the functions of the processes with no thread left here
 * for which proc_alive(arg, pid) is false (no thread in the model): their
 * tags read "(other)" from then on.
 */
void lj_model__forget(struct lj_model *lm, uint64_t before_ns,
		      bool (*proc_alive)(void *arg, uint32_t pid), void *arg);
/* Calls fn with every host user stack id and stitched stack id a stack row names
 * (the model keeps those). */
void lj_model__ustacks(const struct lj_model *lm, void (*fn)(void *arg, uint32_t ustack_id),
		       void *arg);

/* The VM state's name ("TRACE"), or "?" */
const char *lj_vmstate_name(unsigned vmstate);

#endif /* THREADTOP_LJ_MODEL_H */
