// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the id space table (events.h): no two spaces of one dictionary
 * overlap, none is empty, 0 ("none") is outside every stack and string
 * space, the stack spaces cover all 32-bit ids but 0, and the string table
 * hands out ids from its space's base.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "threadtop/events.h"
#include "strtab.h"

struct space {
	const char *name;
	enum tt_id_dict dict;
	uint64_t base, last;
};

#define SPACE(name, dict) {#name, dict, TT_##name##_ID_BASE, TT_##name##_ID_LAST},
static const struct space spaces[] = {TT_ID_SPACES(SPACE)};
#undef SPACE
#define NR_SPACES (sizeof(spaces) / sizeof(spaces[0]))

static void no_two_spaces_overlap(void **state)
{
	(void)state;
	assert_true(NR_SPACES >= 4);
	for (size_t i = 0; i < NR_SPACES; i++) {
		for (size_t j = i + 1; j < NR_SPACES; j++) {
			const struct space *a = &spaces[i], *b = &spaces[j];

			if (a->dict != b->dict)
				continue;
			if (a->last >= b->base && b->last >= a->base)
				fail_msg(
					"id spaces %s [%#llx, %#llx] and %s [%#llx, %#llx] overlap",
					a->name, (unsigned long long)a->base,
					(unsigned long long)a->last, b->name,
					(unsigned long long)b->base, (unsigned long long)b->last);
		}
	}
}

static void spaces_are_ranges(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_SPACES; i++) {
		if (spaces[i].base > spaces[i].last)
			fail_msg("id space %s is empty", spaces[i].name);
		if (spaces[i].dict == TT_DICT_STACK || spaces[i].dict == TT_DICT_STRING) {
			assert_true(spaces[i].base >= 1);	   /* 0 is "none" */
			assert_true(spaces[i].last <= UINT32_MAX); /* tt_stack.id, tt_string.id */
		}
	}
}

/* Every 32-bit stack id but 0 belongs to exactly one space: nothing falls between. */
static void stack_spaces_tile_the_ids(void **state)
{
	uint64_t next = 1;
	size_t found;

	(void)state;
	do {
		uint64_t at = next;

		found = 0;
		for (size_t i = 0; i < NR_SPACES; i++) {
			if (spaces[i].dict == TT_DICT_STACK && spaces[i].base == at) {
				next = spaces[i].last + 1;
				found++;
			}
		}
		assert_int_equal(found, 1);
	} while (next <= UINT32_MAX);
	/* The clash of issue 19: user-unwound and stitched LuaJIT stacks apart. */
	assert_true(TT_USER_STACK_ID_LAST < TT_LJ_STACK_ID_BASE);
	assert_true(TT_KSTACK_ID_LAST < TT_USER_STACK_ID_BASE);
}

static void strtab_counts_from_the_base(void **state)
{
	struct strtab *tab = strtab__new();
	bool is_new;

	(void)state;
	assert_int_equal(strtab__intern(tab, "a", 1, &is_new), TT_STRING_ID_BASE);
	assert_true(is_new);
	assert_int_equal(strtab__intern(tab, "b", 1, &is_new), TT_STRING_ID_BASE + 1);
	assert_int_equal(strtab__intern(tab, "a", 1, &is_new), TT_STRING_ID_BASE);
	assert_false(is_new);
	strtab__free(tab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_two_spaces_overlap),
		cmocka_unit_test(spaces_are_ranges),
		cmocka_unit_test(stack_spaces_tile_the_ids),
		cmocka_unit_test(strtab_counts_from_the_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
