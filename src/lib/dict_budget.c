// SPDX-License-Identifier: GPL-2.0-only
/* The dictionaries' memory budget, total and per process (see dict_budget.h). */
#include <stdlib.h>

#include "dict_budget.h"
#include "u64map.h"
#include "util.h"

struct dict_budget {
	size_t total, per_proc, used;
	uint64_t refused;
	struct u64map *procs; /* pid -> bytes charged, as a uintptr_t */
};

struct dict_budget *dict_budget__new(size_t total)
{
	struct dict_budget *b = xcalloc(1, sizeof(*b));

	b->total = total < DICT_BUDGET_MIN ? DICT_BUDGET_MIN : total;
	b->per_proc = b->total / 4;
	b->procs = u64map__new();
	return b;
}

void dict_budget__free(struct dict_budget *b)
{
	if (!b)
		return;
	u64map__free(b->procs);
	free(b);
}

bool dict_budget__take(struct dict_budget *b, uint32_t pid, size_t bytes)
{
	size_t mine, cost = bytes + DICT_BUDGET_ENTRY;

	if (!b)
		return true;
	mine = (size_t)(uintptr_t)u64map__get(b->procs, pid);
	if (bytes > b->total || cost > b->total - b->used || cost > b->per_proc - mine) {
		b->refused++;
		return false;
	}
	b->used += cost;
	u64map__put(b->procs, pid, (void *)(uintptr_t)(mine + cost));
	return true;
}

void dict_budget__give(struct dict_budget *b, uint32_t pid, size_t bytes)
{
	size_t mine, cost = bytes + DICT_BUDGET_ENTRY;

	if (!b)
		return;
	mine = (size_t)(uintptr_t)u64map__get(b->procs, pid);
	cost = cost < mine ? cost : mine;
	b->used -= cost < b->used ? cost : b->used;
	if (mine == cost)
		u64map__remove(b->procs, pid);
	else
		u64map__put(b->procs, pid, (void *)(uintptr_t)(mine - cost));
}

uint64_t dict_budget__refused(const struct dict_budget *b)
{
	return b ? b->refused : 0;
}

size_t dict_budget__used(const struct dict_budget *b)
{
	return b ? b->used : 0;
}

size_t dict_budget__total(const struct dict_budget *b)
{
	return b ? b->total : 0;
}
