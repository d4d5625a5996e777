// SPDX-License-Identifier: GPL-2.0-only
/*
 * The merge of stack samples into (kernel stack, user stack, process)
 * entries (see model.h, struct model_stack_counts): the call tree's input,
 * made by the model's stack query and by the Stacks pane from its several
 * sources. The process is part of the identity so the tree can root each
 * process's stacks at a node of its own, as the folded export does.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util.h"

static uint64_t triple_hash(uint32_t kstack_id, uint32_t ustack_id, uint32_t pid)
{
	uint64_t h =
		((uint64_t)kstack_id << 32 | ustack_id) ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ull);

	/* splitmix64 finalizer */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/* Puts entry i (of out) at its hash's first free slot. */
static void place(struct model_stack_counts *s, size_t i)
{
	const struct model_stack_count *c = &s->out[i];
	size_t mask = s->nr_slots - 1;
	size_t at = (size_t)triple_hash(c->kstack_id, c->ustack_id, c->pid) & mask;

	while (s->slots[at])
		at = (at + 1) & mask;
	s->slots[at] = (uint32_t)i + 1;
}

/* Slots for one entry more (4,096 at least), the entries placed again: at most half full. */
static void grow(struct model_stack_counts *s)
{
	size_t n = s->nr_slots ? s->nr_slots : 4096;

	while (n < 2 * (s->nr + 1))
		n *= 2;
	free(s->slots);
	s->nr_slots = n;
	s->slots = xcalloc(s->nr_slots, sizeof(*s->slots));
	for (size_t i = 0; i < s->nr; i++)
		place(s, i);
}

void model_stack_counts__add(struct model_stack_counts *s, uint32_t kstack_id, uint32_t ustack_id,
			     uint32_t pid, const char *comm, uint64_t samples, uint64_t ns)
{
	struct model_stack_count *c;
	size_t mask, at;

	if (2 * (s->nr + 1) > s->nr_slots)
		grow(s);
	mask = s->nr_slots - 1;
	for (at = (size_t)triple_hash(kstack_id, ustack_id, pid) & mask; s->slots[at];
	     at = (at + 1) & mask) {
		c = &s->out[s->slots[at] - 1];
		if (c->kstack_id == kstack_id && c->ustack_id == ustack_id && c->pid == pid) {
			c->samples += samples;
			c->ns += ns;
			return;
		}
	}
	xgrow((void **)&s->out, &s->cap, s->nr + 1, sizeof(*s->out));
	c = &s->out[s->nr];
	memset(c, 0, sizeof(*c));
	c->kstack_id = kstack_id;
	c->ustack_id = ustack_id;
	c->pid = pid;
	c->samples = samples;
	c->ns = ns;
	/* As strncpy would, without its call and padding: the rest is zero. */
	for (size_t i = 0; comm && i < sizeof(c->comm) - 1 && comm[i]; i++)
		c->comm[i] = comm[i];
	s->slots[at] = (uint32_t)++s->nr;
}

void model_stack_counts__done(struct model_stack_counts *s)
{
	free(s->slots);
	s->slots = NULL;
	s->nr_slots = 0;
}
