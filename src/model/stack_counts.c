// SPDX-License-Identifier: GPL-2.0-only
/*
 * The merge of stack samples into (kernel stack, user stack, process)
 * entries (see model.h, struct model_stack_counts): the call tree's input,
 * made by the model's stack query and by the Stacks pane from its several
 * sources. The process is part of the identity so the tree can root each
 * process's stacks at a node of its own, as the folded export does.
 */
#include <string.h>

#include "model.h"
#include "u64map.h"
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

void model_stack_counts__add(struct model_stack_counts *s, uint32_t kstack_id, uint32_t ustack_id,
			     uint32_t pid, const char *comm, uint64_t samples, uint64_t ns)
{
	uint64_t key = triple_hash(kstack_id, ustack_id, pid);
	struct model_stack_count *c;
	size_t idx;

	if (!s->index)
		s->index = u64map__new();
	/* Open addressing over the hash: a key taken by another triple moves on by one. */
	for (;; key++) {
		idx = (size_t)(uintptr_t)u64map__get(s->index, key);
		if (!idx)
			break;
		c = &s->out[idx - 1];
		if (c->kstack_id == kstack_id && c->ustack_id == ustack_id && c->pid == pid) {
			c->samples += samples;
			c->ns += ns;
			return;
		}
	}
	xgrow((void **)&s->out, &s->cap, s->nr + 1, sizeof(*s->out));
	c = &s->out[s->nr++];
	memset(c, 0, sizeof(*c));
	c->kstack_id = kstack_id;
	c->ustack_id = ustack_id;
	c->pid = pid;
	c->samples = samples;
	c->ns = ns;
	if (comm)
		strncpy(c->comm, comm, sizeof(c->comm) - 1);
	u64map__put(s->index, key, (void *)(uintptr_t)s->nr);
}

void model_stack_counts__done(struct model_stack_counts *s)
{
	u64map__free(s->index);
	s->index = NULL;
}
