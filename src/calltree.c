// SPDX-License-Identifier: GPL-2.0-only
/*
 * The merged call tree (see calltree.h). Nodes live in one array; a hash
 * map from path hash to node index finds the child for (parent, frame) in
 * one probe, so building is linear in the frames of the distinct stacks.
 * Children are kept as unsorted lists and sorted only when shown.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "threadtop/calltree.h"
#include "threadtop/u64map.h"
#include "threadtop/util.h"

struct calltree {
	struct calltree_node *nodes;
	size_t nr, cap;
	struct u64map *index; /* path -> index + 1 */
};

static uint64_t path_hash(uint64_t parent, uint64_t ip, bool kernel)
{
	uint64_t h = parent ^ (ip + (kernel ? 0x9e3779b97f4a7c15ull : 0x632be59bd9b4e019ull));

	/* splitmix64 finalizer */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h ? h : 1;
}

static uint32_t add_node(struct calltree *t, uint32_t parent, uint64_t ip, bool kernel,
			 uint64_t path)
{
	struct calltree_node *n;
	uint32_t i;

	xgrow((void **)&t->nodes, &t->cap, t->nr + 1, sizeof(*t->nodes));
	i = (uint32_t)t->nr++;
	n = &t->nodes[i];
	memset(n, 0, sizeof(*n));
	n->ip = ip;
	n->path = path;
	n->kernel = kernel;
	n->parent = parent;
	n->first_child = CALLTREE_NONE;
	n->next_sibling = CALLTREE_NONE;
	if (parent != CALLTREE_NONE) {
		struct calltree_node *p = &t->nodes[parent];

		n->depth = (uint16_t)(p->depth + 1);
		n->next_sibling = p->first_child;
		p->first_child = i;
		p->nr_children++;
	}
	u64map__put(t->index, path, (void *)(uintptr_t)(i + 1));
	return i;
}

static uint32_t child(struct calltree *t, uint32_t parent, uint64_t ip, bool kernel)
{
	uint64_t path = path_hash(t->nodes[parent].path, ip, kernel);
	size_t idx = (size_t)(uintptr_t)u64map__get(t->index, path);

	return idx ? (uint32_t)(idx - 1) : add_node(t, parent, ip, kernel, path);
}

static uint32_t add_frames(struct calltree *t, uint32_t at, const struct tt_stack *st, uint64_t n)
{
	bool kernel = st->flags & TT_STACK_KERNEL;

	/* ips are leaf first: walk from the outermost frame inwards. */
	for (int i = (int)st->nr - 1; i >= 0; i--) {
		if (!st->ips[i])
			continue;
		at = child(t, at, st->ips[i], kernel);
		t->nodes[at].total += n;
	}
	return at;
}

/* Adds n samples to node at and every node above it (a path already built). */
static void add_up(struct calltree *t, uint32_t at, uint64_t n)
{
	for (; at != CALLTREE_ROOT && at != CALLTREE_NONE; at = t->nodes[at].parent)
		t->nodes[at].total += n;
}

struct calltree *calltree__new(const struct model *m, const struct model_stack_count *pairs,
			       size_t nr)
{
	struct calltree *t = xcalloc(1, sizeof(*t));
	/* A user stack pairs with many kernel stacks: build its path once. */
	struct u64map *user_end = u64map__new();

	t->index = u64map__new();
	add_node(t, CALLTREE_NONE, 0, false, 0);
	for (size_t i = 0; i < nr; i++) {
		const struct tt_stack *us = model__stack(m, pairs[i].ustack_id);
		const struct tt_stack *ks = model__stack(m, pairs[i].kstack_id);
		uint64_t n = pairs[i].samples;
		uint32_t at = CALLTREE_ROOT;

		t->nodes[CALLTREE_ROOT].total += n;
		if (us) {
			size_t end = (size_t)(uintptr_t)u64map__get(user_end, pairs[i].ustack_id);

			if (end) {
				at = (uint32_t)(end - 1);
				add_up(t, at, n);
			} else {
				at = add_frames(t, at, us, n);
				u64map__put(user_end, pairs[i].ustack_id,
					    (void *)(uintptr_t)(at + 1));
			}
		}
		if (ks)
			at = add_frames(t, at, ks, n);
		t->nodes[at].self += n;
	}
	u64map__free(user_end);
	return t;
}

void calltree__free(struct calltree *t)
{
	if (!t)
		return;
	u64map__free(t->index);
	free(t->nodes);
	free(t);
}

size_t calltree__count(const struct calltree *t)
{
	return t->nr;
}

const struct calltree_node *calltree__node(const struct calltree *t, uint32_t i)
{
	return i < t->nr ? &t->nodes[i] : NULL;
}

uint32_t calltree__find(const struct calltree *t, uint64_t path)
{
	size_t idx = path ? (size_t)(uintptr_t)u64map__get(t->index, path) : 1;

	return idx ? (uint32_t)(idx - 1) : CALLTREE_NONE;
}

static _Thread_local const struct calltree *sort_tree;

static int cmp_hot(const void *a, const void *b)
{
	const struct calltree_node *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct calltree_node *y = &sort_tree->nodes[*(const uint32_t *)b];

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return (x->ip > y->ip) - (x->ip < y->ip);
}

/* The children of node i, hottest first, into a new array; returns the count. */
static size_t sorted_children(const struct calltree *t, uint32_t i, uint32_t **ret)
{
	const struct calltree_node *n = &t->nodes[i];
	uint32_t *kids = xmalloc((n->nr_children ? n->nr_children : 1) * sizeof(*kids));
	size_t k = 0;

	for (uint32_t c = n->first_child; c != CALLTREE_NONE; c = t->nodes[c].next_sibling)
		kids[k++] = c;
	sort_tree = t;
	qsort(kids, k, sizeof(*kids), cmp_hot);
	*ret = kids;
	return k;
}

struct flat {
	uint32_t *out;
	size_t nr, cap;
};

static void flatten(const struct calltree *t, uint32_t i,
		    bool (*expanded)(void *ctx, const struct calltree_node *n), void *ctx,
		    struct flat *f)
{
	uint32_t *kids;
	size_t k = sorted_children(t, i, &kids);

	for (size_t j = 0; j < k; j++) {
		xgrow((void **)&f->out, &f->cap, f->nr + 1, sizeof(*f->out));
		f->out[f->nr++] = kids[j];
		if (t->nodes[kids[j]].nr_children && expanded(ctx, &t->nodes[kids[j]]))
			flatten(t, kids[j], expanded, ctx, f);
	}
	free(kids);
}

size_t calltree__flatten(const struct calltree *t,
			 bool (*expanded)(void *ctx, const struct calltree_node *n), void *ctx,
			 uint32_t **ret)
{
	struct flat f = {0};

	flatten(t, CALLTREE_ROOT, expanded, ctx, &f);
	*ret = f.out;
	return f.nr;
}

size_t calltree__hot_path(const struct calltree *t, uint32_t *out, size_t cap)
{
	uint32_t at = CALLTREE_ROOT;
	size_t k = 0;

	sort_tree = t;
	while (k < cap && t->nodes[at].first_child != CALLTREE_NONE) {
		uint32_t best = CALLTREE_NONE;

		for (uint32_t c = t->nodes[at].first_child; c != CALLTREE_NONE;
		     c = t->nodes[c].next_sibling) {
			if (best == CALLTREE_NONE || cmp_hot(&c, &best) < 0)
				best = c;
		}
		out[k++] = best;
		at = best;
	}
	return k;
}

bool calltree__is_last(const struct calltree *t, uint32_t i)
{
	const struct calltree_node *n = &t->nodes[i];

	if (n->parent == CALLTREE_NONE)
		return true;
	for (uint32_t c = t->nodes[n->parent].first_child; c != CALLTREE_NONE;
	     c = t->nodes[c].next_sibling) {
		if (c == i)
			continue;
		sort_tree = t;
		if (cmp_hot(&i, &c) < 0) /* i is shown before sibling c */
			return false;
	}
	return true;
}
