/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * String interning for sources: gives each distinct string a small id so
 * that events carry ids and each string travels once as a TT_EV_STRING.
 */
#ifndef THREADTOP_STRTAB_H
#define THREADTOP_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab *strtab__new(void);
void strtab__free(struct strtab *tab);
/*
 * The id of s (len bytes, truncated to TT_MAX_STRING_LEN), interning it when
 * new; *ret_new says whether it was. Ids start at 1 (0 means "no string"),
 * as TT_STRING_ID_BASE; 0 too once TT_STRING_ID_LAST strings are in.
 */
uint32_t strtab__intern(struct strtab *tab, const char *s, size_t len, bool *ret_new);
/* The string of id, NUL-terminated, owned by the table; NULL when unknown. */
const char *strtab__get(const struct strtab *tab, uint32_t id, size_t *ret_len);

/*
 * Tables that forget (the sources'): strtab__intern_at is strtab__intern
 * noting the time of the use; strtab__touch notes a use of id by a caller
 * that kept it (false when id is not in the table: forgotten, or never);
 * strtab__evict forgets every string last used before before_ns, calling
 * gone for each id first. An evicted id is never given out again: the same
 * text comes back under a new one. Returns how many went.
 */
uint32_t strtab__intern_at(struct strtab *tab, const char *s, size_t len, uint64_t now_ns,
			   bool *ret_new);
bool strtab__touch(struct strtab *tab, uint32_t id, uint64_t now_ns);
size_t strtab__evict(struct strtab *tab, uint64_t before_ns, void (*gone)(void *arg, uint32_t id),
		     void *arg);
/* Strings in the table now. */
size_t strtab__count(const struct strtab *tab);

#endif /* THREADTOP_STRTAB_H */
