// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fixed-size objects in 2 MB aligned chunks (see slab.h). A chunk's first
 * 64 bytes hold its index, so an object finds its chunk by masking its
 * address; which slots are in use is a bitmap beside, so a walk reads only
 * the objects it returns.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "slab.h"
#include "util.h"

/*
 * Under ASan a slot is poisoned while free, as malloc's memory would be: a
 * use of a forgotten thread is still reported.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SLOT_FREE(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define SLOT_USE(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define SLOT_FREE(p, n) ((void)(p), (void)(n))
#define SLOT_USE(p, n) ((void)(p), (void)(n))
#endif

#define CHUNK_BYTES ((size_t)2 << 20)
#define CHUNK_HEAD 64
#define MAX_OBJECT (64 << 10)

struct chunk {
	char *base;	/* CHUNK_BYTES aligned; NULL = a hole (given back) */
	uint64_t *used; /* a bit per slot */
	uint32_t nr_used;
};

struct slab {
	size_t size;	  /* of an object, a multiple of 64 */
	size_t per_chunk; /* objects a chunk holds */
	struct chunk *chunks;
	size_t nr_chunks, cap_chunks;
	size_t first_free; /* no chunk below it has a free slot */
	size_t count;
	size_t empty; /* chunks mapped with no object in them: one at most is kept */
};

struct slab *slab__new(size_t size)
{
	struct slab *s;

	if (!size || size > MAX_OBJECT) {
		fprintf(stderr, "slab__new: object size %zu is out of 1..%d\n", size, MAX_OBJECT);
		abort();
	}
	s = xcalloc(1, sizeof(*s));
	s->size = (size + 63) & ~(size_t)63;
	s->per_chunk = (CHUNK_BYTES - CHUNK_HEAD) / s->size;
	return s;
}

static char *chunk_map(void)
{
	/* Twice the size, then the unaligned ends unmapped: an aligned chunk. */
	char *p = mmap(NULL, 2 * CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED) {
		fprintf(stderr, "slab: out of memory for a %zu-byte chunk: %s\n", CHUNK_BYTES,
			strerror(errno));
		abort();
	}
	a = ((uintptr_t)p + CHUNK_BYTES - 1) & ~(uintptr_t)(CHUNK_BYTES - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((char *)a + CHUNK_BYTES, (uintptr_t)p + CHUNK_BYTES - a);
	/* Advice only: without transparent huge pages the chunk still works. */
	(void)madvise((void *)a, CHUNK_BYTES, MADV_HUGEPAGE);
	return (char *)a;
}

static size_t words(const struct slab *s)
{
	return (s->per_chunk + 63) / 64;
}

/* A chunk with a free slot: the lowest hole filled, or a new one. */
static size_t chunk_add(struct slab *s)
{
	size_t ci;

	for (ci = 0; ci < s->nr_chunks && s->chunks[ci].base; ci++)
		;
	if (ci == s->nr_chunks) {
		if (s->nr_chunks == s->cap_chunks) {
			s->cap_chunks = s->cap_chunks ? 2 * s->cap_chunks : 8;
			s->chunks = xrealloc(s->chunks, s->cap_chunks * sizeof(*s->chunks));
		}
		s->nr_chunks++;
	}
	s->chunks[ci].base = chunk_map();
	s->chunks[ci].used = xcalloc(words(s), sizeof(uint64_t));
	s->chunks[ci].nr_used = 0;
	s->empty++;
	memcpy(s->chunks[ci].base, &ci, sizeof(ci));
	SLOT_FREE(s->chunks[ci].base + CHUNK_HEAD, CHUNK_BYTES - CHUNK_HEAD);
	return ci;
}

void *slab__alloc(struct slab *s)
{
	size_t ci = s->first_free, w, bit;
	struct chunk *c;
	char *obj;

	while (ci < s->nr_chunks && (!s->chunks[ci].base || s->chunks[ci].nr_used == s->per_chunk))
		ci++;
	if (ci == s->nr_chunks)
		ci = chunk_add(s);
	s->first_free = ci;
	c = &s->chunks[ci];
	if (!c->nr_used)
		s->empty--;
	for (w = 0; c->used[w] == UINT64_MAX; w++)
		;
	bit = w * 64 + (size_t)__builtin_ctzll(~c->used[w]);
	c->used[w] |= (uint64_t)1 << (bit % 64);
	c->nr_used++;
	s->count++;
	obj = c->base + CHUNK_HEAD + bit * s->size;
	SLOT_USE(obj, s->size);
	memset(obj, 0, s->size);
	return obj;
}

static void chunk_drop(struct slab *s, size_t ci)
{
	SLOT_USE(s->chunks[ci].base + CHUNK_HEAD, CHUNK_BYTES - CHUNK_HEAD);
	munmap(s->chunks[ci].base, CHUNK_BYTES);
	free(s->chunks[ci].used);
	s->chunks[ci] = (struct chunk){0};
}

void slab__release(struct slab *s, void *obj)
{
	char *base = (char *)((uintptr_t)obj & ~(uintptr_t)(CHUNK_BYTES - 1));
	size_t ci, bit;
	struct chunk *c;

	if (!obj)
		return;
	memcpy(&ci, base, sizeof(ci));
	c = &s->chunks[ci];
	bit = (size_t)((char *)obj - base - CHUNK_HEAD) / s->size;
	c->used[bit / 64] &= ~((uint64_t)1 << (bit % 64));
	c->nr_used--;
	s->count--;
	SLOT_FREE(obj, s->size);
	if (ci < s->first_free)
		s->first_free = ci;
	/*
	 * An empty chunk goes back when another empty one is kept: a box whose
	 * threads come and go across a chunk's edge would otherwise map, fault
	 * in and zero 2 MB for each new thread.
	 */
	if (!c->nr_used) {
		if (s->empty)
			chunk_drop(s, ci);
		else
			s->empty++;
	}
}

/* A walk's position: the chunk in the high half, the next slot to look at in the low. */
#define POS(ci, slot) ((size_t)(ci) << 32 | (size_t)(slot))
#define POS_CHUNK(pos) ((pos) >> 32)
#define POS_SLOT(pos) ((pos)&0xffffffffu)

bool slab__next(const struct slab *s, size_t *pos, void **ret)
{
	for (;;) {
		size_t ci = POS_CHUNK(*pos), slot = POS_SLOT(*pos), w;
		const struct chunk *c;
		uint64_t bits;

		if (ci >= s->nr_chunks)
			return false;
		c = &s->chunks[ci];
		if (!c->base || !c->nr_used) {
			*pos = POS(ci + 1, 0);
			continue;
		}
		for (w = slot / 64; w < words(s); w++) {
			bits = c->used[w];
			if (w == slot / 64)
				bits &= UINT64_MAX << (slot % 64);
			if (bits) {
				slot = w * 64 + (size_t)__builtin_ctzll(bits);
				*ret = c->base + CHUNK_HEAD + slot * s->size;
				*pos = POS(ci, slot + 1);
				return true;
			}
		}
		*pos = POS(ci + 1, 0);
	}
}

const void *slab__ahead(const struct slab *s, size_t pos, size_t n)
{
	size_t ci = POS_CHUNK(pos), slot = POS_SLOT(pos) - 1 + n;

	if (!POS_SLOT(pos) || ci >= s->nr_chunks || !s->chunks[ci].base || slot >= s->per_chunk ||
	    !(s->chunks[ci].used[slot / 64] & (uint64_t)1 << (slot % 64)))
		return NULL;
	return s->chunks[ci].base + CHUNK_HEAD + slot * s->size;
}

size_t slab__count(const struct slab *s)
{
	return s->count;
}

size_t slab__bytes(const struct slab *s)
{
	size_t n = 0;

	for (size_t ci = 0; ci < s->nr_chunks; ci++)
		if (s->chunks[ci].base)
			n += CHUNK_BYTES + words(s) * sizeof(uint64_t);
	return n + s->cap_chunks * sizeof(*s->chunks) + sizeof(*s);
}

void slab__free(struct slab *s, void (*fn)(void *obj))
{
	size_t pos = 0;
	void *obj;

	if (!s)
		return;
	if (fn)
		while (slab__next(s, &pos, &obj))
			fn(obj);
	for (size_t ci = 0; ci < s->nr_chunks; ci++)
		if (s->chunks[ci].base)
			chunk_drop(s, ci);
	free(s->chunks);
	free(s);
}
