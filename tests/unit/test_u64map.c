// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the u64 hash map and the string table built on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "threadtop/strtab.h"
#include "threadtop/u64map.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put_get_remove),
		cmocka_unit_test(remove_while_iterating),
		cmocka_unit_test(strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
