/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Lua functions of the LuaJIT model (lj_model.c) and their names, from
 * TT_EV_LUAJIT_FUNC records and the ids of samples' frames. A function is
 * an identity: one function of one process, the library's id for it from
 * the announcement that opened it. The library announces a function by
 * where it is ("@x.lua:5") before its first sample and names it when a
 * caller does ("cmp @x.lua:5"): a later announcement that only puts a name
 * before the same place names the same identity; any other one is the id
 * reused for another function (collected, a new session, another process
 * with the pid) and opens a new identity. The model counts identities and
 * asks their names when a view asks, so all samples of a function read
 * with the best name known then. Model-internal; not thread-safe.
 */
#ifndef THREADTOP_LJ_FUNCS_H
#define THREADTOP_LJ_FUNCS_H

#include <stdbool.h>
#include <stdint.h>

#include "threadtop/events.h"

/*
 * An identity as stacks, rows and frame tags hold it (lj_frame_ip): a slot
 * (the low 32 bits) and the slot's generation above it, since the slots of
 * a forgotten process go to later functions. A ref whose slot was freed
 * since reads as LJ_FN_OTHER.
 */
#define LJ_FN_OTHER 0xffffffffull /* "(other)": no identity (past a bound) */
#define LJ_FN_NO_NAME 0xffffffffu /* a name index: "(other)" */

struct lj_funcs;
struct dict_budget;

struct lj_funcs *lj_funcs__new(void);
/* Frees fs, giving back to the budget what it charged. NULL-safe. */
void lj_funcs__free(struct lj_funcs *fs);
/* Identities and names are charged to their process in b (not owned; NULL: none). */
void lj_funcs__set_budget(struct lj_funcs *fs, struct dict_budget *b);

/* Takes one validated TT_EV_LUAJIT_FUNC record. */
void lj_funcs__announce(struct lj_funcs *fs, const struct tt_luajit_func *f);
/*
 * The identity of function id of process pid in a sample: the current one,
 * or a new one read "lua:0x..." ("[dropped]" after names past the budget)
 * until it is announced. LJ_FN_OTHER when none fits the budget.
 */
uint64_t lj_funcs__of(struct lj_funcs *fs, uint32_t pid, uint64_t id);

/* The name index ref reads as now (names are interned: one index, one name). */
uint32_t lj_funcs__name(const struct lj_funcs *fs, uint64_t ref);
/* The text of a name index; "(other)" for LJ_FN_NO_NAME. Valid while fs lives. */
const char *lj_funcs__text(const struct lj_funcs *fs, uint32_t name_idx);
/* Whether ref is the "TRACE [n] chunk" pseudo-frame, as announced. */
bool lj_funcs__is_trace(const struct lj_funcs *fs, uint64_t ref);
/* Whether ref is a C function called from Lua (a builtin, or never announced). */
bool lj_funcs__is_cfunc(const struct lj_funcs *fs, uint64_t ref);
/* The address of ref when never announced (an id that is a C function's address), else 0. */
uint64_t lj_funcs__addr(const struct lj_funcs *fs, uint64_t ref);
/* Whether the library of process pid announced its function id (or dropped names). */
bool lj_funcs__announced(const struct lj_funcs *fs, uint32_t pid, uint64_t id);

/*
 * Counts announcements of identities met in samples first: a stack
 * stitched while lj_funcs__late() was seq is stitched with the names of
 * now unless lj_funcs__named_after(fs, ref, seq) for one of its frames.
 */
uint32_t lj_funcs__late(const struct lj_funcs *fs);
bool lj_funcs__named_after(const struct lj_funcs *fs, uint64_t ref, uint32_t seq);

/*
 * Forgets the processes for which keep(arg, pid) is false: their budget
 * is given back, their slots go to later functions, their refs read
 * LJ_FN_OTHER from then on.
 */
void lj_funcs__forget(struct lj_funcs *fs, bool (*keep)(void *arg, uint32_t pid), void *arg);

#endif /* THREADTOP_LJ_FUNCS_H */
