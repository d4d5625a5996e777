// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the export dispatcher and every format's writer
 * (src/export*.c) on a synthetic model: formats from names, totals, frame
 * order, kernel marks, splitting by thread and state, hostile names
 * escaped, existing files kept. The independent decoders (pprof-format,
 * XML parser) run in the integration test export_formats.sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "export_files.h"
#include "export_fixture.h"
#include "profile.pb-c.h"
#include "export.h"

static struct model *model;

static int setup(void **state)
{
	model = fx_model();
	return fx_dir_make("/tmp/tt_export.XXXXXX");
}

static int teardown(void **state)
{
	model__free(model);
	return fx_dir_remove();
}

static struct export_opts opts(enum export_by by)
{
	return fx_opts(by, &fx_namer);
}

static void formats_from_names(void **state)
{
	enum export_format f;

	assert_int_equal(export_format_of_path("a.folded"), EXPORT_FOLDED);
	assert_int_equal(export_format_of_path("a.pb.gz"), EXPORT_PPROF);
	assert_int_equal(export_format_of_path("a.speedscope.json"), EXPORT_SPEEDSCOPE);
	assert_int_equal(export_format_of_path("A.JSON"), EXPORT_JSON);
	assert_int_equal(export_format_of_path("x/a.svg"), EXPORT_SVG);
	assert_int_equal(export_format_of_path("a.png"), EXPORT_AUTO);
	assert_int_equal(export_format_parse("speedscope", &f), 0);
	assert_int_equal(f, EXPORT_SPEEDSCOPE);
	assert_int_equal(export_format_parse("png", &f), -EINVAL);
	assert_string_equal(export_format_name(EXPORT_PPROF), "pprof");
}

static void folded(void **state)
{
	struct export_opts o = opts(EXPORT_BY_PROCESS);
	char err[256] = "", *text;

	assert_int_equal(fx_export(model, "a.folded", &o, err, sizeof(err)), 0);
	text = fx_slurp(fx_path("a.folded"));
	/* Sorted lines, process root, kernel frames marked, the hostile name escaped. */
	assert_string_equal(text, "app;[running] 5\n"
				  "app;fn_402000;fn_403000;kfn_ffffffff81000020_[k];"
				  "kfn_ffffffff81000010_[k] 10\n"
				  "app;fn_402000;hot<fn>&\"\\e[31m 30\n");
	free(text);
	/* The file exists now: refused, kept, and the message says what to do. */
	assert_int_equal(fx_export(model, "a.folded", &o, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "--force"));
	assert_non_null(strstr(err, "a.folded"));
	o.force = true;
	assert_int_equal(fx_export(model, "a.folded", &o, err, sizeof(err)), 0);
}

static void folded_by_tid_and_state(void **state)
{
	struct export_opts o = opts(EXPORT_BY_TID);
	char err[256] = "", *text;

	assert_int_equal(fx_export(model, "tid.folded", &o, err, sizeof(err)), 0);
	text = fx_slurp(fx_path("tid.folded"));
	assert_non_null(strstr(text, "app;worker [101];fn_402000;hot<fn>"));
	assert_non_null(strstr(text, "app;app [100];[running] 5\n"));
	free(text);
	o = opts(EXPORT_BY_STATE);
	assert_int_equal(fx_export(model, "state.folded", &o, err, sizeof(err)), 0);
	text = fx_slurp(fx_path("state.folded"));
	assert_non_null(strstr(text, "app;state R;[running] 5\n"));
	assert_non_null(strstr(text, "app;state S;fn_402000;fn_403000;"));
	free(text);
}

static void json_report(void **state)
{
	struct export_opts o = opts(EXPORT_BY_PROCESS);
	char err[256] = "", *text;

	assert_int_equal(fx_export(model, "r.json", &o, err, sizeof(err)), 0);
	text = fx_slurp(fx_path("r.json"));
	assert_non_null(strstr(text, "\"schema\":1"));
	assert_non_null(strstr(text, "\"kind\":\"report\""));
	assert_non_null(strstr(text, "\"report_version\":1"));
	assert_non_null(strstr(text, "\"luajit\":[")); /* LuaJIT counters, none here */
	assert_non_null(strstr(text, "\"host\":\"testhost\""));
	assert_non_null(strstr(text, "\"time\":\"2023-11-14T22:13:20.000Z\""));
	assert_non_null(strstr(text, "\"total_count\":45"));
	/* JSON escapes: the quote and the ESC byte. */
	assert_non_null(strstr(text, "\"name\":\"hot<fn>&\\\"\\u001b[31m\""));
	assert_null(strchr(text, '\x1b'));
	assert_non_null(strstr(text, "\"syscall\":\"clock_nanosleep\""));
	free(text);
}

static const char *pstr(const Tt__Pprof__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static void pprof(void **state)
{
	struct export_opts o = opts(EXPORT_BY_PROCESS);
	char err[256] = "";
	Tt__Pprof__Profile *p;
	uint64_t counts = 0, ns = 0;
	bool hot = false;
	uint8_t *buf;
	size_t len;

	assert_int_equal(fx_export(model, "p.pb.gz", &o, err, sizeof(err)), 0);
	buf = fx_gunzip(fx_path("p.pb.gz"), &len);
	p = tt__pprof__profile__unpack(NULL, len, buf);
	assert_non_null(p);
	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 2);
	assert_string_equal(pstr(p, p->sample_type[0]->type), "thread_samples");
	assert_string_equal(pstr(p, p->sample_type[1]->unit), "nanoseconds");
	assert_string_equal(pstr(p, p->default_sample_type), "thread_time");
	assert_int_equal(p->period, 50000000);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Tt__Pprof__Sample *s = p->sample[i];
		const Tt__Pprof__Location *leaf = NULL;

		counts += (uint64_t)s->value[0];
		ns += (uint64_t)s->value[1];
		for (size_t k = 0; k < p->n_location; k++)
			if (p->location[k]->id == s->location_id[0])
				leaf = p->location[k];
		assert_non_null(leaf);
		/* Leaf first: the worker's leaf is the hot function, named intact. */
		for (size_t k = 0; k < p->n_function; k++)
			if (p->function[k]->id == leaf->line[0]->function_id &&
			    !strcmp(pstr(p, p->function[k]->name), FX_HOSTILE))
				hot = true;
		for (size_t k = 0; k < s->n_label; k++)
			if (!strcmp(pstr(p, s->label[k]->key), "tid") && s->label[k]->num == 101)
				assert_int_equal(s->value[0], 30);
	}
	assert_true(hot);
	assert_int_equal(counts, 45);
	assert_int_equal(ns, 45ull * 50000000);
	tt__pprof__profile__free_unpacked(p, NULL);
	free(buf);
}

static void speedscope(void **state)
{
	struct export_opts o = opts(EXPORT_BY_PROCESS);
	char err[256] = "", *text;

	assert_int_equal(fx_export(model, "s.speedscope.json", &o, err, sizeof(err)), 0);
	text = fx_slurp(fx_path("s.speedscope.json"));
	assert_non_null(
		strstr(text, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""));
	assert_non_null(strstr(text, "\"name\":\"worker (101) threads\""));
	assert_non_null(strstr(text, "\"name\":\"app (100) threads\""));
	assert_non_null(strstr(text, "\"weights\":[1500000000]"));
	assert_non_null(strstr(text, "\"name\":\"hot<fn>&\\\"\\u001b[31m\""));
	assert_non_null(strstr(text, "\"activeProfileIndex\":1")); /* the busy worker */
	free(text);
}

static void svg(void **state)
{
	struct export_opts o = opts(EXPORT_BY_PROCESS);
	char err[256] = "", *text;

	assert_int_equal(fx_export(model, "f.svg", &o, err, sizeof(err)), 0);
	text = fx_slurp(fx_path("f.svg"));
	assert_non_null(strstr(text, "<svg "));
	assert_non_null(strstr(text, "function init(evt)"));
	assert_non_null(strstr(text, "data-name=\"hot&lt;fn&gt;&amp;&quot;\\e[31m\""));
	assert_non_null(strstr(text, "(30 samples, 66.67%)"));
	assert_non_null(strstr(text, "data-name=\"kfn_ffffffff81000010\""));
	assert_null(strchr(text, '\x1b'));
	free(text);
}

/* With on-CPU and off-CPU data: one folded file per kind, all kinds in one pprof. */
static void traced(void **state)
{
	struct model *saved = model;
	struct export_opts o = opts(EXPORT_BY_PROCESS);
	struct export_result res;
	char err[256] = "", *text, path[160];
	Tt__Pprof__Profile *p;
	uint8_t *buf;
	size_t len;

	model = fx_model_traced();
	o.cpu_hz = 100;
	assert_int_equal(export__write(model, fx_path("t.folded"), &o, &res, err, sizeof(err)), 0);
	assert_int_equal(res.nr, 3);
	snprintf(path, sizeof(path), "%s", fx_path("t.threads.folded"));
	assert_string_equal(res.paths[1], path);
	snprintf(path, sizeof(path), "%s", fx_path("t.offcpu.folded"));
	assert_string_equal(res.paths[2], path);
	export_result__release(&res);
	text = fx_slurp(fx_path("t.folded"));
	assert_string_equal(text, "app;fn_402000;hot<fn>&\"\\e[31m 40\n"
				  "app;kfn_ffffffff81000020_[k];kfn_ffffffff81000010_[k] 8\n");
	free(text);
	text = fx_slurp(fx_path("t.offcpu.folded"));
	assert_string_equal(text, "app;fn_402000;fn_403000;kfn_ffffffff81000020_[k];"
				  "kfn_ffffffff81000010_[k] 700000000\n");
	free(text);
	/* A sibling name taken: nothing is written. */
	assert_int_equal(export__write(model, fx_path("u.folded"), &o, &res, err, sizeof(err)), 0);
	export_result__release(&res);
	unlink(fx_path("u.folded"));
	unlink(fx_path("u.threads.folded"));
	assert_int_equal(export__write(model, fx_path("u.folded"), &o, &res, err, sizeof(err)),
			 -EEXIST);
	assert_non_null(strstr(err, "u.offcpu.folded"));
	assert_int_equal(access(fx_path("u.folded"), F_OK), -1);

	assert_int_equal(fx_export(model, "t.pb.gz", &o, err, sizeof(err)), 0);
	buf = fx_gunzip(fx_path("t.pb.gz"), &len);
	p = tt__pprof__profile__unpack(NULL, len, buf);
	assert_non_null(p);
	assert_int_equal(p->n_sample_type, 6);
	assert_string_equal(pstr(p, p->sample_type[3]->type), "cpu");
	assert_string_equal(pstr(p, p->sample_type[5]->type), "offcpu");
	assert_string_equal(pstr(p, p->default_sample_type), "cpu");
	assert_int_equal(p->period, 10000000);
	tt__pprof__profile__free_unpacked(p, NULL);
	free(buf);
	model__free(model);
	model = saved;
}

/* Application labels travel as pprof labels and in the JSON report's samples. */
static void labels(void **state)
{
	struct model *m = model__new(NULL);
	struct export_opts o = opts(EXPORT_BY_PROCESS);
	struct tt_label_name ln = {
		.hdr = {TT_EV_LABEL_NAME, TT_LABEL_NAME_VERSION, sizeof(ln), FX_T0},
		.slot = 0,
		.name = "route",
	};
	struct tt_thread_labels tl = {
		.hdr = {TT_EV_THREAD_LABELS, TT_THREAD_LABELS_VERSION, sizeof(tl), FX_T0},
		.pid = 100,
		.tid = 101,
		.set_mask = 1,
		.v[0] = {.kind = TT_LABEL_STRING, .str = "/api<&>"},
	};
	struct export_result res;
	Tt__Pprof__Profile *p;
	char err[256] = "", *text;
	bool found = false;
	uint8_t *buf;
	size_t len;

	model__advance(m, FX_T0);
	model__ingest(m, &ln.hdr);
	model__ingest(m, &tl.hdr);
	for (int i = 0; i < 4; i++)
		fx_sample(m, FX_T0 + (uint64_t)i * 1000, 100, 101, "worker", TT_ST_R,
			  TT_SYSCALL_NONE, 0, 0);
	assert_int_equal(export__write(m, fx_path("l.pb.gz"), &o, &res, err, sizeof(err)), 0);
	export_result__release(&res);
	assert_int_equal(export__write(m, fx_path("l.json"), &o, &res, err, sizeof(err)), 0);
	export_result__release(&res);
	buf = fx_gunzip(fx_path("l.pb.gz"), &len);
	p = tt__pprof__profile__unpack(NULL, len, buf);
	assert_non_null(p);
	for (size_t k = 0; k < p->sample[0]->n_label; k++)
		if (!strcmp(pstr(p, p->sample[0]->label[k]->key), "route")) {
			assert_string_equal(pstr(p, p->sample[0]->label[k]->str), "/api<&>");
			found = true;
		}
	assert_true(found);
	tt__pprof__profile__free_unpacked(p, NULL);
	free(buf);
	text = fx_slurp(fx_path("l.json"));
	assert_non_null(strstr(text, "\"labels\":{\"route\":\"/api<&>\"}"));
	free(text);
	/* --export-by label:route: the value is the root frame; samples without it say so. */
	fx_sample(m, FX_T0 + 9000, 100, 100, "app", TT_ST_S, TT_SYSCALL_NONE, 0, 0);
	o.by = EXPORT_BY_LABEL;
	o.by_label = "route";
	assert_int_equal(export__write(m, fx_path("l.folded"), &o, &res, err, sizeof(err)), 0);
	export_result__release(&res);
	text = fx_slurp(fx_path("l.folded"));
	assert_string_equal(text, "[no route];app;[sleeping] 1\n"
				  "route=/api<&>;app;[running] 4\n");
	free(text);
	model__free(m);
}

/*
 * On-CPU samples carry labels: --export-by label:phase splits the on-CPU
 * folded file by them ("[no phase]" for none, "[labels unknown]" for a
 * version 1 sample), and their pprof samples have the label.
 */
static void labels_on_cpu_samples(void **state)
{
	struct model *m = model__new(NULL);
	struct export_opts o = opts(EXPORT_BY_LABEL);
	struct tt_label_name ln = {
		.hdr = {TT_EV_LABEL_NAME, TT_LABEL_NAME_VERSION, sizeof(ln), FX_T0},
		.slot = 0,
		.name = "phase",
	};
	struct tt_thread_labels tl = {
		.hdr = {TT_EV_THREAD_LABELS, TT_THREAD_LABELS_VERSION, sizeof(tl), FX_T0},
		.pid = 100,
		.tid = 101,
		.set_mask = 1,
		.labels_hash = 0x111,
		.v[0] = {.kind = TT_LABEL_STRING, .str = "A"},
	};
	struct export_result res;
	Tt__Pprof__Profile *p;
	char err[256] = "", *text;
	size_t len, labelled = 0;
	uint8_t *buf;

	model__advance(m, FX_T0);
	model__ingest(m, &ln.hdr);
	model__ingest(m, &tl.hdr);
	fx_sample(m, FX_T0, 100, 101, "worker", TT_ST_R, TT_SYSCALL_NONE, 0, 0);
	for (int i = 0; i < 7; i++) {
		struct tt_cpu_sample s = {
			.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s), FX_T0 + 1000},
			.pid = 100,
			.tid = 101,
			.ustack_id = 7,
			.weight_us = 10000,
			.flags = TT_CPU_LABELS,
			.labels_hash = i < 4 ? 0x111 : 0,
			.comm = "worker",
		};

		if (i == 6) { /* a recording of before: version 1, no labels_hash */
			s.hdr.version = 1;
			s.hdr.size = offsetof(struct tt_cpu_sample, labels_hash);
			s.flags = 0;
		}
		model__ingest(m, &s.hdr);
	}
	model__advance(m, FX_T0 + NSEC_PER_SEC);
	o.by_label = "phase";
	o.cpu_hz = 100;
	assert_int_equal(export__write(m, fx_path("c.folded"), &o, &res, err, sizeof(err)), 0);
	export_result__release(&res);
	text = fx_slurp(fx_path("c.folded"));
	/* No stack records here: the frames are "[unknown]". */
	assert_string_equal(text, "[labels unknown];worker;[unknown] 1\n"
				  "[no phase];worker;[unknown] 2\n"
				  "phase=A;worker;[unknown] 4\n");
	free(text);
	unlink(fx_path("c.threads.folded"));
	o.by = EXPORT_BY_PROCESS;
	assert_int_equal(export__write(m, fx_path("c.pb.gz"), &o, &res, err, sizeof(err)), 0);
	export_result__release(&res);
	buf = fx_gunzip(fx_path("c.pb.gz"), &len);
	p = tt__pprof__profile__unpack(NULL, len, buf);
	assert_non_null(p);
	/* Sample values: thread samples, their ns, CPU samples, their ns, ... */
	for (size_t i = 0; i < p->n_sample; i++)
		for (size_t k = 0; k < p->sample[i]->n_label; k++)
			if (!strcmp(pstr(p, p->sample[i]->label[k]->key), "phase") &&
			    p->sample[i]->n_value > 2 && p->sample[i]->value[2]) {
				assert_string_equal(pstr(p, p->sample[i]->label[k]->str), "A");
				labelled += (size_t)p->sample[i]->value[2];
			}
	assert_int_equal(labelled, 4);
	tt__pprof__profile__free_unpacked(p, NULL);
	free(buf);
	model__free(m);
}

static void bad_names(void **state)
{
	struct export_opts o = opts(EXPORT_BY_PROCESS);
	char err[256] = "";

	assert_int_equal(fx_export(model, "a.png", &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--export-format"));
	assert_int_equal(fx_export(model, "nodir/a.json", &o, err, sizeof(err)), -ENOENT);
	assert_int_equal(export__check(fx_path("nodir/a.json"), &o, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "nodir"));
	o.format = EXPORT_FOLDED;
	assert_int_equal(fx_export(model, "forced.png", &o, err, sizeof(err)), 0);
	assert_int_equal(export__check(fx_path("forced.png"), &o, err, sizeof(err)), -EEXIST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(formats_from_names),
		cmocka_unit_test(folded),
		cmocka_unit_test(folded_by_tid_and_state),
		cmocka_unit_test(json_report),
		cmocka_unit_test(pprof),
		cmocka_unit_test(speedscope),
		cmocka_unit_test(svg),
		cmocka_unit_test(traced),
		cmocka_unit_test(labels),
		cmocka_unit_test(labels_on_cpu_samples),
		cmocka_unit_test(bad_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
