// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inlined functions in every export (src/model/profile.c, src/output/export_*.c): a
 * namer that says two functions were inlined at the hot address makes one
 * frame three, outermost first, marked " [inlined]" in folded stacks,
 * speedscope and SVG, "inlined" in JSON, and one pprof location with a
 * line per function, innermost first.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "export_files.h"
#include "export_fixture.h"
#include "profile.pb-c.h"
#include "export.h"

static struct model *model;

/* fx_name, plus [mid_fn, inner_fn] inlined in the hot address and
 * [mid_fn] in 0x403000. */
static int inline_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static const char *const hot[] = {"mid_fn", "inner_fn"};

	fx_name(ctx, pid, addr, kernel, ret);
	if (addr == FX_HOT_ADDR) {
		ret->name = "outer_fn";
		ret->inlined = hot;
		ret->nr_inlined = 2;
	} else if (addr == 0x403000) {
		ret->inlined = hot;
		ret->nr_inlined = 1;
	}
	return 0;
}

static const struct frame_namer inline_namer = {inline_name, NULL};

static int setup(void **state)
{
	model = fx_model();
	return fx_dir_make("/tmp/tt_export_inl.XXXXXX");
}

static int teardown(void **state)
{
	model__free(model);
	return fx_dir_remove();
}

/* Exports NAME with the inlining namer and reads it back as text; the caller frees it. */
static char *export_text(const char *name)
{
	struct export_opts o = fx_opts(EXPORT_BY_PROCESS, &inline_namer);
	char err[256] = "";

	assert_int_equal(fx_export(model, name, &o, err, sizeof(err)), 0);
	return fx_slurp(fx_path(name));
}

static void folded(void **state)
{
	char *text = export_text("a.folded");

	assert_string_equal(text,
			    "app;[running] 5\n"
			    "app;fn_402000;fn_403000;mid_fn [inlined];"
			    "kfn_ffffffff81000020_[k];kfn_ffffffff81000010_[k] 10\n"
			    "app;fn_402000;outer_fn;mid_fn [inlined];inner_fn [inlined] 30\n");
	free(text);
}

static void json_speedscope_svg(void **state)
{
	char *text = export_text("r.json");

	assert_non_null(strstr(text, "{\"name\":\"inner_fn\",\"module\":\"app\",\"addr\":4198400,"
				     "\"kernel\":false,\"inlined\":true}"));
	assert_non_null(strstr(text, "{\"name\":\"outer_fn\",\"module\":\"app\",\"addr\":4198400,"
				     "\"kernel\":false}"));
	free(text);
	text = export_text("s.speedscope.json");
	assert_non_null(strstr(text, "\"name\":\"inner_fn [inlined]\""));
	assert_non_null(strstr(text, "\"name\":\"outer_fn\""));
	free(text);
	text = export_text("f.svg");
	assert_non_null(strstr(text, "data-name=\"mid_fn [inlined]\""));
	assert_non_null(strstr(text, "data-name=\"outer_fn\""));
	free(text);
}

static const char *function_name(const Tt__Pprof__Profile *p, uint64_t id)
{
	for (size_t k = 0; k < p->n_function; k++)
		if (p->function[k]->id == id)
			return p->string_table[p->function[k]->name];
	fail_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

static const Tt__Pprof__Location *location(const Tt__Pprof__Profile *p, uint64_t id)
{
	for (size_t k = 0; k < p->n_location; k++)
		if (p->location[k]->id == id)
			return p->location[k];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

/* The worker's hot stack: 2 locations, the leaf one with 3 lines, innermost first. */
static void pprof(void **state)
{
	struct export_opts o = fx_opts(EXPORT_BY_PROCESS, &inline_namer);
	char err[256] = "";
	Tt__Pprof__Profile *p;
	size_t len, hot = 0, ids = 0;
	uint8_t *buf;

	assert_int_equal(fx_export(model, "p.pb.gz", &o, err, sizeof(err)), 0);
	buf = fx_gunzip(fx_path("p.pb.gz"), &len);
	p = tt__pprof__profile__unpack(NULL, len, buf);
	assert_non_null(p);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Tt__Pprof__Sample *s = p->sample[i];
		const Tt__Pprof__Location *leaf = location(p, s->location_id[0]);

		if (leaf->n_line == 3) {
			hot++;
			assert_int_equal(s->n_location_id, 2);
			assert_int_equal(leaf->address, FX_HOT_ADDR);
			assert_string_equal(function_name(p, leaf->line[0]->function_id),
					    "inner_fn");
			assert_string_equal(function_name(p, leaf->line[1]->function_id), "mid_fn");
			assert_string_equal(function_name(p, leaf->line[2]->function_id),
					    "outer_fn");
			assert_int_equal(location(p, s->location_id[1])->n_line, 1);
		}
	}
	assert_int_equal(hot, 1);
	/* Ids unique. */
	for (size_t i = 0; i < p->n_location; i++)
		for (size_t k = i + 1; k < p->n_location; k++)
			ids += p->location[i]->id == p->location[k]->id;
	assert_int_equal(ids, 0);
	tt__pprof__profile__free_unpacked(p, NULL);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(folded),
		cmocka_unit_test(json_speedscope_svg),
		cmocka_unit_test(pprof),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
