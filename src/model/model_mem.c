// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the model holds, structure by structure (see model.h, model__mem):
 * the figures behind issue 21's "memory is flat", read by the app's memory
 * log and by the tests that check that what exited ages out.
 */
#include <string.h>

#include "model_internal.h"

void model__mem(const struct model *m, struct model_mem *ret)
{
	struct u64map *pids = u64map__new();
	const struct tt_stack *st;
	struct thread *t;
	const char *s;
	uint64_t key;
	size_t pos = 0;

	memset(ret, 0, sizeof(*ret));
	ret->thread_bytes = u64map__bytes(m->threads) + slab__bytes(m->thread_slab);
	while (model_thread_next(m, &pos, &t)) {
		ret->threads++;
		if (t->last_seen_ns < m->last_tick_ns)
			ret->exited++;
		ret->keys += t->nr_keys;
		ret->thread_bytes += (t->keys == &t->key0 ? 0 : t->cap_keys) *
					     (sizeof(*t->keys) + sizeof(*t->key_rings)) +
				     trace_thread_bytes(t->trace);
		u64map__put(pids, t->pid, (void *)1);
	}
	ret->thread_bytes += model_io_bytes(m); /* traced data too, kept apart from threads */
	ret->stack_bytes = u64map__bytes(m->stacks);
	pos = 0;
	while (u64map__next(m->stacks, &pos, &key, (void **)&st)) {
		ret->stacks++;
		ret->stack_bytes += st->hdr.size;
		if (!st->pid)
			continue;
		ret->user_stacks++;
		if (!u64map__get(pids, st->pid))
			ret->dead_stacks++;
	}
	ret->string_bytes = u64map__bytes(m->strings);
	pos = 0;
	while (u64map__next(m->strings, &pos, &key, (void **)&s)) {
		ret->strings++;
		ret->string_bytes += strlen(s) + 1;
	}
	ret->procs = m->procs ? u64map__count(m->procs) : 0;
	ret->stacks_aged = m->stacks_aged;
	ret->strings_aged = m->strings_aged;
	u64map__free(pids);
}
