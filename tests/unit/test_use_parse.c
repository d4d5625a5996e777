// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the USE text parsers (use_parse.c) on strings cut from real
 * kernels, old formats (no MemAvailable, 11-field diskstats, PSI without
 * "full") and malformed input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "use_parse.h"

static void test_counter_delta(void **state)
{
	assert_int_equal(use_counter_delta(10, 25), 15);
	/* A 32-bit counter wrapped: 4294967000 -> 296 is 592 more. */
	assert_int_equal(use_counter_delta(4294967000u, 296), 592);
	/* A 64-bit counter went down: a reset, not a huge delta. */
	assert_int_equal(use_counter_delta(5000000000ull, 1000), 0);
}

static void test_stat(void **state)
{
	const char *text = "cpu  3700 10 1969 145427 428 5 36 42 0 0\n"
			   "cpu0 2103 0 1067 72210 367 0 13 24 0 0\n"
			   "cpu2 1597 10 901 73217 61 5 23 18 0 0\n"
			   "intr 187050 0 0 0\n"
			   "procs_running 3\n"
			   "procs_blocked 0\n";
	struct use_cpu_times all, cpus[4];
	unsigned running;

	assert_int_equal(use_parse_stat(text, &all, cpus, 4, &running), 3);
	assert_true(all.valid);
	assert_int_equal(all.total, 3700 + 10 + 1969 + 145427 + 428 + 5 + 36 + 42);
	assert_int_equal(all.busy, all.total - 145427 - 428);
	assert_true(cpus[0].valid);
	assert_false(cpus[1].valid); /* offline: no line */
	assert_true(cpus[2].valid);
	assert_int_equal(cpus[2].busy, 1597 + 10 + 901 + 5 + 23 + 18);
	assert_int_equal(running, 3);
	/* Too small an array: the count needed, slots past cap untouched. */
	assert_int_equal(use_parse_stat(text, &all, cpus, 1, &running), 3);
	assert_int_equal(use_parse_stat("intr 1 2\n", &all, cpus, 4, &running), -EINVAL);
	assert_int_equal(use_parse_stat("cpu 1 2\n", &all, cpus, 4, &running), -EINVAL);
}

static void test_loadavg(void **state)
{
	unsigned running;

	assert_int_equal(use_parse_loadavg("0.06 0.05 0.01 12/87 10631\n", &running), 0);
	assert_int_equal(running, 12);
	assert_int_equal(use_parse_loadavg("0.06 0.05 0.01\n", &running), -EINVAL);
}

static void test_meminfo(void **state)
{
	struct use_meminfo m;

	assert_int_equal(use_parse_meminfo("MemTotal:       24683852 kB\n"
					   "MemFree:        23162032 kB\n"
					   "MemAvailable:   24335524 kB\n"
					   "Buffers:           10 kB\n"
					   "SwapTotal:      100 kB\n"
					   "SwapFree:       40 kB\n",
					   &m),
			 0);
	assert_int_equal(m.total_kb, 24683852);
	assert_int_equal(m.available_kb, 24335524);
	assert_int_equal(m.swap_total_kb, 100);
	assert_int_equal(m.swap_free_kb, 40);
	/* Before 3.14: no MemAvailable, estimated from free + buffers + cached. */
	assert_int_equal(use_parse_meminfo("MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 20 kB\n"
					   "Cached: 30 kB\nSwapCached: 99 kB\n",
					   &m),
			 0);
	assert_int_equal(m.available_kb, 150);
	assert_int_equal(use_parse_meminfo("MemFree: 100 kB\n", &m), -EINVAL);
}

static void test_vmstat(void **state)
{
	struct use_vmstat vm;

	assert_int_equal(use_parse_vmstat("pswpin 1\npswpout 2\nallocstall_dma 1\n"
					  "allocstall_normal 4\npgscan_kswapd 5\npgscan_direct 6\n"
					  "pgscan_direct_throttle 99\noom_kill 7\n",
					  &vm),
			 0);
	assert_int_equal(vm.pswpin, 1);
	assert_int_equal(vm.pswpout, 2);
	assert_int_equal(vm.allocstall, 5);
	assert_int_equal(vm.pgscan_kswapd, 5);
	assert_int_equal(vm.pgscan_direct, 6); /* not pgscan_direct_throttle */
	assert_true(vm.has_oom_kill);
	assert_int_equal(vm.oom_kill, 7);
	assert_int_equal(use_parse_vmstat("pswpin 1\n", &vm), 0);
	assert_false(vm.has_oom_kill);
	assert_int_equal(use_parse_vmstat("nr_free_pages 1\n", &vm), -EINVAL);
}

static void test_diskstats(void **state)
{
	const char *text =
		" 254       0 vda 27044 5223 2200314 7902 6605 7278 577576 3085 1 4644 11305 "
		"6153 51 189072 305 645 12\n"
		" 254       1 vda1 100 0 800 10 0 0 0 0 0 10 10\n";
	struct use_disk_stat d[2];

	assert_int_equal(use_parse_diskstats(text, d, 2), 2);
	assert_string_equal(d[0].name, "vda");
	assert_int_equal(d[0].ios, 27044 + 6605 + 6153);
	assert_int_equal(d[0].io_time_ms, 7902 + 3085 + 305);
	assert_int_equal(d[0].in_flight, 1);
	assert_int_equal(d[0].busy_ms, 4644);
	assert_int_equal(d[0].weighted_ms, 11305);
	/* The 11-field format of kernels before 4.18. */
	assert_string_equal(d[1].name, "vda1");
	assert_int_equal(d[1].ios, 100);
	assert_int_equal(use_parse_diskstats(text, d, 1), 2);
	assert_int_equal(use_parse_diskstats(" 1 0 sda 1 2 3\n", d, 2), -EINVAL);
	assert_int_equal(use_parse_diskstats("", d, 2), 0);
}

static void test_net_dev(void **state)
{
	const char *text =
		"Inter-|   Receive                                                |  Transmit\n"
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
		"packets errs drop fifo colls carrier compressed\n"
		"    lo:    3267      29    0    0    0     0          0         0     3267      "
		"29    0    0    0     0       0          0\n"
		"  eth0: 27950457    1079    1    2    3     4          0         0    61018     "
		"816    5    6    7     8       9          0\n";
	struct use_net_stat n[4];

	assert_int_equal(use_parse_net_dev(text, n, 4), 2);
	assert_string_equal(n[0].name, "lo");
	assert_string_equal(n[1].name, "eth0");
	assert_int_equal(n[1].rx_bytes, 27950457);
	assert_int_equal(n[1].tx_bytes, 61018);
	assert_int_equal(n[1].drops, 2 + 3 + 6 + 7);
	assert_int_equal(n[1].errors, 1 + 4 + 5 + 9);
	assert_int_equal(use_parse_net_dev("eth0: 1 2 3\n", n, 4), -EINVAL);
}

static void test_snmp(void **state)
{
	struct use_tcp_stat t;

	assert_int_equal(
		use_parse_snmp_tcp(
			"Ip: Forwarding DefaultTTL\nIp: 1 64\n"
			"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens "
			"AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts "
			"InCsumErrors\n"
			"Tcp: 1 200 120000 -1 13 2 0 0 0 1079 810 7 3 2 4\n",
			&t),
		0);
	assert_int_equal(t.out_segs, 810);
	assert_int_equal(t.retrans_segs, 7);
	assert_int_equal(t.in_errs, 7);
	assert_int_equal(use_parse_snmp_tcp("Ip: 1\nIp: 2\n", &t), -EINVAL);
}

static void test_psi(void **state)
{
	struct use_psi p;

	assert_int_equal(use_parse_psi("some avg10=2.46 avg60=0.88 avg300=0.26 total=2678409\n"
				       "full avg10=0.00 avg60=0.00 avg300=0.00 total=12\n",
				       &p),
			 0);
	assert_int_equal(p.some_us, 2678409);
	assert_true(p.has_full);
	assert_int_equal(p.full_us, 12);
	/* CPU pressure before 5.13 has no "full" line. */
	assert_int_equal(use_parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n", &p), 0);
	assert_false(p.has_full);
	assert_int_equal(use_parse_psi("", &p), -EINVAL);
}

static void test_cgroup(void **state)
{
	struct use_cg_cpu cg;
	double cpus;

	assert_int_equal(use_parse_cg_cpu_stat("usage_usec 10\nuser_usec 6\nsystem_usec 4\n"
					       "nr_periods 3\nnr_throttled 2\nthrottled_usec 50\n",
					       &cg),
			 0);
	assert_int_equal(cg.usage_us, 10);
	assert_true(cg.has_throttling);
	assert_int_equal(cg.nr_throttled, 2);
	assert_int_equal(cg.throttled_us, 50);
	assert_int_equal(use_parse_cg_cpu_stat("usage_usec 10\n", &cg), 0);
	assert_false(cg.has_throttling);
	assert_int_equal(use_parse_cg_cpu_stat("nr_periods 3\n", &cg), -EINVAL);
	assert_int_equal(use_parse_cg_cpu_max("50000 100000\n", &cpus), 0);
	assert_true(cpus > 0.49 && cpus < 0.51);
	assert_int_equal(use_parse_cg_cpu_max("max 100000\n", &cpus), 0);
	assert_true(cpus == 0);
	assert_int_equal(use_parse_cg_cpu_max("junk\n", &cpus), -EINVAL);
}

static void test_counter(void **state)
{
	uint64_t v;

	assert_int_equal(use_parse_counter("0x1f\n", &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(use_parse_counter("12\n", &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(use_parse_counter("n/a\n", &v), -EINVAL);
}

static void test_link_speed(void **state)
{
	assert_true(use_parse_link_speed("10000\n") == 10000);
	assert_true(use_parse_link_speed("-1\n") == 0); /* virtual NIC */
	assert_true(use_parse_link_speed("") == 0);
	assert_true(use_parse_link_speed("99999999999999999999999\n") == 0); /* overflow */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_delta), cmocka_unit_test(test_stat),
		cmocka_unit_test(test_loadavg),	      cmocka_unit_test(test_meminfo),
		cmocka_unit_test(test_vmstat),	      cmocka_unit_test(test_diskstats),
		cmocka_unit_test(test_net_dev),	      cmocka_unit_test(test_snmp),
		cmocka_unit_test(test_psi),	      cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_counter),	      cmocka_unit_test(test_link_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
