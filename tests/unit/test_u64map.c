// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the u64 hash map and the string table built on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strtab.h"
#include "u64map.h"

#define N 20000

static void *val(uint64_t k)
{
	return (void *)(uintptr_t)(k * 2 + 1);
}

static void put_get_remove(void **state)
{
	struct u64map *m = u64map__new();

	for (uint64_t k = 0; k < N; k++)
		assert_null(u64map__put(m, k * 7, val(k)));
	assert_int_equal(u64map__count(m), N);
	for (uint64_t k = 0; k < N; k++)
		assert_ptr_equal(u64map__get(m, k * 7), val(k));
	assert_null(u64map__get(m, 3));
	assert_ptr_equal(u64map__put(m, 7, val(99)), val(1));
	for (uint64_t k = 0; k < N; k += 2)
		assert_non_null(u64map__remove(m, k * 7));
	assert_null(u64map__remove(m, 0));
	assert_int_equal(u64map__count(m), N / 2);
	for (uint64_t k = 3; k < N; k += 2)
		assert_ptr_equal(u64map__get(m, k * 7), val(k));
	u64map__free(m);
}

static void remove_while_iterating(void **state)
{
	struct u64map *m = u64map__new();
	unsigned char *seen = calloc(N, 1);
	uint64_t key;
	void *v;
	size_t pos = 0, kept = 0;

	for (uint64_t k = 0; k < N; k++)
		u64map__put(m, k, val(k));
	while (u64map__next(m, &pos, &key, &v)) {
		assert_ptr_equal(v, val(key));
		seen[key] = 1;
		if (key % 3)
			u64map__remove_at(m, &pos);
	}
	for (uint64_t k = 0; k < N; k++)
		assert_int_equal(seen[k], 1); /* none skipped */
	pos = 0;
	while (u64map__next(m, &pos, &key, &v)) {
		assert_int_equal(key % 3, 0);
		kept++;
	}
	assert_int_equal(kept, u64map__count(m));
	assert_int_equal(kept, (N + 2) / 3);
	free(seen);
	u64map__free(m);
}

/* A cache entry for the expire and free_all tests: the round it was last used in. */
struct entry {
	uint64_t key, round;
};

static unsigned char *freed; /* freed[key]: times free_entry freed it */

static void free_entry(void *value)
{
	struct entry *e = value;

	freed[e->key]++;
	free(e);
}

static uint64_t entry_round(const void *value)
{
	return ((const struct entry *)value)->round;
}

static struct u64map *entries(uint64_t (*round_of)(uint64_t key))
{
	struct u64map *m = u64map__new();

	for (uint64_t k = 0; k < N; k++) {
		struct entry *e = malloc(sizeof(*e));

		*e = (struct entry){k, round_of(k)};
		u64map__put(m, k, e);
	}
	return m;
}

/* Rounds 0..9 spread over the keys. */
static uint64_t round_by_key(uint64_t key)
{
	return key % 10;
}

static void free_all_values(void **state)
{
	struct u64map *m = entries(round_by_key);

	freed = calloc(N, 1);
	u64map__free_all(m, free_entry);
	for (uint64_t k = 0; k < N; k++)
		assert_int_equal(freed[k], 1);
	u64map__free_all(NULL, free_entry); /* NULL-safe */
	free(freed);
}

static void expire_idle_entries(void **state)
{
	struct u64map *m = entries(round_by_key);
	struct entry *e;
	size_t pos = 0;
	uint64_t key;

	freed = calloc(N, 1);
	/* At round 10, idle for more than 3 rounds: last used in rounds 0..6. */
	assert_int_equal(u64map__expire(m, 10, 3, entry_round, free_entry), N / 10 * 7);
	assert_int_equal(u64map__count(m), N / 10 * 3);
	for (uint64_t k = 0; k < N; k++)
		assert_int_equal(freed[k], k % 10 < 7); /* each freed once, none skipped */
	while (u64map__next(m, &pos, &key, (void **)&e)) {
		assert_int_equal(e->key, key);
		assert_true(e->round >= 7);
	}
	/* Nothing is idle long enough: nothing goes. */
	assert_int_equal(u64map__expire(m, 10, 3, entry_round, free_entry), 0);
	/* Idle 0 rounds: only the entries used in round 9 stay. */
	assert_int_equal(u64map__expire(m, 9, 0, entry_round, free_entry), N / 10 * 2);
	assert_int_equal(u64map__count(m), N / 10);
	u64map__free_all(m, free_entry);
	for (uint64_t k = 0; k < N; k++)
		assert_int_equal(freed[k], 1);
	free(freed);
}

/* Rounds in key order: key k was last used in round k. */
static uint64_t round_is_key(uint64_t key)
{
	return key;
}

static void trim_to_bound(void **state)
{
	struct u64map *m = entries(round_is_key);

	(void)state;
	freed = calloc(N, 1);
	/* Within the bound nothing goes; past it, the ones used longest ago. */
	assert_int_equal(u64map__trim(m, N, entry_round, free_entry), 0);
	assert_int_equal(u64map__trim(m, N - 50, entry_round, free_entry), 50);
	assert_int_equal(u64map__count(m), N - 50);
	for (uint64_t k = 0; k < N; k++)
		assert_int_equal(freed[k], k < 50);
	u64map__free_all(m, free_entry);
	free(freed);
}

static void strings(void **state)
{
	struct strtab *t = strtab__new();
	bool is_new;
	size_t len;
	char big[5000];

	assert_int_equal(strtab__intern(t, "abc", 3, &is_new), 1);
	assert_true(is_new);
	assert_int_equal(strtab__intern(t, "abd", 3, &is_new), 2);
	assert_int_equal(strtab__intern(t, "abc", 3, &is_new), 1);
	assert_false(is_new);
	assert_string_equal(strtab__get(t, 2, &len), "abd");
	assert_int_equal(len, 3);
	assert_null(strtab__get(t, 0, NULL));
	assert_null(strtab__get(t, 3, NULL));
	memset(big, 'x', sizeof(big));
	strtab__intern(t, big, sizeof(big), NULL);
	assert_int_equal(strlen(strtab__get(t, 3, &len)), 4096);
	strtab__free(t);
}

struct gone {
	size_t n;
	bool old; /* id 1 among them */
};

static void gone_id(void *arg, uint32_t id)
{
	struct gone *g = arg;

	g->n++;
	g->old |= id == 1;
}

/* Strings unused since a time go; their ids are never given again. */
static void strings_evicted(void **state)
{
	struct strtab *t = strtab__new();
	struct gone gone = {0};
	char name[16];
	bool is_new;

	assert_int_equal(strtab__intern_at(t, "old", 3, 10, NULL), 1);
	assert_int_equal(strtab__intern_at(t, "used", 4, 10, NULL), 2);
	assert_int_equal(strtab__intern_at(t, "kept", 4, 10, NULL), 3);
	/* Collisions share a chain: many strings, so some do. */
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		strtab__intern_at(t, name, strlen(name), i % 2 ? 10 : 30, NULL);
	}
	assert_int_equal(strtab__intern_at(t, "used", 4, 30, &is_new), 2); /* a use */
	assert_false(is_new);
	assert_true(strtab__touch(t, 3, 30)); /* a use of a kept id */
	assert_int_equal(strtab__evict(t, 20, gone_id, &gone), 101);
	assert_int_equal(gone.n, 101);
	assert_true(gone.old);
	assert_int_equal(strtab__count(t), 102);
	assert_null(strtab__get(t, 1, NULL));
	assert_string_equal(strtab__get(t, 2, NULL), "used");
	assert_string_equal(strtab__get(t, 3, NULL), "kept");
	assert_false(strtab__touch(t, 1, 40));
	/* Back again: a new id, never the old one. */
	assert_int_equal(strtab__intern_at(t, "old", 3, 40, &is_new), 204);
	assert_true(is_new);
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		assert_true(strtab__intern_at(t, name, strlen(name), 40, &is_new) > 0);
		assert_int_equal(is_new, i % 2 == 1);
	}
	strtab__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put_get_remove),  cmocka_unit_test(remove_while_iterating),
		cmocka_unit_test(free_all_values), cmocka_unit_test(expire_idle_entries),
		cmocka_unit_test(trim_to_bound),   cmocka_unit_test(strings),
		cmocka_unit_test(strings_evicted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
