// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the dictionaries' memory budget and the model's use of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dict_budget.h"
#include "model.h"
#include "util.h"

static void totals_and_shares(void **state)
{
	struct dict_budget *b = dict_budget__new(4u << 20); /* 1M per process */
	size_t n = 0;

	/* One process gets a quarter, then is refused; another still fits. */
	while (dict_budget__take(b, 7, 4000))
		n++;
	assert_true(n > 200 && n <= (1u << 20) / 4000);
	assert_int_equal(dict_budget__refused(b), 1);
	assert_true(dict_budget__take(b, 8, 4000));
	/* Giving back makes room again. */
	dict_budget__give(b, 7, 4000);
	assert_true(dict_budget__take(b, 7, 4000));
	/* The total binds even across processes. */
	for (uint32_t pid = 100; pid < 200; pid++)
		dict_budget__take(b, pid, 100000);
	assert_true(dict_budget__used(b) <= dict_budget__total(b));
	assert_false(dict_budget__take(b, 999, 100000));
	/* Bounds: at least DICT_BUDGET_MIN; NULL takes everything. */
	assert_int_equal(dict_budget__total(b), 4u << 20);
	dict_budget__free(b);
	b = dict_budget__new(10);
	assert_int_equal(dict_budget__total(b), DICT_BUDGET_MIN);
	dict_budget__free(b);
	assert_true(dict_budget__take(NULL, 1, (size_t)1 << 40));
	assert_int_equal(dict_budget__refused(NULL), 0);
	dict_budget__free(NULL);
}

static void string(struct model *m, uint32_t id, size_t len)
{
	union {
		struct tt_string s;
		char buf[sizeof(struct tt_string) + TT_MAX_STRING_LEN];
	} u;

	u.s.hdr = (struct tt_event_header){TT_EV_STRING, TT_STRING_VERSION,
					   (uint32_t)(sizeof(u.s) + len), 1000};
	u.s.id = id;
	u.s.len = (uint32_t)len;
	memset(u.s.data, 'x', len);
	model__ingest(m, &u.s.hdr);
}

/* Fresh strings past the budget: counted as dict_full, named "[dropped]". */
static void model_strings(void **state)
{
	struct dict_budget *b = dict_budget__new(DICT_BUDGET_MIN);
	struct model *m = model__new(NULL);
	struct model_stats st;
	uint32_t id;

	model__set_budget(m, b);
	for (id = 1; id <= 1000; id++)
		string(m, id, 4000);
	model__stats(m, &st);
	assert_true(st.drops_interval[MODEL_DROP_DICT_FULL] > 900);
	assert_int_equal(st.drops_session[MODEL_DROP_DICT_FULL], dict_budget__refused(b));
	assert_string_equal(model_drop_name(MODEL_DROP_DICT_FULL), "dict_full");
	assert_int_equal(strlen(model__string(m, 1)), 4000);
	assert_string_equal(model__string(m, 1000), "[dropped]");
	assert_true(dict_budget__used(b) <= DICT_BUDGET_MIN);
	/* Replacing an entry gives its bytes back: the total does not creep. */
	size_t used = dict_budget__used(b);
	string(m, 1, 10);
	assert_true(dict_budget__used(b) < used);
	/* The interval count restarts; the session keeps it. */
	model__end_interval(m, 2000);
	model__stats(m, &st);
	assert_int_equal(st.drops_interval[MODEL_DROP_DICT_FULL], 0);
	assert_true(st.drops_session[MODEL_DROP_DICT_FULL] > 900);
	/* A reset (a replay's jump) gives everything back and keeps the budget. */
	model__reset(m);
	assert_int_equal(dict_budget__used(b), 0);
	string(m, 5, 100);
	assert_int_equal(dict_budget__used(b), 100 + DICT_BUDGET_ENTRY);
	model__free(m);
	assert_int_equal(dict_budget__used(b), 0);
	dict_budget__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(totals_and_shares),
		cmocka_unit_test(model_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
