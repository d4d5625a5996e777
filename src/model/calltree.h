/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The merged call tree of a set of stack samples (model__stack_samples):
 * one node per distinct path of functions from the outermost frame, with
 * inclusive (total) and self sample counts and time, as perf report's call
 * graph.
 * Frames merge by function: (name, module, inlined level, kernel bit) as
 * the model's frame namer names them, so two addresses in one function are
 * one node; a frame no symbol covers is named by its address and stays
 * apart; without a namer (a replay) frames are addresses. Optionally the
 * root's children are the processes (comm + pid, or comm alone), as the
 * folded export roots its stacks. User frames come first (outermost at the
 * root), then the kernel frames of the same sample. A frame with functions
 * inlined at its address (the model's frame namer says which: frame_name
 * .inlined) is a node per function, outermost first, as perf report
 * --inline shows them. Nodes are identified
 * across rebuilds by a hash of their path, so a view can keep what the user
 * expanded. No ncurses: the TUI's Stacks pane and exporters read it.
 *
 * The tree is built lazily: a node's children exist once it is expanded
 * (calltree__expand, or flatten and hot_path as they walk), so showing the
 * hottest path of 50,000 stacks touches a fraction of their frames. Until
 * then a node's nr_children is 1 if it has any, and first_child is NONE.
 */
#ifndef THREADTOP_CALLTREE_H
#define THREADTOP_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define CALLTREE_ROOT 0
#define CALLTREE_NONE UINT32_MAX

struct calltree_node {
	uint64_t ip;	/* 0 for the root and processes; one address of the function */
	uint64_t path;	/* hash of the frames from the root to here */
	uint64_t total; /* samples through this node */
	uint64_t self;	/* samples whose leaf this is */
	/* The same in time (the pairs' model_stack_count_weight): what shares are
	 * of and siblings are ordered by (a LuaJIT sample weighs its interval). */
	uint64_t total_weight, self_weight;
	uint32_t parent, first_child, next_sibling; /* CALLTREE_NONE = none */
	uint32_t nr_children;			    /* exact once built; 1 = "some" before */
	uint16_t depth;				    /* 0 for the root */
	uint8_t inlined; /* 0: the function at ip; k: the k-th function inlined there */
	bool kernel;
	bool built;		/* children made */
	bool process;		/* a process node (CALLTREE_PROCESSES): pid and comm say which */
	uint32_t pid;		/* a process node's pid; 0 when processes merge by comm */
	uint32_t begin, end;	/* the node's stack pairs (internal) */
	char comm[TT_COMM_LEN]; /* a process node's name */
};

/* calltree__new_flags: the root's children are processes, ... */
#define CALLTREE_PROCESSES (1u << 0)
/* ... one per comm rather than per pid (with CALLTREE_PROCESSES). */
#define CALLTREE_MERGE_COMM (1u << 1)

struct calltree;

/*
 * The tree of nr (kernel stack, user stack) pairs from m's stack dictionary
 * (the stacks, and m's frame namer, must stay while the tree lives). The root's total
 * is the sum of the pairs' samples; pairs whose stacks are unknown count at
 * the root. Only the root's children are made. Never NULL.
 */
struct calltree *calltree__new(const struct model *m, const struct model_stack_count *pairs,
			       size_t nr);
/* The same with CALLTREE_* flags (calltree__new: 0, frames at the root). */
struct calltree *calltree__new_flags(const struct model *m, const struct model_stack_count *pairs,
				     size_t nr, unsigned flags);
/* Makes node i's children if not made yet. Node pointers taken before may move. */
void calltree__expand(struct calltree *t, uint32_t i);
void calltree__free(struct calltree *t);

size_t calltree__count(const struct calltree *t);
/* Node i (0 = root); owned by the tree. */
const struct calltree_node *calltree__node(const struct calltree *t, uint32_t i);
/* The process whose user stack node i is a frame of (the first of its
 * stacks), to name the frame; 0 for kernel frames and the root; a process
 * node's pid. */
uint32_t calltree__node_pid(const struct calltree *t, uint32_t i);
/* Node with this path hash, or CALLTREE_NONE. */
uint32_t calltree__find(const struct calltree *t, uint64_t path);

/*
 * The visible nodes in display order: children of expanded nodes, hottest
 * first (ties by address), depth-first. The root itself is not listed; its
 * children always are. expanded(ctx, node) says whether a node is open.
 * *ret is allocated (free it). Returns the count.
 */
size_t calltree__flatten(struct calltree *t,
			 bool (*expanded)(void *ctx, const struct calltree_node *n), void *ctx,
			 uint32_t **ret);

/* The hottest path from the root: node indexes into out (at most cap). Returns the count. */
size_t calltree__hot_path(struct calltree *t, uint32_t *out, size_t cap);

/* The display order of siblings a and b (<0: a first): hottest first, then by address,
 * inlined level, user before kernel, pid and name; what flatten and is_last follow. */
int calltree__cmp(const struct calltree *t, uint32_t a, uint32_t b);

/* Whether node i is the last of its siblings in display order (its parent is built). */
bool calltree__is_last(const struct calltree *t, uint32_t i);

#endif /* THREADTOP_CALLTREE_H */
