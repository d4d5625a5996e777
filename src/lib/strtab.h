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

#endif /* THREADTOP_STRTAB_H */
