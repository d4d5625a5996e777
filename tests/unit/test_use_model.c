// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the USE model, the verdict rule and its JSON/text rendering on
 * synthetic records: ranking (PSI full, then some, then saturation ratio,
 * then utilization), the busy / almost critical / nothing-saturated cases,
 * errors at any load, history for sparklines, the record's encoding, and
 * the model hook (records ingested through model__ingest).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "event_codec.h"
#include "model.h"
#include "use_model.h"
#include "use_report.h"

static struct tt_use_metric rec(unsigned kind, const char *name, double util, unsigned sat_what,
				double sat, double limit, uint64_t t)
{
	struct tt_use_metric r = {0};

	r.hdr = (struct tt_event_header){TT_EV_USE_METRIC, TT_USE_METRIC_VERSION, sizeof(r), t};
	r.interval_ns = 1000000000ull;
	r.kind = (uint16_t)kind;
	r.index = TT_USE_ALL;
	snprintf(r.name, sizeof(r.name), "%s", name);
	r.util_milli = isnan(util) ? TT_USE_UNKNOWN : (int32_t)(util * 1000);
	r.psi_some_milli = r.psi_full_milli = TT_USE_UNKNOWN;
	r.sat_what = (uint16_t)sat_what;
	r.sat_milli = (int64_t)(sat * 1000);
	r.sat_limit_milli = (int64_t)(limit * 1000);
	r.aux_milli = TT_USE_UNKNOWN;
	if (sat > limit)
		r.flags |= TT_USE_SATURATED;
	return r;
}

static void verdict_of(struct tt_use_metric *recs, size_t n, struct use_verdict *v)
{
	const struct tt_use_metric *p[8];

	for (size_t i = 0; i < n; i++)
		p[i] = &recs[i];
	use_verdict_compute(p, n, v);
}

static void test_rank_ratio(void **state)
{
	struct tt_use_metric r[3] = {
		rec(TT_USE_CPU, "cpu", 97, TT_USE_FIG_RUNNABLE_PER_CPU, 1.6, 1.0, 1),
		rec(TT_USE_DISK, "vda", 100, TT_USE_FIG_QUEUE, 3.0, 1.0, 1),
		rec(TT_USE_MEMORY, "memory", 50, TT_USE_FIG_PAGING, 0, 100, 1),
	};
	struct use_verdict v;

	/* Without PSI the larger figure / limit wins: the disk's queue of 3. */
	verdict_of(r, 3, &v);
	assert_int_equal(v.level, USE_VERDICT_SATURATED);
	assert_string_equal(v.name, "vda");
	assert_int_equal(v.nr_saturated, 2);
	assert_string_equal(v.text, "disk vda saturated: 3.00 average queue > 1.00, 100% busy");
	/* Only the CPU: the example sentence. */
	verdict_of(r, 1, &v);
	assert_string_equal(v.text, "CPU saturated: 1.60 runnable per CPU > 1.00, 97% busy");
	assert_int_equal(v.nr_evidence, 2);
	assert_string_equal(v.evidence[0].metric, "runnable_per_cpu");
	assert_true(v.evidence[0].value == 1.6 && v.evidence[0].threshold == 1.0);
	assert_string_equal(v.evidence[1].metric, "util_pct");
	assert_string_equal(v.evidence[1].source, "/proc/stat");
}

static void test_rank_psi(void **state)
{
	struct tt_use_metric r[2] = {
		rec(TT_USE_CPU, "cpu", 97, TT_USE_FIG_RUNNABLE_PER_CPU, 3.0, 1.0, 1),
		rec(TT_USE_MEMORY, "memory", 80, TT_USE_FIG_PAGING, 150, 100, 1),
	};
	struct use_verdict v;

	/* PSI some ranks before any ratio. */
	r[0].psi_some_milli = 30000;
	r[1].psi_some_milli = 60000;
	verdict_of(r, 2, &v);
	assert_string_equal(v.name, "memory");
	assert_non_null(strstr(v.text, "PSI some 60% >= 20%"));
	/* PSI full before some; CPU's full never counts (always 0 system-wide). */
	r[0].psi_full_milli = 90000;
	r[1].psi_some_milli = 25000;
	r[1].psi_full_milli = 6000;
	verdict_of(r, 2, &v);
	assert_string_equal(v.name, "memory");
	assert_non_null(strstr(v.text, "PSI full 6% >= 5%"));
	/* A PSI share under its limit is no evidence: back to the ratio. */
	r[1].psi_full_milli = 1000;
	r[1].psi_some_milli = 1000;
	r[0].psi_some_milli = 1000;
	verdict_of(r, 2, &v);
	assert_string_equal(v.name, "cpu");
	/* PSI alone makes a component saturated. */
	r[1].psi_some_milli = 25000;
	assert_true(use_psi_saturated(&r[1]));
	r[0].psi_some_milli = 19999;
	assert_false(use_psi_saturated(&r[0]));
}

static void test_not_saturated(void **state)
{
	struct tt_use_metric r[3] = {
		rec(TT_USE_CPU, "cpu", 95, TT_USE_FIG_RUNNABLE_PER_CPU, 0.9, 1.0, 1),
		rec(TT_USE_CPU, "cpu1", 100, TT_USE_FIG_NONE, 0, 0, 1),
		rec(TT_USE_NET, "eth0", NAN, TT_USE_FIG_DROPS, 0, 10, 1),
	};
	struct use_verdict v;

	r[1].index = 1;
	verdict_of(r, 3, &v);
	/* A single busy CPU is never named; the whole CPU is. */
	assert_int_equal(v.level, USE_VERDICT_BUSY);
	assert_string_equal(v.name, "cpu");
	assert_string_equal(v.text, "CPU busy: 95% busy >= 90%, nothing saturated");
	r[0].util_milli = 75000;
	verdict_of(r, 3, &v);
	assert_int_equal(v.level, USE_VERDICT_ALMOST);
	assert_non_null(strstr(v.text, "almost critical"));
	r[0].util_milli = 10000;
	verdict_of(r, 3, &v);
	assert_int_equal(v.level, USE_VERDICT_OK);
	assert_string_equal(v.text, "nothing saturated (busiest: CPU 10%)");
	assert_string_equal(v.name, "");
	verdict_of(r, 0, &v);
	assert_int_equal(v.level, USE_VERDICT_NO_DATA);
}

static void test_errors(void **state)
{
	struct tt_use_metric r[2] = {
		rec(TT_USE_CPU, "cpu", 5, TT_USE_FIG_RUNNABLE_PER_CPU, 0.1, 1.0, 1),
		rec(TT_USE_NET, "eth0", 1, TT_USE_FIG_DROPS, 0, 10, 1),
	};
	struct use_verdict v;

	r[1].flags |= TT_USE_ERRORS_KNOWN;
	r[1].errors = 3;
	verdict_of(r, 2, &v);
	assert_int_equal(v.level, USE_VERDICT_OK);
	assert_int_equal(v.nr_errors, 1);
	assert_string_equal(v.errors[0].name, "eth0");
	assert_int_equal(v.errors[0].count, 3);
	assert_non_null(strstr(v.text, "; errors: eth0 3"));
}

/* The shorter wordings keep the component, the level, then the figures. */
static void test_wordings(void **state)
{
	struct tt_use_metric r[2] = {
		rec(TT_USE_CPU, "cpu", 97, TT_USE_FIG_RUNNABLE_PER_CPU, 2.9, 1.0, 1),
		rec(TT_USE_NET, "eth0", 1, TT_USE_FIG_DROPS, 0, 10, 1),
	};
	struct use_verdict v;
	char buf[256];

	r[0].psi_some_milli = 89000;
	r[1].flags |= TT_USE_ERRORS_KNOWN;
	r[1].errors = 3;
	verdict_of(r, 2, &v);
	assert_true(use_verdict_wording(&v, 0, buf, sizeof(buf)));
	assert_string_equal(buf, v.text);
	assert_true(use_verdict_wording(&v, 1, buf, sizeof(buf)));
	assert_string_equal(
		buf,
		"CPU saturated: 2.90 runnable per CPU, PSI some 89%, 97% busy; errors: eth0 3");
	assert_true(use_verdict_wording(&v, 2, buf, sizeof(buf)));
	assert_string_equal(buf, "CPU saturated: 2.90 runnable per CPU; errors on 1");
	assert_true(use_verdict_wording(&v, 3, buf, sizeof(buf)));
	assert_string_equal(buf, "CPU saturated, errors");
	assert_false(use_verdict_wording(&v, 4, buf, sizeof(buf)));
	/* Busy, nothing saturated. */
	r[0] = rec(TT_USE_CPU, "cpu", 95, TT_USE_FIG_RUNNABLE_PER_CPU, 0.5, 1.0, 1);
	verdict_of(r, 1, &v);
	assert_int_equal(v.level, USE_VERDICT_BUSY);
	assert_true(use_verdict_wording(&v, 1, buf, sizeof(buf)));
	assert_string_equal(buf, "CPU busy: 95%, nothing saturated");
	assert_true(use_verdict_wording(&v, 3, buf, sizeof(buf)));
	assert_string_equal(buf, "CPU busy");
	/* Each wording is no longer than the one before. */
	for (int w = 1; use_verdict_wording(&v, w, buf, sizeof(buf)); w++) {
		char prev[256];

		use_verdict_wording(&v, w - 1, prev, sizeof(prev));
		assert_true(strlen(buf) <= strlen(prev));
	}
}

static void test_model_history_and_aging(void **state)
{
	struct use_model *um = use_model__new();
	const struct use_component **cur;
	float hist[4];

	for (int i = 0; i < 3; i++) {
		struct tt_use_metric r =
			rec(TT_USE_CPU, "cpu", 10.0 * (i + 1), TT_USE_FIG_RUNNABLE_PER_CPU, 0.5 * i,
			    1.0, (uint64_t)(i + 1) * 1000000000ull);

		use_model__ingest(um, &r);
	}
	struct tt_use_metric d = rec(TT_USE_DISK, "sdb", 1, TT_USE_FIG_QUEUE, 0, 1, 1000000000ull);

	use_model__ingest(um, &d);
	/* sdb's one record is two intervals old: still current. */
	assert_int_equal(use_model__current(um, &cur), 2);
	use_component_history(cur[0], false, hist, 4);
	assert_true(isnan(hist[0]));
	assert_true(hist[1] == 10.0f && hist[2] == 20.0f && hist[3] == 30.0f);
	use_component_history(cur[0], true, hist, 4);
	assert_true(hist[3] == 1.0f);
	/* Two more intervals without sdb: it is gone from the current set. */
	for (int i = 3; i < 5; i++) {
		struct tt_use_metric r = rec(TT_USE_CPU, "cpu", 1, TT_USE_FIG_RUNNABLE_PER_CPU, 0,
					     1.0, (uint64_t)(i + 1) * 1000000000ull);

		use_model__ingest(um, &r);
	}
	assert_int_equal(use_model__current(um, &cur), 1);
	assert_string_equal(cur[0]->last.name, "cpu");
	use_model__free(um);
}

static void test_codec_roundtrip(void **state)
{
	struct tt_use_metric r = rec(TT_USE_NET, "eth0", 42.5, TT_USE_FIG_DROPS, 12, 10, 77);
	union {
		struct tt_use_metric m;
		char buf[TT_EVENT_MAX_SIZE];
	} out;
	unsigned char enc[sizeof(r)];

	r.errors = 9;
	r.aux_what = TT_USE_FIG_BYTES;
	r.aux_milli = 123456;
	r.index = 3;
	assert_int_equal(tt_event_encode(&r.hdr, enc, sizeof(enc)), (int)sizeof(r));
	assert_int_equal(tt_event_decode(enc, sizeof(enc), &out.m.hdr, sizeof(out), NULL),
			 (int)sizeof(r));
	assert_memory_equal(&out.m, &r, sizeof(r));
	assert_string_equal(tt_event_type_name(TT_EV_USE_METRIC), "use_metric");
}

static void test_model_hook_and_json(void **state)
{
	struct model *m = model__new(NULL);
	struct tt_use_metric r[2] = {
		rec(TT_USE_CPU, "cpu", 97, TT_USE_FIG_RUNNABLE_PER_CPU, 1.6, 1.0, 5),
		rec(TT_USE_CPU, "cpu0", 97, TT_USE_FIG_NONE, 0, 0, 5),
	};
	char *text = NULL, line[512];
	size_t len = 0;
	struct json j;
	FILE *f;

	r[1].index = 0;
	r[0].psi_some_milli = 50000;
	r[0].flags |= TT_USE_SATURATED;
	model__ingest(m, &r[0].hdr);
	model__ingest(m, &r[1].hdr);
	f = open_memstream(&text, &len);
	json_init(&j, f);
	json_begin_object(&j, NULL);
	use_report__json(&j, model__use(m), false);
	json_end_object(&j);
	fclose(f);
	assert_non_null(
		strstr(text, "\"use\":[{\"kind\":\"cpu\",\"name\":\"cpu\",\"interval_s\":1"));
	assert_non_null(strstr(text, "\"util_pct\":97.0"));
	assert_non_null(strstr(text, "\"saturation\":{\"metric\":\"runnable_per_cpu\""));
	assert_non_null(strstr(text, "\"psi_some_pct\":50.00"));
	assert_null(strstr(text, "cpu0")); /* per_cpu false */
	assert_non_null(strstr(text, "\"verdict\":{\"level\":\"saturated\",\"component\":"
				     "{\"kind\":\"cpu\",\"name\":\"cpu\"}"));
	assert_non_null(strstr(text, "\"source\":\"/proc/pressure/cpu\""));
	free(text);
	use_report__line(model__use(m), line, sizeof(line));
	assert_string_equal(line, "USE  cpu! 97% 1.60 runnable/CPU  | CPU saturated: 1.60 runnable "
				  "per CPU > 1.00, PSI some 50% >= 20%, 97% busy");
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_ratio),
		cmocka_unit_test(test_rank_psi),
		cmocka_unit_test(test_not_saturated),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_wordings),
		cmocka_unit_test(test_model_history_and_aging),
		cmocka_unit_test(test_codec_roundtrip),
		cmocka_unit_test(test_model_hook_and_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
