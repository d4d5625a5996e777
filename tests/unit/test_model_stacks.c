// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the stack query (src/model/model_stacks.c) and the profile built on it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "export_fixture.h"
#include "model_stacks.h"
#include "profile.h"

static void rows_per_key(void **state)
{
	struct model *m = fx_model();
	struct model_thread_stack *rows;
	int nr = model__thread_stacks(m, WIN_SESSION, NULL, &rows);

	assert_int_equal(nr, 3);
	/* pid, tid, then most samples first. */
	assert_int_equal(rows[0].tid, 100);
	assert_int_equal(rows[0].samples, 10);
	assert_int_equal(rows[0].state, TT_ST_S);
	assert_int_equal(rows[0].syscall, 230);
	assert_int_equal(rows[0].kstack_id, FX_KSTACK);
	assert_int_equal(rows[0].ustack_id, FX_USTACK_SLEEP);
	assert_int_equal(rows[1].tid, 100);
	assert_int_equal(rows[1].samples, 5);
	assert_int_equal(rows[2].tid, 101);
	assert_int_equal(rows[2].samples, 30);
	assert_string_equal(rows[2].comm, "worker");
	assert_string_equal(rows[2].pcomm, "app"); /* the process's name, from its main thread */
	free(rows);
	model__free(m);
}

/*
 * A process's name is its main thread's for every thread of it; where the
 * model holds no main thread, each thread keeps its own comm: in the
 * thread stacks and in the stack query's pairs alike.
 */
static void process_names(void **state)
{
	struct model *m = fx_model();
	struct model_stack_count *pairs;
	struct model_thread_stack *rows;
	struct model_query q;
	uint64_t total;
	int nr;

	/* Process 300: two threads, no main thread sampled. */
	fx_sample(m, FX_T0 + 1, 300, 301, "pool-a", TT_ST_R, TT_SYSCALL_NONE, FX_KSTACK, 0);
	fx_sample(m, FX_T0 + 1, 300, 302, "pool-b", TT_ST_R, TT_SYSCALL_NONE, 0, FX_USTACK_HOT);
	nr = model__thread_stacks(m, WIN_SESSION, NULL, &rows);
	for (int i = 0; i < nr; i++) {
		if (rows[i].pid == 100)
			assert_string_equal(rows[i].pcomm, "app");
		if (rows[i].tid == 301)
			assert_string_equal(rows[i].pcomm, "pool-a");
		if (rows[i].tid == 302)
			assert_string_equal(rows[i].pcomm, "pool-b");
	}
	free(rows);
	model_query_init(&q);
	q.window = WIN_SESSION;
	q.dims = 0;
	nr = model__stack_samples(m, &q, &pairs, &total);
	assert_true(nr >= 4);
	for (int i = 0; i < nr; i++) {
		if (pairs[i].pid == 100)
			assert_string_equal(pairs[i].comm, "app");
		if (pairs[i].pid == 300)
			assert_string_equal(pairs[i].comm,
					    pairs[i].kstack_id == FX_KSTACK ? "pool-a" : "pool-b");
	}
	free(pairs);
	model__free(m);
}

static void windows_and_filter(void **state)
{
	struct model *m = fx_model();
	struct model_thread_stack *rows;
	struct model_filter f = {.syscall = MODEL_ANY_SYSCALL, .state_mask = 1u << TT_ST_R};
	int nr;

	model__end_interval(m, FX_T0 + 2 * NSEC_PER_SEC);
	assert_int_equal(model__thread_stacks(m, WIN_INTERVAL, NULL, &rows), 0);
	free(rows);
	nr = model__thread_stacks(m, WIN_MINUTE, NULL, &rows);
	assert_int_equal(nr, 3);
	free(rows);
	nr = model__thread_stacks(m, WIN_SESSION, &f, &rows);
	assert_int_equal(nr, 2); /* the running keys only */
	for (int i = 0; i < nr; i++)
		assert_int_equal(rows[i].state, TT_ST_R);
	free(rows);
	f = (struct model_filter){.syscall = MODEL_ANY_SYSCALL, .tid = 101};
	assert_int_equal(model__thread_stacks(m, WIN_SESSION, &f, &rows), 1);
	free(rows);
	/* The filter of the thread views, whole: a frame, a cgroup. */
	f = (struct model_filter){.syscall = MODEL_ANY_SYSCALL, .stack_ip = FX_HOT_ADDR};
	assert_int_equal(model__thread_stacks(m, WIN_SESSION, &f, &rows), 1);
	assert_int_equal(rows[0].ustack_id, FX_USTACK_HOT);
	free(rows);
	f.stack_ip = 0x402000ull; /* in both user stacks */
	assert_int_equal(model__thread_stacks(m, WIN_SESSION, &f, &rows), 2);
	free(rows);
	f = (struct model_filter){.syscall = MODEL_ANY_SYSCALL, .cgroup_id = 77};
	assert_int_equal(model__thread_stacks(m, WIN_SESSION, &f, &rows), 0);
	free(rows);
	assert_int_equal(model__thread_stacks(m, WIN_MAX, NULL, &rows), -EINVAL);
	model__free(m);
}

static const char *frame_name(const struct profile *p, const struct profile_sample *s, uint32_t i)
{
	return p->frames[s->frames[i]].name;
}

static void profile_frames(void **state)
{
	struct model *m = fx_model();
	struct profile_opts o = {.window = WIN_SESSION, .namer = &fx_namer};
	struct profile *p = profile__build(m, &o);
	const struct profile_sample *s;

	assert_int_equal(p->nr_samples, 3);
	assert_int_equal(p->total_count[PROFILE_THREADS], 45);
	assert_int_equal(p->total_ns[PROFILE_THREADS], 45ull * 50000 * 1000);
	assert_int_equal(p->weight_us, 50000);
	assert_int_equal(profile__main_kind(p), PROFILE_THREADS);
	/* Sleeping main thread: user frames root first, then kernel frames root first. */
	s = &p->samples[0];
	assert_int_equal(s->nr_frames, 4);
	assert_string_equal(frame_name(p, s, 0), "fn_402000");
	assert_string_equal(frame_name(p, s, 1), "fn_403000");
	assert_string_equal(frame_name(p, s, 2), "kfn_ffffffff81000020");
	assert_string_equal(frame_name(p, s, 3), "kfn_ffffffff81000010");
	assert_true(p->frames[s->frames[3]].flags & PROFILE_FRAME_KERNEL);
	assert_false(p->frames[s->frames[0]].flags & PROFILE_FRAME_KERNEL);
	/* No stack: what the thread did stands in. */
	s = &p->samples[1];
	assert_int_equal(s->nr_frames, 1);
	assert_string_equal(frame_name(p, s, 0), "[running]");
	assert_true(p->frames[s->frames[0]].flags & PROFILE_FRAME_SYNTH);
	/* The hot thread: the shared root frame is interned once. */
	s = &p->samples[2];
	assert_string_equal(frame_name(p, s, 1), FX_HOSTILE);
	assert_int_equal(s->frames[0], p->samples[0].frames[0]);
	assert_string_equal(s->pcomm, "app");
	assert_int_equal(p->nr_frames, 6);
	profile__free(p);
	model__free(m);
}

static void default_namer(void **state)
{
	struct model *m = fx_model();
	struct profile_opts o = {.window = WIN_SESSION};
	struct profile *p = profile__build(m, &o);

	assert_string_equal(frame_name(p, &p->samples[2], 1), "0x401000");
	assert_string_equal(p->frames[p->samples[0].frames[3]].module, "[kernel]");
	profile__free(p);
	profile__free(NULL);
	model__free(m);
}

static void traced_kinds(void **state)
{
	struct model *m = fx_model_traced();
	struct profile_opts o = {.window = WIN_SESSION, .namer = &fx_namer, .cpu_hz = 100};
	struct model_filter f = {.syscall = MODEL_ANY_SYSCALL, .tid = 101};
	struct profile *p = profile__build(m, &o);
	const struct profile_sample *s = NULL;

	assert_int_equal(p->kinds, 7);
	assert_int_equal(profile__main_kind(p), PROFILE_ONCPU);
	assert_int_equal(p->total_count[PROFILE_THREADS], 45);
	assert_int_equal(p->total_count[PROFILE_ONCPU], 48);
	assert_int_equal(p->total_ns[PROFILE_ONCPU], 48 * 10000000ull);
	assert_int_equal(p->total_count[PROFILE_OFFCPU], 7);
	assert_int_equal(p->total_ns[PROFILE_OFFCPU], 700000000);
	/* Sorted by kind: thread samples, then on-CPU, then off-CPU. */
	for (size_t i = 1; i < p->nr_samples; i++)
		assert_true(p->samples[i - 1].kind <= p->samples[i].kind);
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].kind == PROFILE_ONCPU && p->samples[i].tid == 101)
			s = &p->samples[i];
	assert_non_null(s);
	assert_int_equal(s->count, 40);
	assert_string_equal(s->pcomm, "app");
	assert_string_equal(p->frames[s->frames[s->nr_frames - 1]].name, FX_HOSTILE);
	profile__free(p);
	/* A filter applies to traced samples too. */
	o.filter = &f;
	p = profile__build(m, &o);
	assert_int_equal(p->total_count[PROFILE_ONCPU], 40);
	assert_int_equal(p->total_count[PROFILE_OFFCPU], 0);
	assert_int_equal(p->total_count[PROFILE_THREADS], 30);
	profile__free(p);
	model__free(m);
}

/* Names a kernel stack as the off-CPU tracer's was before it cut its own frames. */
static int tracer_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static const char *const names[] = {"bpf_prog_46a2_on_switch", "bpf_trace_run4",
					    "__traceiter_sched_switch", "__schedule", "schedule"};

	(void)ctx, (void)pid;
	*ret = (struct frame_name){.name = names[(addr & 0xff) / 0x10], .kernel = kernel};
	return 0;
}

/* Threadtop's own tracing frames never reach a profile, whatever the stack holds. */
static void tracer_frames_cut(void **state)
{
	static const uint64_t kips[] = {0xffffffff81000000ull, 0xffffffff81000010ull,
					0xffffffff81000020ull, 0xffffffff81000030ull,
					0xffffffff81000040ull};
	static const struct frame_namer namer = {tracer_name, NULL};
	struct model *m = model__new(NULL);
	struct profile_opts o = {.window = WIN_SESSION, .namer = &namer};
	struct profile *p;

	(void)state;
	model__advance(m, FX_T0);
	fx_stack(m, 7, 0, TT_STACK_KERNEL, kips, 5);
	fx_sample(m, FX_T0 + 1, 100, 100, "app", TT_ST_S, 34, 7, 0);
	model__end_interval(m, FX_T0 + NSEC_PER_SEC);
	p = profile__build(m, &o);
	assert_int_equal(p->nr_samples, 1);
	assert_int_equal(p->samples[0].nr_frames, 2);
	assert_string_equal(p->frames[p->samples[0].frames[0]].name, "schedule");
	assert_string_equal(p->frames[p->samples[0].frames[1]].name, "__schedule");
	profile__free(p);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_per_key),	      cmocka_unit_test(process_names),
		cmocka_unit_test(windows_and_filter), cmocka_unit_test(profile_frames),
		cmocka_unit_test(default_namer),      cmocka_unit_test(traced_kinds),
		cmocka_unit_test(tracer_frames_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
