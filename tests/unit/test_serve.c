// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for --serve's pure parts: the HTTP request head parser and
 * query parameters, Prometheus label escaping, the /metrics text of a
 * known model (top N and "other"), and profile__subtract, whose window must
 * equal the profile of a model fed only that window's records.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "export_fixture.h"
#include "http_request.h"
#include "profile.h"
#include "serve_internal.h"

static int parse(const char *s, struct http_request *r)
{
	return http_parse_request(s, strlen(s), r);
}

static void request_heads(void **state)
{
	static struct http_request r;
	char big[HTTP_MAX_HEAD + 64];
	const char *ok =
		"GET /debug/pprof/profile?seconds=3&pid=7 HTTP/1.1\r\nHost: x\r\n"
		"Authorization: Bearer abc\r\nAccept: application/openmetrics-text\r\n\r\n";

	assert_int_equal(parse(ok, &r), (int)strlen(ok));
	assert_string_equal(r.path, "/debug/pprof/profile");
	assert_string_equal(r.query, "seconds=3&pid=7");
	assert_string_equal(r.auth, "Bearer abc");
	assert_true(r.keep_alive);
	assert_true(r.accept_openmetrics);
	assert_false(r.head);
	/* Bare LF ends, HTTP/1.0 closes unless asked, HEAD has no body. */
	assert_true(parse("HEAD /metrics HTTP/1.0\n\n", &r) > 0);
	assert_true(r.head);
	assert_false(r.keep_alive);
	assert_true(parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", &r) > 0);
	assert_false(r.keep_alive);
	/* Not whole yet: read more. */
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r), 0);
	assert_int_equal(parse("GE", &r), 0);
	/* Refusals, each with its status. */
	assert_int_equal(parse("POST /metrics HTTP/1.1\r\n\r\n", &r), -405);
	assert_int_equal(parse("GET metrics HTTP/1.1\r\n\r\n", &r), -400);
	assert_int_equal(parse("GET /metrics HTTP/2.0\r\n\r\n", &r), -505);
	assert_int_equal(parse("GET /metrics FTP/1.1\r\n\r\n", &r), -400);
	assert_int_equal(parse("GET /a\rb HTTP/1.1\r\n\r\n", &r), -400);
	assert_int_equal(parse("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", &r), -400);
	assert_int_equal(parse("GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", &r), -400);
	assert_int_equal(parse("GET / HTTP/1.1\r\nBad Name: a\r\n\r\n", &r), -400);
	assert_int_equal(parse("GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", &r), -413);
	assert_int_equal(parse("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", &r) > 0, 1);
	assert_int_equal(parse("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &r), -413);
	/* Sizes: a long target, many headers, a head past the bound. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(parse(big, &r), -414);
	strcpy(big, "GET / HTTP/1.1\r\n");
	for (int i = 0; i <= HTTP_MAX_HEADERS; i++)
		strcat(big, "X-A: b\r\n");
	strcat(big, "\r\n");
	assert_int_equal(parse(big, &r), -431);
	strcpy(big, "GET / HTTP/1.1\r\nX-Big: ");
	memset(big + strlen(big), 'b', HTTP_MAX_HEAD);
	big[HTTP_MAX_HEAD + 30] = '\0';
	assert_int_equal(parse(big, &r), -431);
}

static void query_params(void **state)
{
	char v[16];

	assert_int_equal(http_query_param("seconds=3&comm=a%20b+c", "comm", v, sizeof(v)), 5);
	assert_string_equal(v, "a b c");
	assert_int_equal(http_query_param("seconds=3", "seconds", v, sizeof(v)), 1);
	assert_string_equal(v, "3");
	assert_int_equal(http_query_param("xseconds=3", "seconds", v, sizeof(v)), -ENOENT);
	assert_int_equal(http_query_param("", "pid", v, sizeof(v)), -ENOENT);
	assert_int_equal(http_query_param("pid=%zz", "pid", v, sizeof(v)), -EINVAL);
	assert_int_equal(http_query_param("pid=%4", "pid", v, sizeof(v)), -EINVAL);
	assert_int_equal(http_query_param("comm=%1b", "comm", v, sizeof(v)), -EINVAL);
	assert_int_equal(http_query_param("comm=%00", "comm", v, sizeof(v)), -EINVAL);
	assert_int_equal(http_query_param("comm=0123456789abcdef", "comm", v, sizeof(v)), -E2BIG);
}

static char *label(const char *v)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	serve_label_value(f, v);
	fclose(f);
	return buf;
}

static void label_values(void **state)
{
	assert_string_equal(label("nginx"), "nginx");
	/* A backslash is the escaper's own escape: it stays unambiguous, doubled. */
	assert_string_equal(label("a\"b\\c"), "a\\\"b\\\\\\\\c");
	/* A newline or escape byte never reaches the text raw. */
	assert_string_equal(label("x\ny"), "x\\\\ny");
	assert_string_equal(label("\x1b[31m"), "\\\\e[31m");
	for (const char *p = label("\x01\x7f\xff\t\r"); *p; p++)
		assert_true((unsigned char)*p >= 0x20 && (unsigned char)*p != 0x7f);
}

static void proc_sample(struct model *m, uint64_t t, uint32_t pid, const char *comm,
			enum tt_state st)
{
	fx_sample(m, t, pid, pid, comm, st, TT_SYSCALL_NONE, 0, 0);
}

static void metrics_top(void **state)
{
	struct model *m = fx_model();
	struct serve s = {.o = {.top = 1}};
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	/* Two more processes: one sleeping, one half running. */
	for (int i = 0; i < 30; i++) {
		uint64_t t = FX_T0 + (uint64_t)i * NSEC_PER_SEC / 20;

		proc_sample(m, t, 300, "sleepy", TT_ST_S);
		proc_sample(m, t, 400, "half", i % 2 ? TT_ST_R : TT_ST_S);
		/* Threads in read and write beside app's clock_nanosleep: two go to "other". */
		fx_sample(m, t, 500, 500, "sys", TT_ST_S, 0, 0, 0);
		fx_sample(m, t, 500, 501, "sys", TT_ST_S, 1, 0, 0);
	}
	model__end_interval(m, FX_T0 + 3 * NSEC_PER_SEC / 2);
	f = open_memstream(&text, &len);
	assert_int_equal(serve_metrics_write(&s, m, f), 0);
	fclose(f);
	if (getenv("TT_SHOW"))
		fputs(text, stderr);
	/*
	 * pid 100: 35 active samples of 50 ms in 1.5 s; pid 400: 15 of them;
	 * in S: 300, half of 400, 500 twice.
	 */
	assert_non_null(strstr(text, "threadtop_active_threads{pid=\"100\",comm=\"app\"} 1.1666"));
	assert_non_null(
		strstr(text, "threadtop_active_threads{pid=\"other\",comm=\"other\"} 0.5\n"));
	assert_non_null(
		strstr(text, "threadtop_threads{pid=\"other\",comm=\"other\",state=\"S\"} 3.5\n"));
	assert_non_null(
		strstr(text, "threadtop_threads{pid=\"100\",comm=\"app\",state=\"R\"} 1.1666"));
	assert_null(strstr(text, "pid=\"300\""));
	/* One space between a series and its value, "other" rows too (OpenMetrics). */
	assert_non_null(strstr(text, "threadtop_syscall_threads{syscall=\"other\"} 1.3333"));
	for (const char *p = text; (p = strchr(p, '}')); p++)
		assert_true(p[1] != ' ' || p[2] != ' ');
	assert_non_null(strstr(text, "# TYPE threadtop_ticks_total counter\n"));
	assert_non_null(
		strstr(text, "threadtop_dropped_events_total{reason=\"ringbuf_full\"} 0\n"));
	free(text);
	model__free(m);
}

/* Total count of samples of kind in p, and of those in thread tid. */
static uint64_t count_of(const struct profile *p, enum profile_kind kind, uint32_t tid)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].kind == kind && (!tid || p->samples[i].tid == tid))
			n += p->samples[i].count;
	return n;
}

/* Distinct samples of kind in p. */
static size_t nr_of(const struct profile *p, enum profile_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nr_samples; i++)
		n += p->samples[i].kind == kind;
	return n;
}

/* The second part of the window: 20 more hot samples, 6 asleep, 10 on-CPU. */
static void more(struct model *m, uint64_t t0)
{
	for (int i = 0; i < 20; i++) {
		uint64_t t = t0 + (uint64_t)i * NSEC_PER_SEC / 20;
		struct tt_cpu_sample c = {
			.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(c), t},
			.pid = 100,
			.tid = 101,
			.ustack_id = FX_USTACK_HOT,
			.weight_us = 10000,
			.comm = "worker",
		};

		fx_sample(m, t, 100, 101, "worker", TT_ST_R, TT_SYSCALL_NONE, 0, FX_USTACK_HOT);
		if (i < 6)
			fx_sample(m, t, 100, 100, "app", TT_ST_S, 230, FX_KSTACK, FX_USTACK_SLEEP);
		if (i < 10)
			model__ingest(m, &c.hdr);
	}
	model__advance(m, t0 + NSEC_PER_SEC);
}

static void profile_window(void **state)
{
	struct model *m = fx_model_traced(), *fresh = fx_model_traced();
	struct profile_opts po = {WIN_SESSION, NULL, &fx_namer, 100};
	uint64_t t1 = FX_T0 + 2 * NSEC_PER_SEC;
	struct profile *before = profile__build(m, &po), *after, *only;

	more(m, t1);
	after = profile__build(m, &po);
	profile__subtract(after, before, 1u << PROFILE_THREADS);
	assert_int_equal(after->kinds, 1u << PROFILE_THREADS);
	assert_int_equal(after->total_count[PROFILE_THREADS], 26);
	assert_int_equal(count_of(after, PROFILE_THREADS, 101), 20);
	assert_int_equal(count_of(after, PROFILE_ONCPU, 0), 0);
	/* The same window from a model that saw only it (and the dictionaries). */
	model__reset(fresh);
	model__advance(fresh, t1);
	fx_stack(fresh, FX_KSTACK, 0, TT_STACK_KERNEL,
		 (const uint64_t[]){0xffffffff81000010ull, 0xffffffff81000020ull}, 2);
	fx_stack(fresh, FX_USTACK_HOT, 100, 0, (const uint64_t[]){FX_HOT_ADDR, 0x402000ull}, 2);
	fx_stack(fresh, FX_USTACK_SLEEP, 100, 0, (const uint64_t[]){0x403000ull, 0x402000ull}, 2);
	more(fresh, t1);
	only = profile__build(fresh, &po);
	assert_int_equal(count_of(only, PROFILE_THREADS, 0), 26);
	assert_int_equal(count_of(only, PROFILE_THREADS, 100),
			 count_of(after, PROFILE_THREADS, 100));
	assert_int_equal(after->nr_samples, nr_of(only, PROFILE_THREADS));
	profile__free(after);

	after = profile__build(m, &po);
	profile__subtract(after, before, 1u << PROFILE_ONCPU);
	assert_int_equal(after->total_count[PROFILE_ONCPU], 10);
	assert_int_equal(after->total_count[PROFILE_ONCPU], only->total_count[PROFILE_ONCPU]);
	assert_int_equal(after->nr_samples, 1);
	profile__free(after);
	profile__free(only);
	profile__free(before);
	model__free(m);
	model__free(fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(request_heads),  cmocka_unit_test(query_params),
		cmocka_unit_test(label_values),	  cmocka_unit_test(metrics_top),
		cmocka_unit_test(profile_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
