/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hot functions: the flat view of a set of stack samples by function, as
 * perf top and perf report --children show them. One entry per function
 * (name, module, kernel bit, as the model's frame namer names it; a frame
 * no symbol covers is its own), with its self count (samples whose leaf it
 * is: the innermost function at the leaf address, inlined ones included,
 * as the call tree's leaf nodes) and its total count (samples with it
 * anywhere on the stack, counted once per sample however often recursion
 * puts it there), and the processes it ran in. The one computation behind
 * the TUI's Hot pane, batch JSON's and the JSON report's hot_functions, so
 * that all three agree. No ncurses, no files.
 */
#ifndef THREADTOP_HOTFUNCS_H
#define THREADTOP_HOTFUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "profile.h"

/* Functions one set keeps; the samples of the others count in `dropped`. */
#define HOTFUNCS_MAX 65536
/* Processes an entry lists; more_pids says there were more. */
#define HOTFUNC_PIDS 8
/* Inlined levels of one address a function can be found at. */
#define HOTFUNCS_INLINE_MAX 16

struct hotfunc {
	/* As named, raw bytes: renderers escape. NULL for a frame named by its
	 * address alone (no namer): hotfunc_name gives "0xADDR" then. */
	const char *name;
	const char *module; /* NULL when unknown */
	uint64_t ip;	    /* the first address seen in it (to narrow stacks to it) */
	uint32_t pid;	    /* the process of that address, 0 for kernel frames */
	uint8_t level;	    /* inlined level at ip: 0 the frame's own function */
	bool kernel;
	uint64_t self;	/* samples (or ns) whose leaf it is */
	uint64_t total; /* samples (or ns) with it on the stack, once per sample */
	/* The same in time (the pairs' model_stack_count_weight): shares are of it. */
	uint64_t self_weight, total_weight;
	uint32_t pids[HOTFUNC_PIDS]; /* the processes it ran in, first seen first; 0 = unknown */
	uint8_t nr_pids;
	bool more_pids;
	char comm[TT_COMM_LEN]; /* the name of pids[0] (its main thread's comm), a copy */
};

enum hotfuncs_sort {
	HOTFUNCS_BY_SELF = 0, /* most self first, then most total, then name */
	HOTFUNCS_BY_TOTAL,    /* most total first, then most self, then name */
	HOTFUNCS_BY_NAME,     /* name, then module */
	HOTFUNCS_BY_MODULE,   /* module, then most self */
	HOTFUNCS_SORT_MAX,
};

struct hotfuncs {
	/* By self, most first (hotfuncs__sort: another order); only the first
	 * `sorted` are in that order, the rest after them in no order. */
	struct hotfunc **funcs;
	size_t nr, sorted;
	uint64_t total;	  /* samples (or ns) of all the pairs, with or without stacks */
	uint64_t dropped; /* samples (or ns) of functions beyond HOTFUNCS_MAX */
	uint64_t total_weight, dropped_weight; /* the same in time */
	/* internal */
	struct hotfunc *store;
	enum hotfuncs_sort sort_by_;
	bool reverse_;
	size_t cap;
	struct hotfuncs_cache *cache;  /* while counting */
	struct hotfuncs_count *counts; /* self, total, stamp per entry while counting */
	char **strings;		       /* blocks of the names */
	size_t nr_strings, cap_strings;
	char *block_at; /* the free end of the latest block */
	size_t block_left;
	const char *last_module, *last_module_copy; /* the cache's, the set's */
};

/*
 * The hot functions of nr (kernel stack, user stack, process) pairs of m's
 * stack dictionary (the call tree's input: calltree.h), frames named by m's
 * namer (addresses without one), threadtop's own tracing frames cut off
 * kernel leaves as the call tree and the profile do. Never NULL; free it.
 */
struct hotfuncs *hotfuncs__new(const struct model *m, const struct model_stack_count *pairs,
			       size_t nr);
/*
 * What the sets of one model have in common, kept from one set to the next:
 * each stack's functions, derived from its frames once (naming, inlined
 * functions), so a set made again over 50,000 stacks only sums counts. It
 * follows the model (model__names_gen, model__stacks_gone): a names change
 * drops it all, a stack aged or replaced drops what was derived of it; its
 * memory is of the order of the stacks the model holds. Another model
 * drops it too. One set made at a time (not thread-safe). Free it (NULL-safe)
 * after the model's last set; the sets made do not point into it.
 */
struct hotfuncs_cache;
struct hotfuncs_cache *hotfuncs_cache__new(void);
void hotfuncs_cache__free(struct hotfuncs_cache *c);
/* hotfuncs__new with the derivations of c: the same set, sooner. Never NULL; free it. */
struct hotfuncs *hotfuncs__new_cached(struct hotfuncs_cache *c, const struct model *m,
				      const struct model_stack_count *pairs, size_t nr);
/*
 * The same over the samples of profile p of kind (what exporters render):
 * on-CPU and thread samples count samples, off-CPU samples count ns. With
 * PROFILE_THREADS, only the samples of threads in the states of state_mask
 * (bits 1u << enum tt_state; 0 = all). Never NULL; free it.
 */
struct hotfuncs *hotfuncs__from_profile(const struct model *m, const struct profile *p,
					enum profile_kind kind, uint32_t state_mask);
/* f's name, or "0xADDR" in buf (HOTFUNC_NAME_LEN) when it has none. */
#define HOTFUNC_NAME_LEN 24
const char *hotfunc_name(const struct hotfunc *f, char *buf);
/* Orders h->funcs by; reverse turns the order round. */
void hotfuncs__sort(struct hotfuncs *h, enum hotfuncs_sort by, bool reverse);
/* The same for the first k only (h->sorted = k), the rest after them in no
 * order: what a screen of rows needs of 100,000 functions. */
#define HOTFUNCS_SORT_FIRST 256
void hotfuncs__sort_first(struct hotfuncs *h, enum hotfuncs_sort by, bool reverse, size_t k);
/* Sorts the rest when want rows are more than h->sorted; returns h->sorted. */
size_t hotfuncs__sort_more(struct hotfuncs *h, size_t want);
/* The entry of the function named name in module (NULL = any), or NULL. */
const struct hotfunc *hotfuncs__find(const struct hotfuncs *h, const char *name,
				     const char *module);
void hotfuncs__free(struct hotfuncs *h);

#endif /* THREADTOP_HOTFUNCS_H */
