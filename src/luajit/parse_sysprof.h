/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sysprof stream parser behind luajit-parse-sysprof, as a function (the
 * fuzz target drives it). Not thread-safe: one parse at a time.
 */
#ifndef TT_PARSE_SYSPROF_H
#define TT_PARSE_SYSPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Parses the stream in data[0..len) (not kept) and prints its folded stacks,
 * or with states the samples per VM state, to f. Returns 0; 1 if the symbol
 * table is bad, 2 if the events are, with *ret_why (static text) and
 * *ret_offset set. Exits with status 1 only when out of memory.
 */
int tt_sysprof_parse(const uint8_t *data, size_t len, int states, FILE *f, const char **ret_why,
		     size_t *ret_offset);

#endif
