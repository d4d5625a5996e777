// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for application labels in the model and their records' encoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "event_codec.h"
#include "model.h"
#include "util.h"

#define T0 (1000 * NSEC_PER_SEC)

static void name(struct model *m, unsigned slot, const char *n)
{
	struct tt_label_name rec = {.hdr = {TT_EV_LABEL_NAME, 1, sizeof(rec), T0}, .slot = slot};

	strcpy(rec.name, n);
	model__ingest(m, &rec.hdr);
}

static void labels(struct model *m, uint32_t tid, const char *wait, uint64_t phase)
{
	struct tt_thread_labels rec = {
		.hdr = {TT_EV_THREAD_LABELS, 1, sizeof(rec), T0}, .pid = 1, .tid = tid};

	if (wait) {
		rec.set_mask |= 1;
		rec.v[0].kind = TT_LABEL_STRING;
		strcpy(rec.v[0].str, wait);
	}
	if (phase) {
		rec.set_mask |= 2;
		rec.v[1].kind = TT_LABEL_NUMBER;
		rec.v[1].num = phase;
	}
	model__ingest(m, &rec.hdr);
}

static void sample(struct model *m, uint32_t tid, int n)
{
	struct tt_thread_sample s = {.hdr = {TT_EV_THREAD_SAMPLE, 1, sizeof(s), T0},
				     .pid = 1,
				     .tid = tid,
				     .start_time_ns = 1,
				     .weight_us = 50000,
				     .syscall_nr = -1,
				     .state = TT_ST_S};

	for (int i = 0; i < n; i++)
		model__ingest(m, &s.hdr);
}

static void samples_carry_the_labels_of_their_time(void **state)
{
	struct model *m = model__new(NULL);
	const char *names[TT_LABEL_SLOTS], *values[TT_LABEL_SLOTS];
	struct model_result res;
	struct model_query q;

	model__advance(m, T0);
	name(m, 0, "wait");
	name(m, 1, "phase");
	assert_string_equal(model__label_name(m, 1), "phase");
	assert_null(model__label_name(m, 2));
	labels(m, 7, "IO:DataFileRead", 0);
	sample(m, 7, 6);
	labels(m, 7, NULL, 0); /* end_wait */
	sample(m, 7, 4);
	labels(m, 8, "Lock", 3);
	sample(m, 8, 5);
	model__advance(m, T0 + NSEC_PER_SEC);

	model_query_init(&q);
	q.dims = DIM_BIT(DIM_LABELS);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 3);
	for (size_t i = 0; i < res.nr; i++) {
		int n = model__labels(m, res.rows[i].labels_id, names, values);

		if (res.rows[i].samples == 6) {
			assert_int_equal(n, 1);
			assert_string_equal(names[0], "wait");
			assert_string_equal(values[0], "IO:DataFileRead");
		} else if (res.rows[i].samples == 4) {
			assert_int_equal(n, 0);
			assert_int_equal(res.rows[i].labels_id, 0);
		} else {
			assert_int_equal(res.rows[i].samples, 5);
			assert_int_equal(n, 2);
			assert_string_equal(values[0], "Lock");
			assert_string_equal(values[1], "3");
		}
	}
	model_result__release(&res);
	assert_int_equal(model__thread_labels(m, 7), 0);
	assert_int_not_equal(model__thread_labels(m, 8), 0);
	model__free(m);
}

/* Drill-down by a label value: the filter keeps the samples with exactly those labels. */
static void filter_by_labels(void **state)
{
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;
	uint32_t lock;

	model__advance(m, T0);
	name(m, 0, "wait");
	labels(m, 7, "IO", 0);
	sample(m, 7, 6);
	labels(m, 7, NULL, 0);
	sample(m, 7, 4);
	labels(m, 8, "Lock", 0);
	sample(m, 8, 5);
	lock = model__thread_labels(m, 8);
	model__advance(m, T0 + NSEC_PER_SEC);

	model_query_init(&q);
	q.filter.labels_id = lock;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].tid, 8);
	assert_int_equal(res.rows[0].samples, 5);
	model_result__release(&res);

	q.filter.labels_id = MODEL_NO_LABELS;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].tid, 7);
	assert_int_equal(res.rows[0].samples, 4);
	model_result__release(&res);
	model__free(m);
}

static void records_round_trip(void **state)
{
	struct tt_thread_labels rec = {
		.hdr = {TT_EV_THREAD_LABELS, 1, sizeof(rec), 5}, .pid = 1, .tid = 2, .set_mask = 5};
	static _Alignas(8) unsigned char wire[TT_EVENT_MAX_SIZE], back[TT_EVENT_MAX_SIZE];

	rec.v[0].kind = TT_LABEL_STRING;
	strcpy(rec.v[0].str, "\x1b[31mevil");
	rec.v[2].kind = TT_LABEL_NUMBER;
	rec.v[2].num = UINT64_MAX;
	assert_int_equal(tt_event_encode(&rec.hdr, wire, sizeof(wire)), sizeof(rec));
	assert_int_equal(tt_event_decode(wire, sizeof(rec), (void *)back, sizeof(back), NULL),
			 sizeof(rec));
	assert_memory_equal(back, &rec, sizeof(rec));
}

/* Labels of tid as the kernel sends them (version 2: with their hash). */
static void hashed_labels(struct model *m, uint32_t tid, const char *phase, uint32_t hash)
{
	struct tt_thread_labels rec = {.hdr = {TT_EV_THREAD_LABELS, 2, sizeof(rec), T0},
				       .pid = 1,
				       .tid = tid,
				       .set_mask = 1,
				       .labels_hash = hash};

	rec.v[0].kind = TT_LABEL_STRING;
	strcpy(rec.v[0].str, phase);
	model__ingest(m, &rec.hdr);
}

/* n on-CPU samples of tid in stack 5; version 1 has no labels_hash. */
static void cpu_samples(struct model *m, uint32_t tid, unsigned version, uint32_t hash, int n)
{
	struct tt_cpu_sample s = {.hdr = {TT_EV_CPU_SAMPLE, (__u16)version, sizeof(s), T0},
				  .pid = 1,
				  .tid = tid,
				  .ustack_id = 5,
				  .weight_us = 10101,
				  .flags = version >= 2 ? TT_CPU_LABELS : 0,
				  .labels_hash = hash};

	if (version < 2)
		s.hdr.size = offsetof(struct tt_cpu_sample, labels_hash);
	for (int i = 0; i < n; i++)
		model__ingest(m, &s.hdr);
}

static const char *phase_of(struct model *m, uint32_t labels_id)
{
	const char *names[TT_LABEL_SLOTS], *values[TT_LABEL_SLOTS];

	return model__labels(m, labels_id, names, values) == 1 ? values[0] : "";
}

/*
 * An on-CPU sample's labels are those its hash names, even when the thread's
 * labels changed since; an unseen hash falls back to the thread's current
 * labels; a version 1 sample's are unknown. Rows split the stack by labels.
 */
static void cpu_samples_carry_labels_by_hash(void **state)
{
	struct model *m = model__new(NULL);
	struct model_stack_row *rows = NULL;
	struct model_filter f = {.syscall = MODEL_ANY_SYSCALL};
	uint64_t a = 0, b = 0, none = 0, unknown = 0;
	uint32_t id_a = 0;
	int nr;

	model__advance(m, T0);
	name(m, 0, "phase");
	hashed_labels(m, 7, "A", 0x111);
	cpu_samples(m, 7, 2, 0x111, 3);
	id_a = model__thread_labels(m, 7);
	hashed_labels(m, 7, "B", 0x222);
	cpu_samples(m, 7, 2, 0x222, 1);
	cpu_samples(m, 7, 2, 0x111, 1); /* sampled in A, the record of B came first */
	cpu_samples(m, 7, 2, 0x999, 2); /* its record was lost: the thread's current (B) */
	cpu_samples(m, 7, 2, 0, 4);	/* no labels set */
	cpu_samples(m, 7, 1, 0, 5);	/* an older recording */
	nr = model__oncpu(m, WIN_INTERVAL, &rows);
	assert_int_equal(nr, 4);
	for (int i = 0; i < nr; i++) {
		assert_int_equal(rows[i].ustack_id, 5);
		if (!rows[i].labels_known) {
			unknown += rows[i].value;
			assert_int_equal(rows[i].labels_id, 0);
			assert_true(model__stack_row_labels_pass(&f, &rows[i])); /* no filter */
		} else if (!rows[i].labels_id) {
			none += rows[i].value;
		} else if (!strcmp(phase_of(m, rows[i].labels_id), "A")) {
			a += rows[i].value;
			assert_int_equal(rows[i].labels_id, id_a);
		} else {
			assert_string_equal(phase_of(m, rows[i].labels_id), "B");
			b += rows[i].value;
		}
	}
	assert_int_equal(a, 4);
	assert_int_equal(b, 3);
	assert_int_equal(none, 4);
	assert_int_equal(unknown, 5);
	/* Drill-down by label value keeps exactly the rows with those labels. */
	f.labels_id = id_a;
	for (int i = 0; i < nr; i++)
		assert_int_equal(model__stack_row_labels_pass(&f, &rows[i]),
				 rows[i].labels_known && rows[i].labels_id == id_a);
	f.labels_id = MODEL_NO_LABELS;
	for (int i = 0; i < nr; i++)
		assert_int_equal(model__stack_row_labels_pass(&f, &rows[i]),
				 rows[i].labels_known && !rows[i].labels_id);
	assert_true(model__stack_row_labels_pass(NULL, &rows[0]));
	free(rows);
	model__free(m);
}

/*
 * The Group pane by labels: each combination's %CPU is that of the on-CPU
 * samples with those labels (99 samples at 99 Hz in one second = one CPU),
 * a combination only on-CPU samples had gets a row; a label filter keeps its
 * combination's CPU only; without on-CPU samples %CPU is not valid.
 */
static void group_by_labels_has_cpu(void **state)
{
	struct model *m = model__new(NULL);
	struct model_result res;
	struct model_query q;
	uint32_t id_a;
	bool seen_a = false, seen_b = false;

	model__advance(m, T0);
	name(m, 0, "phase");
	hashed_labels(m, 7, "A", 0x111);
	id_a = model__thread_labels(m, 7);
	sample(m, 7, 5);
	model_query_init(&q);
	q.dims = DIM_BIT(DIM_LABELS);
	q.window = WIN_SESSION;
	model__advance(m, T0 + NSEC_PER_SEC / 2);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_false(res.cpu_valid);
	model_result__release(&res);

	cpu_samples(m, 7, 2, 0x111, 99);
	hashed_labels(m, 7, "B", 0x222);
	cpu_samples(m, 7, 2, 0x222, 33);
	cpu_samples(m, 7, 1, 0, 50); /* labels unknown: no row's CPU */
	model__advance(m, T0 + NSEC_PER_SEC);
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_true(res.cpu_valid);
	assert_int_equal(res.nr, 2);
	for (size_t i = 0; i < res.nr; i++) {
		if (!strcmp(phase_of(m, res.rows[i].labels_id), "A")) {
			seen_a = true;
			assert_int_equal(res.rows[i].samples, 5);
			assert_float_equal(res.rows[i].cpu_pct, 100.0, 0.1);
		} else {
			seen_b = true;
			assert_string_equal(phase_of(m, res.rows[i].labels_id), "B");
			assert_int_equal(res.rows[i].samples, 0); /* only on-CPU samples had B */
			assert_float_equal(res.rows[i].cpu_pct, 33.3, 0.1);
		}
	}
	assert_true(seen_a && seen_b);
	model_result__release(&res);

	q.filter.labels_id = id_a;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_int_equal(res.nr, 1);
	assert_int_equal(res.rows[0].labels_id, id_a);
	model_result__release(&res);
	/* A state filter: on-CPU samples have no say, %CPU is not valid. */
	q.filter.labels_id = 0;
	q.filter.state_mask = 1u << TT_ST_S;
	assert_int_equal(model__query(m, &q, &res), 0);
	assert_false(res.cpu_valid);
	model_result__release(&res);
	model__free(m);
}

/* Off-CPU time goes to the labels the thread blocked with (version 2), unknown in version 1. */
static void offcpu_time_carries_labels(void **state)
{
	struct model *m = model__new(NULL);
	struct tt_offcpu o = {.hdr = {TT_EV_OFFCPU, 2, sizeof(o), T0},
			      .pid = 1,
			      .tid = 7,
			      .kstack_id = 3,
			      .total_ns = 1000,
			      .count = 1,
			      .kind = TT_OFFCPU_BLOCKED,
			      .labels_hash = 0x333};
	struct model_stack_row *rows = NULL;
	int nr;

	model__advance(m, T0);
	name(m, 0, "phase");
	hashed_labels(m, 7, "C", 0x333);
	model__ingest(m, &o.hdr);
	o.hdr.version = 1; /* the field was reserved, always 0: read as unknown */
	o.total_ns = 500;
	model__ingest(m, &o.hdr);
	nr = model__offcpu(m, WIN_INTERVAL, &rows);
	assert_int_equal(nr, 2);
	assert_int_equal(rows[0].value, 1000);
	assert_true(rows[0].labels_known);
	assert_string_equal(phase_of(m, rows[0].labels_id), "C");
	assert_int_equal(rows[1].value, 500);
	assert_false(rows[1].labels_known);
	free(rows);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(samples_carry_the_labels_of_their_time),
		cmocka_unit_test(filter_by_labels),
		cmocka_unit_test(records_round_trip),
		cmocka_unit_test(cpu_samples_carry_labels_by_hash),
		cmocka_unit_test(offcpu_time_carries_labels),
		cmocka_unit_test(group_by_labels_has_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
