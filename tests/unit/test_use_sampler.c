// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the USE sampler on fixture /proc and /sys trees
 * (tests/fixtures/use/SCENARIO/{t0,t1}/{proc,sys}): a busy box where every
 * resource is saturated, an idle box without PSI or cgroup v2, wrapped and
 * reset counters, and a tree with most files missing. Each scenario reads
 * t0 as the baseline and t1 one second later.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "event_codec.h"
#include "use_model.h"
#include "use_sampler.h"

#define MAX_RECS 64
#define T0 1000000000ull
#define T1 2000000000ull

struct collected {
	struct tt_use_metric recs[MAX_RECS];
	size_t nr;
	struct tt_host_stats host; /* the latest TT_EV_HOST_STATS */
	size_t nr_host;
};

static void collect(void *ctx, const struct tt_event_header *ev)
{
	struct collected *c = ctx;

	assert_int_equal(tt_event_validate(ev, ev->size), 0);
	if (ev->type == TT_EV_HOST_STATS) { /* the header's figures, one per sample */
		memcpy(&c->host, ev, sizeof(c->host));
		c->nr_host++;
		return;
	}
	assert_int_equal(ev->type, TT_EV_USE_METRIC);
	assert_true(c->nr < MAX_RECS);
	memcpy(&c->recs[c->nr++], ev, sizeof(c->recs[0]));
}

static void roots(const char *scenario, const char *t, char *proc, char *sys, size_t len)
{
	snprintf(proc, len, "%s/use/%s/%s/proc", TT_FIXTURES, scenario, t);
	snprintf(sys, len, "%s/use/%s/%s/sys", TT_FIXTURES, scenario, t);
}

/* Baseline t0, two ticks, sample t1. Returns the sampler's missing bits. */
static unsigned run(const char *scenario, struct collected *c)
{
	char proc[512], sys[512];
	struct use_sampler_opts o = {proc, sys};
	struct event_sink sink = {collect, c};
	struct use_sampler *us;
	unsigned missing;
	int n;

	memset(c, 0, sizeof(*c));
	roots(scenario, "t0", proc, sys, sizeof(proc));
	us = use_sampler__new(&o, sink, T0);
	assert_non_null(us);
	use_sampler__tick(us, T0 + 400000000);
	use_sampler__tick(us, T0 + 800000000);
	roots(scenario, "t1", proc, sys, sizeof(proc));
	assert_int_equal(use_sampler__set_roots(us, &o), 0);
	n = use_sampler__sample(us, T1);
	assert_int_equal(n, (int)c->nr);
	missing = use_sampler__missing(us);
	use_sampler__free(us);
	return missing;
}

static const struct tt_use_metric *find(const struct collected *c, const char *name)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->recs[i].name, name))
			return &c->recs[i];
	return NULL;
}

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void test_busy(void **state)
{
	const struct tt_use_metric *r;
	struct collected c;
	unsigned missing = run("busy", &c);

	assert_int_equal(missing, 0);
	/* The box for the header: loadavg "4.00 3.00 2.00 5/300", meminfo of t1. */
	assert_true(c.nr_host >= 1);
	assert_int_equal(c.host.load_milli[0], 4000);
	assert_int_equal(c.host.load_milli[1], 3000);
	assert_int_equal(c.host.load_milli[2], 2000);
	assert_int_equal(c.host.nr_tasks, 300);
	assert_int_equal(c.host.mem_total_kb, 1000000);
	assert_int_equal(c.host.mem_avail_kb, 50000);
	assert_int_equal(c.host.swap_total_kb, 0);
	/* CPU: 190 of 200 ticks busy; 5 runnable minus ourselves on 2 CPUs; PSI 80 %. */
	r = find(&c, "cpu");
	assert_non_null(r);
	assert_int_equal(r->index, TT_USE_ALL);
	assert_int_equal(r->interval_ns, T1 - T0);
	assert_near(use_util_pct(r), 95.0, 0.01);
	assert_int_equal(r->sat_what, TT_USE_FIG_RUNNABLE_PER_CPU);
	assert_near(use_sat_value(r), 2.0, 0.001);
	assert_near(use_psi_some_pct(r), 80.0, 0.01);
	assert_true(r->flags & TT_USE_SATURATED);
	r = find(&c, "cpu0");
	assert_non_null(r);
	assert_int_equal(r->index, 0);
	assert_near(use_util_pct(r), 90.0, 0.01);
	assert_near(use_util_pct(find(&c, "cpu1")), 100.0, 0.01);
	/* Memory: 95 % used; 200 + 300 swapped + 100 direct-scanned pages; one OOM kill. */
	r = find(&c, "memory");
	assert_non_null(r);
	assert_near(use_util_pct(r), 95.0, 0.01);
	assert_near(use_sat_value(r), 600.0, 0.01);
	assert_near(use_aux_value(r), 4000.0, 0.01);
	assert_true(r->flags & TT_USE_SATURATED);
	assert_true(r->flags & TT_USE_ERRORS_KNOWN);
	assert_int_equal(r->errors, 1);
	assert_near(use_psi_full_pct(r), 1.0, 0.01);
	/* Disk: 900 of 1000 ms busy, queue 2.5, await 500 ms / 200 I/Os, 2 I/O errors;
	 * the partition and the idle loop device are not reported. */
	r = find(&c, "vda");
	assert_non_null(r);
	assert_near(use_util_pct(r), 90.0, 0.01);
	assert_near(use_sat_value(r), 2.5, 0.001);
	assert_near(use_aux_value(r), 2.5, 0.001);
	assert_int_equal(r->errors, 2);
	assert_near(use_psi_some_pct(r), 5.0, 0.01);
	assert_true(r->flags & TT_USE_SATURATED);
	assert_null(find(&c, "vda1"));
	assert_null(find(&c, "loop0"));
	/* Network: 500 Mb/s on a 1000 Mb/s link, 20 drops/s, 1 error; lo and the
	 * silent ifb0 are left out. */
	r = find(&c, "eth0");
	assert_non_null(r);
	assert_near(use_util_pct(r), 50.0, 0.01);
	assert_near(use_sat_value(r), 20.0, 0.001);
	assert_int_equal(r->errors, 1);
	assert_true(r->flags & TT_USE_SATURATED);
	assert_null(find(&c, "lo"));
	assert_null(find(&c, "ifb0"));
	/* TCP: 50 of 1000 segments retransmitted; 3 input errors. */
	r = find(&c, "tcp");
	assert_non_null(r);
	assert_near(use_sat_value(r), 5.0, 0.001);
	assert_int_equal(r->errors, 3);
	assert_true(r->flags & TT_USE_SATURATED);
	/* Cgroup with a half-CPU quota: used all of it, throttled 10 % of the time;
	 * the unlimited one and the root are not reported. */
	r = find(&c, "/app");
	assert_non_null(r);
	assert_int_equal(r->kind, TT_USE_CGROUP_CPU);
	assert_near(use_util_pct(r), 100.0, 0.01);
	assert_near(use_sat_value(r), 10.0, 0.001);
	assert_true(r->flags & TT_USE_SATURATED);
	assert_null(find(&c, "/free"));
}

static void test_busy_verdict(void **state)
{
	struct use_model *um = use_model__new();
	struct use_verdict v;
	struct collected c;

	run("busy", &c);
	for (size_t i = 0; i < c.nr; i++)
		use_model__ingest(um, &c.recs[i]);
	use_model__verdict(um, &v);
	/* Everything is saturated; CPU ranks first through its PSI some share. */
	assert_int_equal(v.level, USE_VERDICT_SATURATED);
	assert_string_equal(v.name, "cpu");
	assert_int_equal(v.nr_saturated, 6);
	assert_non_null(strstr(v.text, "CPU saturated: 2.00 runnable per CPU > 1.00"));
	assert_non_null(strstr(v.text, "95% busy"));
	assert_true(v.nr_evidence >= 2);
	assert_string_equal(v.evidence[0].metric, "runnable_per_cpu");
	assert_string_equal(v.evidence[0].source, "/proc/loadavg");
	/* Errors at any load: memory (OOM kill), vda, eth0, tcp. */
	assert_int_equal(v.nr_errors, 4);
	use_model__free(um);
}

static void test_idle(void **state)
{
	const struct tt_use_metric *r;
	struct use_model *um = use_model__new();
	struct use_verdict v;
	struct collected c;
	unsigned missing = run("idle", &c);

	/* No /proc/pressure and no cgroup v2: said, the rest measured. */
	assert_true(missing & USE_MISSING_PSI);
	assert_true(missing & USE_MISSING_CGROUP2);
	assert_false(missing & USE_MISSING_DISKSTATS);
	r = find(&c, "cpu");
	assert_non_null(r);
	assert_near(use_util_pct(r), 0.0, 0.001);
	assert_near(use_sat_value(r), 0.0, 0.001);
	assert_int_equal(r->psi_some_milli, TT_USE_UNKNOWN);
	assert_false(r->flags & TT_USE_SATURATED);
	r = find(&c, "vda");
	assert_non_null(r);
	assert_near(use_util_pct(r), 0.0, 0.001);
	r = find(&c, "eth0");
	assert_non_null(r);
	assert_int_equal(r->util_milli, TT_USE_UNKNOWN); /* speed -1: a virtual NIC */
	for (size_t i = 0; i < c.nr; i++)
		use_model__ingest(um, &c.recs[i]);
	use_model__verdict(um, &v);
	assert_int_equal(v.level, USE_VERDICT_OK);
	assert_string_equal(v.text, "nothing saturated (busiest: memory 10%)");
	assert_int_equal(v.nr_errors, 0);
	use_model__free(um);
}

static void test_wrapped(void **state)
{
	const struct tt_use_metric *r;
	struct collected c;

	run("wrapped", &c);
	/* 32-bit diskstats counters wrapped: busy 4294967000 -> 300 is 596 ms. */
	r = find(&c, "sda");
	assert_non_null(r);
	assert_near(use_util_pct(r), 59.6, 0.01);
	assert_near(use_sat_value(r), 0.896, 0.001);
	assert_near(use_aux_value(r), 2000.0 / 592.0, 0.001);
	/* 64-bit NIC counters went down (driver reset): no bogus traffic. */
	r = find(&c, "eth0");
	assert_non_null(r);
	assert_near(use_aux_value(r), 0.0, 0.001);
	/* An old kernel without MemAvailable: free + buffers + cached. */
	assert_near(use_util_pct(find(&c, "memory")), 89.7, 0.01);
}

static void test_missing(void **state)
{
	const struct tt_use_metric *r;
	struct collected c;
	unsigned missing = run("missing", &c);

	assert_true(missing & USE_MISSING_LOADAVG);
	assert_true(missing & USE_MISSING_DISKSTATS);
	assert_true(missing & USE_MISSING_NET_DEV);
	assert_true(missing & USE_MISSING_SNMP);
	assert_true(missing & USE_MISSING_VMSTAT);
	assert_true(missing & USE_MISSING_PSI);
	assert_true(missing & USE_MISSING_CGROUP2);
	assert_non_null(use_missing_text(USE_MISSING_PSI));
	/* CPU and memory still measured: cpu, cpu0, memory. */
	assert_int_equal(c.nr, 3);
	r = find(&c, "cpu");
	assert_near(use_util_pct(r), 50.0, 0.01);
	/* No loadavg ticks: procs_running (2, minus ourselves) on one CPU. */
	assert_near(use_sat_value(r), 1.0, 0.001);
	assert_false(r->flags & TT_USE_SATURATED);
	r = find(&c, "memory");
	assert_int_equal(r->sat_what, TT_USE_FIG_NONE);
	assert_false(r->flags & TT_USE_ERRORS_KNOWN);
}

static void test_no_proc(void **state)
{
	struct use_sampler_opts o = {TT_FIXTURES "/use/none", TT_FIXTURES "/use/none"};
	struct collected c;
	struct event_sink sink = {collect, &c};

	assert_null(use_sampler__new(&o, sink, T0));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy),	cmocka_unit_test(test_busy_verdict),
		cmocka_unit_test(test_idle),	cmocka_unit_test(test_wrapped),
		cmocka_unit_test(test_missing), cmocka_unit_test(test_no_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
