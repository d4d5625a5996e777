/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one hash of threadtop's dictionaries and dedup keys: 64-bit FNV-1a,
 * over bytes (strings, record payloads) or over whole 64-bit words (frame
 * addresses, ids: one step per word, which mixes less than per byte but
 * costs an eighth). Start from HASH_INIT, or from HASH_INIT ^ a value that
 * separates key spaces (a pid). Not for anything an attacker can aim at
 * that needs more than bounded probing: every table using it bounds its
 * chains or its size.
 */
#ifndef THREADTOP_HASH_H
#define THREADTOP_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_INIT 0xcbf29ce484222325ull /* FNV-1a offset basis */
#define HASH_PRIME 0x100000001b3ull	/* FNV-1a 64-bit prime */

/* One step over a whole word. */
static inline uint64_t hash_word(uint64_t h, uint64_t v)
{
	return (h ^ v) * HASH_PRIME;
}

/* FNV-1a over n bytes. */
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * HASH_PRIME;
	return h;
}

#endif /* THREADTOP_HASH_H */
