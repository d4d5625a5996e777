/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Stacks pane's rows, made on demand: the visible nodes of a call tree
 * in display order (the order of calltree__flatten: children of open nodes,
 * hottest first, depth-first), but only as far as the screen needs. A
 * fully expanded tree of 50,000 stacks has about a million rows; a frame
 * shows fifty, so a frame walks (and builds) fifty plus what lies above
 * the scroll position, not the million. No curses: unit-tested.
 */
#ifndef THREADTOP_UI_STACK_ROWS_H
#define THREADTOP_UI_STACK_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calltree.h"

/* Whether node n is open (its children are rows). */
typedef bool (*stack_rows_open_fn)(void *ctx, const struct calltree_node *n);

struct stack_rows_level {
	uint32_t *kids; /* a node's children, hottest first */
	size_t nr, at;	/* at: the next child to emit */
};

struct stack_rows {
	struct calltree *tree; /* not owned; NULL = no rows */
	stack_rows_open_fn open;
	void *ctx;
	uint32_t *rows; /* node indexes, rows [0, nr) made so far */
	size_t nr, cap;
	struct stack_rows_level *levels; /* the walk's stack: where it resumes */
	size_t depth, cap_levels;
	bool done; /* every row is made: nr is the count */
};

/* Starts over on tree (NULL: no rows) with open deciding which nodes are
 * open; call again whenever the tree or what is open changes. */
void stack_rows_reset(struct stack_rows *s, struct calltree *tree, stack_rows_open_fn open,
		      void *ctx);
/* Makes rows until there are at least want (or all of them). Returns the
 * count made; fewer than want only when done. */
size_t stack_rows_fill(struct stack_rows *s, size_t want);
/* The row showing the node with this path hash, making rows until it is
 * found; SIZE_MAX when no row shows it. */
size_t stack_rows_find(struct stack_rows *s, uint64_t path);
/* Frees what s holds (not the tree); s can be reset again. */
void stack_rows_release(struct stack_rows *s);

#endif /* THREADTOP_UI_STACK_ROWS_H */
