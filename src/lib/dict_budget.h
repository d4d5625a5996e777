/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One memory budget for every dictionary filled from outside data: strings,
 * stacks, frame names, LuaJIT names, recorded command output and trace
 * lines. Entries are charged to the process they belong to (0 when none) and
 * to the whole; past either bound a new entry is refused and counted, so that
 * a hostile recording or process (fresh ids without end) costs at most the
 * budget, not the machine.
 */
#ifndef THREADTOP_DICT_BUDGET_H
#define THREADTOP_DICT_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DICT_BUDGET_DEFAULT (48u << 20) /* bytes, all dictionaries together */
#define DICT_BUDGET_MIN (1u << 20)
/* What an entry costs beyond its bytes: map slot, allocator header, struct. */
#define DICT_BUDGET_ENTRY 64

struct dict_budget;

/*
 * A budget of total bytes (at least DICT_BUDGET_MIN), of which one process
 * may hold a quarter. Free with dict_budget__free.
 */
struct dict_budget *dict_budget__new(size_t total);
void dict_budget__free(struct dict_budget *b);

/*
 * Charges bytes (plus DICT_BUDGET_ENTRY) for a new entry of process pid.
 * Returns true when it fits; false when it would pass pid's share or the
 * total: the caller keeps nothing, and the refusal is counted. A NULL budget
 * takes everything (tests, tools).
 */
bool dict_budget__take(struct dict_budget *b, uint32_t pid, size_t bytes);
/* Gives back what dict_budget__take(b, pid, bytes) charged. NULL-safe. */
void dict_budget__give(struct dict_budget *b, uint32_t pid, size_t bytes);

/* Entries refused so far (the "dict_full" drops); 0 for NULL. */
uint64_t dict_budget__refused(const struct dict_budget *b);
/* Bytes charged now; 0 for NULL. */
size_t dict_budget__used(const struct dict_budget *b);
/* The total bound in bytes; 0 for NULL. */
size_t dict_budget__total(const struct dict_budget *b);

#endif /* THREADTOP_DICT_BUDGET_H */
