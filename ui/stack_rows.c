// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Stacks pane's rows on demand (see stack_rows.h): a depth-first walk
 * of the call tree that stops when it has made the rows asked for and
 * resumes from its stack of half-visited levels when more are asked.
 */
#include "stack_rows.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static _Thread_local const struct calltree *sort_tree;

/* Display order among siblings, as calltree__flatten: hottest, then by address, user first. */
static int cmp_hot(const void *a, const void *b)
{
	return calltree__cmp(sort_tree, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* Descends into node i: its children (built now if need be), sorted, become the next level. */
static void push(struct stack_rows *s, uint32_t i)
{
	struct stack_rows_level *l;
	size_t k = 0;
	uint32_t c;

	calltree__expand(s->tree, i);
	xgrow((void **)&s->levels, &s->cap_levels, s->depth + 1, sizeof(*s->levels));
	l = &s->levels[s->depth++];
	l->nr = calltree__node(s->tree, i)->nr_children;
	l->at = 0;
	l->kids = xmalloc((l->nr ? l->nr : 1) * sizeof(*l->kids));
	for (c = calltree__node(s->tree, i)->first_child; c != CALLTREE_NONE && k < l->nr;
	     c = calltree__node(s->tree, c)->next_sibling)
		l->kids[k++] = c;
	l->nr = k;
	sort_tree = s->tree;
	qsort(l->kids, l->nr, sizeof(*l->kids), cmp_hot);
}

void stack_rows_release(struct stack_rows *s)
{
	for (size_t d = 0; d < s->depth; d++)
		free(s->levels[d].kids);
	free(s->levels);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

void stack_rows_reset(struct stack_rows *s, struct calltree *tree, stack_rows_open_fn open,
		      void *ctx)
{
	stack_rows_release(s);
	s->tree = tree;
	s->open = open;
	s->ctx = ctx;
	s->done = !tree;
	if (tree)
		push(s, CALLTREE_ROOT);
}

size_t stack_rows_fill(struct stack_rows *s, size_t want)
{
	while (s->nr < want && !s->done) {
		struct stack_rows_level *l;
		const struct calltree_node *n;
		uint32_t c;

		if (!s->depth) {
			s->done = true;
			break;
		}
		l = &s->levels[s->depth - 1];
		if (l->at == l->nr) {
			free(l->kids);
			s->depth--;
			continue;
		}
		c = l->kids[l->at++];
		xgrow((void **)&s->rows, &s->cap, s->nr + 1, sizeof(*s->rows));
		s->rows[s->nr++] = c;
		n = calltree__node(s->tree, c);
		if (n->nr_children && s->open(s->ctx, n))
			push(s, c);
	}
	return s->nr;
}

size_t stack_rows_find(struct stack_rows *s, uint64_t path)
{
	size_t i = 0;

	for (;;) {
		for (; i < s->nr; i++)
			if (calltree__node(s->tree, s->rows[i])->path == path)
				return i;
		if (s->done || stack_rows_fill(s, s->nr + 1024) == i)
			return SIZE_MAX;
	}
}
