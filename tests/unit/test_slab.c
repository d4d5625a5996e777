// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the slab of fixed-size objects (the model's thread table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "slab.h"

/* 424 bytes, as struct thread: slots of 448, 4,681 a chunk. */
struct obj {
	uint64_t id;
	char rest[416];
};

#define N 20000

static size_t walk(const struct slab *s, uint64_t *ret_sum)
{
	size_t pos = 0, n = 0;
	uintptr_t prev = 0;
	void *o;

	*ret_sum = 0;
	while (slab__next(s, &pos, &o)) {
		/* Address order within a chunk; chunks in their own order. */
		if ((uintptr_t)o >> 21 == prev >> 21)
			assert_true((uintptr_t)o > prev);
		prev = (uintptr_t)o;
		*ret_sum += ((struct obj *)o)->id;
		n++;
	}
	return n;
}

static void alloc_walk_release(void **state)
{
	struct slab *s = slab__new(sizeof(struct obj));
	struct obj **objs = calloc(N, sizeof(*objs));
	uint64_t sum, want = 0;

	for (uint64_t i = 0; i < N; i++) {
		objs[i] = slab__alloc(s);
		assert_int_equal((uintptr_t)objs[i] % 64, 0);
		for (size_t b = 0; b < sizeof(struct obj); b++)
			assert_int_equal(((char *)objs[i])[b], 0);
		objs[i]->id = i + 1;
		memset(objs[i]->rest, 0xab, sizeof(objs[i]->rest));
		want += i + 1;
	}
	assert_int_equal(slab__count(s), N);
	assert_int_equal(walk(s, &sum), N);
	assert_int_equal(sum, want);
	/* Every other one back: the walk sees the rest, and the freed slots come back zeroed. */
	for (uint64_t i = 0; i < N; i += 2) {
		want -= objs[i]->id;
		slab__release(s, objs[i]);
	}
	assert_int_equal(walk(s, &sum), N / 2);
	assert_int_equal(sum, want);
	for (uint64_t i = 0; i < N; i += 2) {
		objs[i] = slab__alloc(s);
		assert_int_equal(objs[i]->rest[7], 0);
		objs[i]->id = 1;
	}
	assert_int_equal(walk(s, &sum), N);
	assert_int_equal(sum, want + N / 2);
	free(objs);
	slab__free(s, NULL);
}

/* Releasing the object a walk just returned: the walk goes on, and empty chunks go back. */
static void release_while_walking(void **state)
{
	struct slab *s = slab__new(sizeof(struct obj));
	size_t pos = 0, n = 0, bytes;
	void *o;

	for (int i = 0; i < N; i++)
		((struct obj *)slab__alloc(s))->id = (uint64_t)i;
	bytes = slab__bytes(s);
	while (slab__next(s, &pos, &o)) {
		n++;
		if (((struct obj *)o)->id != N / 2)
			slab__release(s, o);
	}
	assert_int_equal(n, N);
	assert_int_equal(slab__count(s), 1);
	/* Of five chunks, the one in use and one empty one are kept. */
	assert_true(slab__bytes(s) < bytes / 2);

	pos = 0;
	assert_true(slab__next(s, &pos, &o));
	assert_int_equal(((struct obj *)o)->id, N / 2);
	assert_false(slab__next(s, &pos, &o));
	slab__free(s, NULL);
}

static int freed;

static void count_free(void *o)
{
	(void)o;
	freed++;
}

static void free_calls_back(void **state)
{
	struct slab *s = slab__new(100);
	size_t pos = 0;
	void *o;

	slab__free(NULL, count_free);
	for (int i = 0; i < 10000; i++)
		slab__alloc(s);
	/* What the walk may prefetch: an object in use in the same chunk, or nothing. */
	assert_true(slab__next(s, &pos, &o));
	assert_ptr_equal(slab__ahead(s, pos, 1), (char *)o + 128);
	assert_null(slab__ahead(s, pos, 1 << 20));
	assert_null(slab__ahead(s, 0, 1));
	slab__release(s, (char *)o + 2 * 128);
	assert_null(slab__ahead(s, pos, 2));
	freed = 0;
	slab__free(s, count_free);
	assert_int_equal(freed, 9999);
}

/* A thread coming and going past a full chunk's edge keeps its chunk: no 2 MB mapped each time. */
static void chunk_edge_churn(void **state)
{
	struct slab *s = slab__new(sizeof(struct obj));
	size_t one;
	void *o;

	o = slab__alloc(s);
	one = slab__bytes(s);
	while (slab__bytes(s) == one)
		o = slab__alloc(s); /* the first object of the second chunk */
	one = slab__bytes(s);
	for (int i = 0; i < 10; i++) {
		slab__release(s, o);
		assert_int_equal(slab__bytes(s), one);
		o = slab__alloc(s);
		assert_int_equal(slab__bytes(s), one);
	}
	slab__free(s, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alloc_walk_release),
		cmocka_unit_test(release_while_walking),
		cmocka_unit_test(chunk_edge_churn),
		cmocka_unit_test(free_calls_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
