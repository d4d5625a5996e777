/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the hot functions (hotfuncs.c) derive of one stack before counting
 * it: the functions on it, once each, first seen first, with where each was
 * first seen, and the function its samples count self in. Kept per stack id
 * (and position, and process where naming needs it) across the sets a
 * struct hotfuncs_cache makes, and each pair's two lists, so that a refresh
 * of 50,000 stacks only sums counts; internal to hotfuncs.c and
 * hotfuncs_cache.c.
 */
#ifndef THREADTOP_HOTFUNCS_CACHE_H
#define THREADTOP_HOTFUNCS_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "hotfuncs.h"

#define HOTFUNCS_NO_FUNC UINT32_MAX

struct frame_namer;
struct u64map;

/* A function: its identity and names, owned by the cache. */
struct hotfuncs_fn {
	uint64_t id;
	char *name;	    /* NULL: a frame named by its address alone */
	const char *module; /* NULL when unknown; one of modules, or "[kernel]" */
	bool kernel;
};

/*
 * What counting touches at every visit of an entry of the set being made,
 * until the set is done: 32 bytes, two entries a cache line (65,536 of
 * them: 2 MB, where the 80 bytes with self and the processes took 5 MB and
 * missed the caches more). Self (once a pair) and the processes (when the
 * process changes) go to the entry itself.
 */
struct hotfuncs_count {
	uint32_t stamp; /* the last pair that counted it in total */
	uint32_t pid;	/* the last process counted, when nr_pids */
	uint64_t total;
	uint64_t total_weight; /* model_stack_count_weight */
	uint8_t nr_pids;
	bool more_pids;
};

/* Where a function of a list was first seen on its stack. */
struct hotfuncs_origin {
	uint64_t ip;
	uint32_t pid; /* 0 for kernel frames */
	uint8_t level;
};

/* A stack in one position (kernel or user stack of a pair), derived. */
struct hotfuncs_list {
	uint64_t key, sum; /* sum: of the stack's frames, to tell a stack replaced */
	uint32_t *fns;	   /* n functions, once each, leaf first */
	struct hotfuncs_origin *origin;
	uint32_t n;
	uint32_t leaf;	 /* the innermost function at the leaf; HOTFUNCS_NO_FUNC: no frames */
	bool always;	 /* LuaJIT frames (names that come later): derived for every set */
	uint32_t gen;	 /* of the set it was derived for */
	uint32_t frames; /* of the stack */
};

/* A slot of the address table. */
struct hotfuncs_addr {
	uint64_t key;	/* 0 = free */
	uint32_t first; /* n == 1: the function; else where in runs its n functions are */
	uint32_t n;	/* functions: the frame's own, then those inlined there */
};

/* A stack pair of a set: its lists, looked up once. */
struct hotfuncs_pair {
	uint32_t kstack_id, ustack_id, pid;
	bool kept; /* in order: a pair of the map (not one whose stack is to come) */
	const struct hotfuncs_list *ul, *kl;
};

struct hotfuncs_cache {
	bool once;			 /* for one set: hotfuncs_cache__new_once */
	const struct model *model;	 /* what it was filled from */
	const struct frame_namer *namer; /* the model's then */
	uint64_t names_gen, stacks_gone; /* the model's then (model__names_gen, _stacks_gone) */
	struct u64map *lists;		 /* key -> struct hotfuncs_list */
	struct u64map *pairs;		 /* (stacks, process) -> struct hotfuncs_pair */
	size_t nr_set_pairs;		 /* pairs the set being made looked up */
	/* The pairs of the latest set in its order, the set being made's up to
	 * nr_set_pairs: a set over the same pairs finds them here in turn. */
	struct hotfuncs_pair *order;
	size_t nr_order, cap_order;
	size_t refs; /* functions on all the lists */
	struct hotfuncs_fn *fns;
	/* Beside fns, for the set being made: whether counting met each (a bit,
	 * as it reaches every function of every pair: 900,000 functions fit in
	 * a cache), and then its entry in the set. One not met once the set is
	 * full is none of its entries. */
	uint64_t *met;
	size_t cap_met; /* words */
	uint32_t *outs;
	uint32_t *lstamps;	       /* beside fns: the last list each was put on */
	struct hotfuncs_count *counts; /* per entry of the set being made (hotfuncs.c) */
	size_t cap_counts;
	size_t last_nr; /* entries of the latest set */
	size_t nr_fns, cap_fns;
	struct u64map *by_id;	/* function identity -> index + 1 */
	struct u64map *modules; /* the module names, once each: hash -> string */
	uint32_t gen;		/* of the set being made */
	uint32_t lstamp;	/* of the list being derived */
	/* (process, address) -> its functions' run in runs, open addressing. */
	struct hotfuncs_addr *addrs;
	size_t nr_addrs, cap_addrs;
	size_t frames;	/* frames of the stacks on all the lists */
	uint32_t *runs; /* the functions of addresses with inlined ones */
	size_t nr_runs, cap_runs;
	uint32_t lua_fn; /* a Lua frame's function, named at each look-up (never kept) */
};

/*
 * A cache for one set (hotfuncs__new, hotfuncs__from_profile: made once,
 * nothing to keep for a next): no lists, no pairs, counting walks the frames
 * (hotfuncs_cache__frame), and only the HOTFUNCS_MAX functions first seen
 * are made (the set keeps no more; the others are HOTFUNCS_NO_FUNC). Free
 * it with hotfuncs_cache__free.
 */
struct hotfuncs_cache *hotfuncs_cache__new_once(void);
/* Readies c for a set over m: drops what the model changed since. */
void hotfuncs_cache__begin(struct hotfuncs_cache *c, const struct model *m);
/* Ends a set. */
void hotfuncs_cache__end(struct hotfuncs_cache *c);
/*
 * The list of stack st in the kernel (kpos) or user position of a pair of
 * process pid (the one that names its frames), derived now or earlier; NULL
 * for a NULL stack. Lives until the next hotfuncs_cache__begin.
 */
/*
 * The functions at frame ip of process pid (of the kernel: kernel), the
 * frame's own first, then those inlined there: *ret_n of them, named once
 * per (process, address). Lives until the next call.
 */
const uint32_t *hotfuncs_cache__frame(struct hotfuncs_cache *c, const struct model *m, uint32_t pid,
				      uint64_t ip, bool kernel, unsigned *ret_n);
/* The frames of threadtop's own tracing at the leaf of st in the kernel
 * position, that the call tree cuts off too (at most all but one). */
unsigned hotfuncs_cache__tracer_frames(const struct hotfuncs_cache *c, const struct model *m,
				       const struct tt_stack *st);
/* The lists of the user and kernel stack of pair p (NULL: none), as hotfuncs_cache__list. */
void hotfuncs_cache__pair(struct hotfuncs_cache *c, const struct model *m,
			  const struct model_stack_count *p, const struct hotfuncs_list **ret_ul,
			  const struct hotfuncs_list **ret_kl);
const struct hotfuncs_list *hotfuncs_cache__list(struct hotfuncs_cache *c, const struct model *m,
						 const struct tt_stack *st, bool kpos,
						 uint32_t pid);

#endif /* THREADTOP_HOTFUNCS_CACHE_H */
