// SPDX-License-Identifier: GPL-2.0-only
/*
 * The merged call tree (see calltree.h), built lazily. The stack pairs sit
 * in one permutation array; every node owns a contiguous range of it (the
 * pairs whose path passes through the node). Expanding a node groups its
 * range by the function of the frame at the node's depth (or, at the root,
 * by process), with a hash map from function to child, and reorders the
 * range so each child's pairs are contiguous in turn. Work is proportional
 * to the pairs under the nodes shown; a frame's function is asked of the
 * namer once per (process, address, level) and kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "hash.h"
#include "threadtop/frame_namer.h"
#include "u64map.h"
#include "util.h"

struct pair {
	const struct tt_stack *us, *ks;
	uint64_t samples, weight; /* weight: model_stack_count_weight */
	uint16_t un, kn;	  /* frames of each stack (kernel: less the tracer's, from k0) */
	uint16_t k0;		  /* leaf-side kernel frames of threadtop's tracing left out */
	/* Where the walk down the path is: the frame at depth `depth` is stack
	 * frame `at` (user frames, then kernel ones), inlined level `level` of
	 * its nr_inlined. Nodes are expanded parent first, so each pair is
	 * asked for depth 0, 1, 2, ... in turn. */
	uint16_t depth, at;
	uint8_t level, nr_inlined;
	uint32_t pid;
	uint64_t proc_key; /* the process node it falls in: pid, or its comm's hash */
};

struct calltree {
	const struct model *m; /* to ask the frame namer for inlined functions */
	bool inline_frames;    /* the model has a namer: frames may expand */
	unsigned flags;	       /* CALLTREE_* */
	struct u64map *funcs;  /* (pid, address, level) -> function identity, asked so far */
	const struct model_stack_count *input; /* the pairs given, while calltree__new runs */
	struct calltree_node *nodes;
	size_t nr, cap;
	struct u64map *index; /* path -> index + 1, of the nodes made */
	struct pair *pairs;
	uint32_t *perm; /* pair indexes; each node owns [begin, end) */
	size_t nr_pairs;
};

static uint64_t mix(uint64_t h)
{
	/* splitmix64 finalizer */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

static uint64_t path_hash(uint64_t parent, uint64_t ip, bool kernel)
{
	uint64_t h = mix(parent ^ (ip + (kernel ? 0x9e3779b97f4a7c15ull : 0x632be59bd9b4e019ull)));

	return h ? h : 1;
}

/* FNV-1a of a string, folded into h. */
static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h * 0x100000001b3ull; /* the terminator: "ab" + "c" is not "a" + "bc" */
}

/* Stack frame i (0 = outermost) of a pair: user frames, then kernel frames. */
static bool stack_frame(const struct pair *p, unsigned i, uint64_t *ip, bool *kernel)
{
	if (i < p->un) {
		*ip = p->us->ips[p->un - 1 - i];
		*kernel = p->us->flags & TT_STACK_KERNEL;
		return true;
	}
	i -= p->un;
	if (i < p->kn) {
		*ip = p->ks->ips[p->k0 + p->kn - 1 - i];
		*kernel = p->ks->flags & TT_STACK_KERNEL;
		return true;
	}
	return false;
}

/* How many functions are inlined at stack frame i of p (0 without a namer). */
static uint8_t inlined_at(const struct calltree *t, const struct pair *p, unsigned i)
{
	struct frame_name fn;
	uint64_t ip;
	bool kernel;

	if (!t->inline_frames || !stack_frame(p, i, &ip, &kernel) || kernel)
		return 0;
	model__frame_name(t->m, p->us ? p->us->pid : 0, ip, false, &fn);
	return fn.inlined ? (uint8_t)(fn.nr_inlined < 255 ? fn.nr_inlined : 255) : 0;
}

/* Moves p's walk to depth d (one step when asked in order, as expansion does). */
static bool walk_to(const struct calltree *t, struct pair *p, unsigned d)
{
	if (d < p->depth || p->depth == UINT16_MAX) { /* out of order: from the start */
		p->depth = 0;
		p->at = 0;
		p->level = 0;
		p->nr_inlined = inlined_at(t, p, 0);
	}
	while (p->depth < d) {
		if (p->level < p->nr_inlined) {
			p->level++;
		} else {
			p->at++;
			p->level = 0;
			p->nr_inlined = inlined_at(t, p, p->at);
		}
		p->depth++;
	}
	return p->at < (unsigned)p->un + p->kn;
}

/* Frame d (0 = outermost) of a pair's path, inlined functions expanded. */
static bool frame_at(const struct calltree *t, struct pair *p, unsigned d, uint64_t *ip,
		     bool *kernel, uint8_t *level)
{
	if (!walk_to(t, p, d))
		return false;
	*level = p->level;
	return stack_frame(p, p->at, ip, kernel);
}

/* Whether p's path goes on after its frame at depth d (the last one asked). */
static bool more_after(const struct pair *p)
{
	return p->level < p->nr_inlined || p->at + 1u < (unsigned)p->un + p->kn;
}

/* The identity of a frame by address: its address and inlined level (no namer). */
static uint64_t frame_key(uint64_t ip, uint8_t level)
{
	return ip ^ ((uint64_t)level << 56);
}

/*
 * The identity of a frame in a path: its function (model__frame_function),
 * asked once per (process, address, level); the kernel bit is mixed in by
 * path_hash. Without a namer, the address and level.
 */
static uint64_t frame_identity(struct calltree *t, uint32_t pid, uint64_t ip, bool kernel,
			       uint8_t level)
{
	uint64_t key, id;

	if (!t->inline_frames)
		return frame_key(ip, level);
	key = mix(frame_key(ip, level) ^ mix(kernel ? 0x51ed27ull : (uint64_t)pid + 1));
	id = (uint64_t)(uintptr_t)u64map__get(t->funcs, key);
	if (id)
		return id;
	id = model__frame_function(t->m, kernel ? 0 : pid, ip, kernel, level);
	if (!id)
		id = 1; /* 0 means "not asked yet" in the map */
	u64map__put(t->funcs, key, (void *)(uintptr_t)id);
	return id;
}

static uint32_t add_node(struct calltree *t, uint32_t parent, uint64_t ip, bool kernel,
			 uint8_t inlined, uint64_t path)
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
	n->inlined = inlined;
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

/* The group a pair falls in under a node: its next frame or process (0 = the path ends). */
struct slot {
	uint64_t ip, id; /* id: frame_identity, or the process key */
	uint32_t first;	 /* the first pair in it */
	bool kernel;
	uint8_t level;
	uint32_t child; /* node index, CALLTREE_NONE for the pairs that end here */
	uint32_t count, at;
};

/* Process node c, made from the pairs of pair `first`'s process. */
static void name_process(struct calltree *t, uint32_t c, uint32_t first)
{
	struct calltree_node *n = &t->nodes[c];

	n->process = true;
	n->pid = t->flags & CALLTREE_MERGE_COMM ? 0 : t->pairs[first].pid;
	/* The root's children are made while calltree__new still has its input. */
	if (t->input)
		memcpy(n->comm, t->input[first].comm, sizeof(n->comm));
	n->comm[sizeof(n->comm) - 1] = '\0';
}

void calltree__expand(struct calltree *t, uint32_t i)
{
	struct calltree_node *n = &t->nodes[i];
	uint32_t begin = n->begin, end = n->end, depth = n->depth;
	/* The root's children are processes (CALLTREE_PROCESSES); frames start below them. */
	bool by_process = (t->flags & CALLTREE_PROCESSES) && i == CALLTREE_ROOT;
	struct u64map *groups;
	struct slot *slots = NULL;
	uint32_t *slot_of, *out;
	size_t nr_slots = 0, cap_slots = 0;

	if (n->built)
		return;
	n->built = true;
	n->nr_children = 0;
	if (begin == end)
		return;
	if (t->flags & CALLTREE_PROCESSES && !by_process)
		depth--;
	groups = u64map__new();
	slot_of = xmalloc((end - begin) * sizeof(*slot_of));
	/* Slot 0: the pairs whose path ends at this node. */
	xgrow((void **)&slots, &cap_slots, 1, sizeof(*slots));
	slots[nr_slots++] = (struct slot){.child = CALLTREE_NONE};
	for (uint32_t k = begin; k < end; k++) {
		struct pair *p = &t->pairs[t->perm[k]];
		uint64_t ip, key;
		uint8_t level;
		bool kernel;
		size_t s = 0;

		if (by_process ? p->un || p->kn : frame_at(t, p, depth, &ip, &kernel, &level)) {
			uint64_t id = by_process ? p->proc_key
						 : frame_identity(t, p->us ? p->us->pid : p->pid,
								  ip, kernel, level);

			if (by_process) {
				ip = 0;
				kernel = false;
				level = 0;
			}
			key = path_hash(by_process ? 0x7072 : 0, id, kernel);
			s = (size_t)(uintptr_t)u64map__get(groups, key);
			if (!s) {
				xgrow((void **)&slots, &cap_slots, nr_slots + 1, sizeof(*slots));
				slots[nr_slots] = (struct slot){.ip = ip,
								.id = id,
								.first = t->perm[k],
								.kernel = kernel,
								.level = level};
				s = nr_slots++;
				u64map__put(groups, key, (void *)(uintptr_t)s);
			}
		}
		slot_of[k - begin] = (uint32_t)s;
		slots[s].count++;
	}
	/* Counting sort of the range by slot: each child's pairs contiguous. */
	out = xmalloc((end - begin) * sizeof(*out));
	for (size_t s = 0, at = 0; s < nr_slots; s++) {
		slots[s].at = (uint32_t)at;
		at += slots[s].count;
	}
	for (uint32_t k = begin; k < end; k++)
		out[slots[slot_of[k - begin]].at++] = t->perm[k];
	memcpy(&t->perm[begin], out, (end - begin) * sizeof(*out));
	free(out);
	free(slot_of);

	/* Children: the node array may move, so work by index. */
	for (size_t s = 0, at = begin; s < nr_slots; s++) {
		uint32_t c_begin = (uint32_t)at, c_end = (uint32_t)(at + slots[s].count);
		uint64_t total = 0, self = 0, total_w = 0, self_w = 0;
		bool more = false;
		uint32_t c;

		at = c_end;
		if (!s)
			continue;
		for (uint32_t k = c_begin; k < c_end; k++) {
			const struct pair *p = &t->pairs[t->perm[k]];

			total += p->samples;
			total_w += p->weight;
			if (by_process || more_after(p)) {
				more = true;
			} else {
				self += p->samples;
				self_w += p->weight;
			}
		}
		c = add_node(t, i, slots[s].ip, slots[s].kernel, slots[s].level,
			     path_hash(t->nodes[i].path, slots[s].id, slots[s].kernel));
		if (by_process)
			name_process(t, c, slots[s].first);
		t->nodes[c].begin = c_begin;
		t->nodes[c].end = c_end;
		t->nodes[c].total = total;
		t->nodes[c].self = self;
		t->nodes[c].total_weight = total_w;
		t->nodes[c].self_weight = self_w;
		t->nodes[c].nr_children = more ? 1 : 0;
		t->nodes[c].built = !more;
	}
	free(slots);
	u64map__free(groups);
}

/* Whether the leaf-side kernel frame of p (after those left out) is threadtop's tracing. */
static bool leaf_is_tracer(const struct model *m, const struct pair *p)
{
	struct frame_name fn;

	model__frame_name(m, 0, p->ks->ips[p->k0], true, &fn);
	return model__frame_is_tracer(fn.name);
}

struct calltree *calltree__new(const struct model *m, const struct model_stack_count *pairs,
			       size_t nr)
{
	return calltree__new_flags(m, pairs, nr, 0);
}

struct calltree *calltree__new_flags(const struct model *m, const struct model_stack_count *pairs,
				     size_t nr, unsigned flags)
{
	struct calltree *t = xcalloc(1, sizeof(*t));
	struct calltree_node *root;
	uint64_t total = 0, self = 0, total_w = 0, self_w = 0;

	t->m = m;
	t->inline_frames = model__frame_namer(m) != NULL;
	t->flags = flags;
	t->input = pairs;
	t->funcs = u64map__new();
	t->index = u64map__new();
	t->pairs = xcalloc(nr ? nr : 1, sizeof(*t->pairs));
	t->perm = xcalloc(nr ? nr : 1, sizeof(*t->perm));
	for (size_t i = 0; i < nr; i++) {
		struct pair *p = &t->pairs[t->nr_pairs];

		p->us = model__stack(m, pairs[i].ustack_id);
		p->ks = model__stack(m, pairs[i].kstack_id);
		p->un = p->us ? p->us->nr : 0;
		p->kn = p->ks ? p->ks->nr : 0;
		/* As the profile does (profile.c): no frames of our own tracer at the leaf. */
		while (t->inline_frames && p->kn > 1 && leaf_is_tracer(m, p)) {
			p->k0++;
			p->kn--;
		}
		p->samples = pairs[i].samples;
		p->weight = model_stack_count_weight(&pairs[i]);
		p->pid = pairs[i].pid;
		p->proc_key = flags & CALLTREE_MERGE_COMM
				      ? str_hash(0xcbf29ce484222325ull, pairs[i].comm) | 1ull << 63
				      : pairs[i].pid;
		p->depth = UINT16_MAX; /* not walked yet */
		total += p->samples;
		total_w += p->weight;
		if (!p->un && !p->kn) { /* unknown stacks count at the root */
			self += p->samples;
			self_w += p->weight;
		}
		t->perm[t->nr_pairs] = (uint32_t)t->nr_pairs;
		t->nr_pairs++;
	}
	add_node(t, CALLTREE_NONE, 0, false, 0, 0);
	root = &t->nodes[CALLTREE_ROOT];
	root->total = total;
	root->self = self;
	root->total_weight = total_w;
	root->self_weight = self_w;
	root->begin = 0;
	root->end = (uint32_t)t->nr_pairs;
	calltree__expand(t, CALLTREE_ROOT);
	t->input = NULL;
	return t;
}

void calltree__free(struct calltree *t)
{
	if (!t)
		return;
	u64map__free(t->index);
	u64map__free(t->funcs);
	free(t->nodes);
	free(t->pairs);
	free(t->perm);
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

	if (x->total_weight != y->total_weight)
		return x->total_weight < y->total_weight ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	if (x->inlined != y->inlined)
		return x->inlined < y->inlined ? -1 : 1;
	if (x->kernel != y->kernel)
		return x->kernel ? 1 : -1;
	if (x->pid != y->pid) /* processes of equal weight: by pid, then name */
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

/* The children of node i, hottest first, into a new array; returns the count. */
static size_t sorted_children(struct calltree *t, uint32_t i, uint32_t **ret)
{
	uint32_t *kids;
	size_t k = 0;

	calltree__expand(t, i);
	kids = xmalloc((t->nodes[i].nr_children ? t->nodes[i].nr_children : 1) * sizeof(*kids));
	for (uint32_t c = t->nodes[i].first_child; c != CALLTREE_NONE; c = t->nodes[c].next_sibling)
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

static void flatten(struct calltree *t, uint32_t i,
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

size_t calltree__flatten(struct calltree *t,
			 bool (*expanded)(void *ctx, const struct calltree_node *n), void *ctx,
			 uint32_t **ret)
{
	struct flat f = {0};

	flatten(t, CALLTREE_ROOT, expanded, ctx, &f);
	*ret = f.out;
	return f.nr;
}

size_t calltree__hot_path(struct calltree *t, uint32_t *out, size_t cap)
{
	uint32_t at = CALLTREE_ROOT;
	size_t k = 0;

	while (k < cap) {
		uint32_t best = CALLTREE_NONE;

		calltree__expand(t, at);
		sort_tree = t;
		for (uint32_t c = t->nodes[at].first_child; c != CALLTREE_NONE;
		     c = t->nodes[c].next_sibling)
			if (best == CALLTREE_NONE || cmp_hot(&c, &best) < 0)
				best = c;
		if (best == CALLTREE_NONE)
			break;
		out[k++] = best;
		at = best;
	}
	return k;
}

int calltree__cmp(const struct calltree *t, uint32_t a, uint32_t b)
{
	sort_tree = t;
	return cmp_hot(&a, &b);
}

bool calltree__is_last(const struct calltree *t, uint32_t i)
{
	const struct calltree_node *n = &t->nodes[i];

	if (n->parent == CALLTREE_NONE)
		return true;
	sort_tree = t;
	for (uint32_t c = t->nodes[n->parent].first_child; c != CALLTREE_NONE;
	     c = t->nodes[c].next_sibling) {
		if (c != i && cmp_hot(&i, &c) < 0) /* i is shown before sibling c */
			return false;
	}
	return true;
}

uint32_t calltree__node_pid(const struct calltree *t, uint32_t i)
{
	const struct calltree_node *n;
	const struct pair *p;

	if (!t || i >= t->nr)
		return 0;
	n = &t->nodes[i];
	if (n->process)
		return n->pid;
	if (n->kernel || n->begin >= n->end)
		return 0;
	p = &t->pairs[t->perm[n->begin]];
	return p->us ? p->us->pid : 0;
}
