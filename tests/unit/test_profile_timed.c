// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for on-CPU samples in time order: the model's bounded ring
 * (src/model/model_timed.c), the profile's timed samples matched to its
 * sampled ones (profile_timed.c), and speedscope's evented profiles
 * (export_speedscope.c). speedscope's own schema and the nesting of the
 * events over real workloads are checked by views_agree.sh.
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
#include "export.h"
#include "model_timed.h"
#include "profile.h"

static void ring_keeps_the_newest(void **state)
{
	struct model_timed_ring r = {0};

	(void)state;
	for (uint32_t i = 0; i < MODEL_TIMED_MAX + 5; i++)
		model_timed__add(&r,
				 &(struct model_timed){.time_ns = i, .interval = i < 3 ? 0 : 1});
	assert_int_equal(r.nr, MODEL_TIMED_MAX);
	assert_int_equal(r.lost, 5);
	assert_int_equal(model_timed__at(&r, 0)->time_ns, 5);
	assert_int_equal(model_timed__at(&r, MODEL_TIMED_MAX - 1)->time_ns, MODEL_TIMED_MAX + 4);
	/* Interval 1 lost entries too: neither it nor the session is whole; interval 2 is. */
	assert_false(model_timed__complete(&r, WIN_SESSION, 2));
	assert_false(model_timed__complete(&r, WIN_LAST, 2));
	assert_true(model_timed__complete(&r, WIN_INTERVAL, 2));
	assert_false(model_timed__in_window(model_timed__at(&r, 0), WIN_INTERVAL, 2));
	assert_true(model_timed__in_window(model_timed__at(&r, 0), WIN_LAST, 2));
	assert_false(model_timed__in_window(model_timed__at(&r, 0), WIN_MINUTE, 1));
	model_timed__free(&r);
	assert_int_equal(r.nr, 0);
}

/* The ns the timed samples of tid stand for, and their count; they must be in time order. */
static uint64_t timed_ns(const struct profile *p, uint32_t tid, size_t *ret_n)
{
	uint64_t ns = 0, last = 0;

	*ret_n = 0;
	for (size_t i = 0; i < p->nr_timed; i++) {
		const struct profile_sample *s = &p->samples[p->timed[i].sample];

		if (s->tid != tid)
			continue;
		assert_int_equal(s->kind, PROFILE_ONCPU);
		assert_true(p->timed[i].time_ns >= last);
		last = p->timed[i].time_ns;
		ns += s->ns / s->count;
		(*ret_n)++;
	}
	return ns;
}

static uint64_t sampled_ns(const struct profile *p, uint32_t tid)
{
	uint64_t ns = 0;

	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].kind == PROFILE_ONCPU && p->samples[i].tid == tid)
			ns += p->samples[i].ns;
	return ns;
}

static void profile_has_every_sample_in_time_order(void **state)
{
	struct model *m = fx_model_traced();
	struct profile_opts o = {WIN_SESSION, NULL, &fx_namer, 100};
	struct profile *p = profile__build(m, &o);
	size_t n;

	(void)state;
	assert_true(p->timed_complete);
	assert_int_equal(p->nr_timed, 48);
	assert_int_equal(timed_ns(p, 101, &n), sampled_ns(p, 101));
	assert_int_equal(n, 40);
	assert_int_equal(timed_ns(p, 100, &n), sampled_ns(p, 100));
	assert_int_equal(n, 8);
	assert_int_equal(p->timed_start_ns, FX_T0);
	/* A filter on the thread: the other thread's timed samples go with its samples. */
	profile__free(p);
	o.filter = &(struct model_filter){.tid = 100, .syscall = MODEL_ANY_SYSCALL};
	p = profile__build(m, &o);
	assert_int_equal(p->nr_timed, 8);
	/* A delta profile (--serve) has moved samples: no timed ones. */
	profile__subtract(p, NULL, 1u << PROFILE_ONCPU);
	assert_int_equal(p->nr_timed, 0);
	profile__free(p);
	model__free(m);
}

static void windows_take_their_intervals(void **state)
{
	struct model *m = fx_model_traced();
	struct profile_opts o = {WIN_INTERVAL, NULL, &fx_namer, 100};
	struct tt_cpu_sample s = {
		.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s),
			FX_T0 + 2 * NSEC_PER_SEC},
		.pid = 100,
		.tid = 101,
		.ustack_id = FX_USTACK_HOT,
		.weight_us = 10000,
		.comm = "worker",
	};
	struct profile *p;
	size_t n;

	(void)state;
	model__end_interval(m, FX_T0 + 3 * NSEC_PER_SEC / 2);
	model__ingest(m, &s.hdr);
	model__ingest(m, &s.hdr);
	p = profile__build(m, &o);
	assert_int_equal(p->nr_timed, 2);
	assert_int_equal(timed_ns(p, 101, &n), sampled_ns(p, 101));
	assert_int_equal(p->timed_start_ns, FX_T0 + 3 * NSEC_PER_SEC / 2);
	profile__free(p);
	o.window = WIN_LAST;
	p = profile__build(m, &o);
	assert_int_equal(p->nr_timed, 48);
	profile__free(p);
	model__free(m);
}

static void speedscope_evented(void **state)
{
	struct model *m = fx_model_traced();
	struct export_opts o = fx_opts(EXPORT_BY_PROCESS, &fx_namer);
	char err[256] = "", *text, *ev;

	(void)state;
	o.cpu_hz = 100;
	assert_int_equal(fx_export(m, "t.speedscope.json", &o, err, sizeof(err)), 0);
	text = fx_slurp(fx_path("t.speedscope.json"));
	/* After the worker's sampled profile, its 40 samples back to back, 10 ms each. */
	ev = strstr(text, "\"name\":\"worker (101) oncpu in time order\"");
	assert_non_null(ev);
	assert_non_null(strstr(text, "\"type\":\"evented\""));
	assert_non_null(strstr(ev, "\"at\":0}"));
	assert_non_null(strstr(ev, "\"at\":400000000}"));
	assert_non_null(strstr(ev, "\"endValue\":400000000"));
	/* The main thread's 8 samples: 390 ms (its first stands for the 10 ms before 400) to 470. */
	ev = strstr(text, "\"name\":\"app (100) oncpu in time order\"");
	assert_non_null(ev);
	assert_non_null(strstr(ev, "\"type\":\"O\",\"frame\":"));
	assert_non_null(strstr(ev, "\"at\":390000000}"));
	assert_non_null(strstr(ev, "\"endValue\":470000000"));
	/* Thread samples have no times kept: no evented profile of them. */
	assert_null(strstr(text, "threads in time order"));
	free(text);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ring_keeps_the_newest),
		cmocka_unit_test(profile_has_every_sample_in_time_order),
		cmocka_unit_test(windows_take_their_intervals),
		cmocka_unit_test(speedscope_evented),
	};

	if (fx_dir_make("/tmp/tt_timed.XXXXXX"))
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	fx_dir_remove();
	return rc;
}
