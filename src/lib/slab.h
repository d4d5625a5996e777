/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Objects of one size in 2 MB chunks (huge pages where the kernel gives
 * them), walked in address order: the model's thread table. A walk of
 * 100,000 threads scattered over malloc's heap in hash order waited on a
 * cache and TLB miss per thread, several times a second; in address order
 * the hardware prefetcher streams them. Freed slots are reused, lowest
 * chunk first; a chunk left empty goes back to the system, but one empty
 * chunk is kept for the next threads.
 */
#ifndef THREADTOP_SLAB_H
#define THREADTOP_SLAB_H

#include <stdbool.h>
#include <stddef.h>

struct slab;

/* A slab of objects of size bytes (at most 64 KB), 64-byte aligned. Aborts on no memory. */
struct slab *slab__new(size_t size);
/* Frees the slab and every object still in it, after fn (or NULL) on each. NULL-safe. */
void slab__free(struct slab *s, void (*fn)(void *obj));
/* A zeroed object; lives until slab__release or slab__free. Aborts on no memory. */
void *slab__alloc(struct slab *s);
/* Gives obj (from s) back. Allowed during a walk, for the object it just returned. */
void slab__release(struct slab *s, void *obj);
/*
 * Walks the objects in address order: start with *pos = 0; false at the
 * end. Objects allocated during a walk may or may not be seen.
 */
bool slab__next(const struct slab *s, size_t *pos, void **ret);
/*
 * The object n slots after the one slab__next last returned (pos as it
 * left it), when that slot is in the same chunk and in use; else NULL. For
 * a walk that prefetches what it will visit.
 */
const void *slab__ahead(const struct slab *s, size_t pos, size_t n);
/* Objects in use. */
size_t slab__count(const struct slab *s);
/* Bytes the chunks take. */
size_t slab__bytes(const struct slab *s);

#endif
