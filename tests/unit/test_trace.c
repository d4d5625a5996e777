// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of kernel trace capture without a kernel: event-name checks, line
 * routing, the bounded per-tracepoint rings, interval marks, lines split
 * across reads, overlong lines and "[LOST N EVENTS]" (an offline tracer fed
 * trace_pipe text). The live path is tested by integration/trace_exec.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trace.h"

static const char *const events[] = {"sched:sched_process_exec", "sched:sched_switch"};

#define EXEC_LINE(pid)                                                               \
	"            true-" #pid "   [001] .....  1954.833547: sched_process_exec: " \
	"filename=/bin/true pid=" #pid " old_pid=" #pid "\n"

static void test_names(void **state)
{
	assert_true(trace_event_name_ok("sched:sched_process_exec"));
	assert_true(trace_event_name_ok("block:block_rq_issue"));
	assert_false(trace_event_name_ok("sched"));
	assert_false(trace_event_name_ok(":x"));
	assert_false(trace_event_name_ok("sched:"));
	assert_false(trace_event_name_ok("../..:x"));
	assert_false(trace_event_name_ok("sched:a/b"));
	assert_false(trace_event_name_ok("a:b:c"));
}

static void test_match(void **state)
{
	assert_int_equal(trace_match_line(EXEC_LINE(12), events, 2), 0);
	assert_int_equal(trace_match_line("  bash-1 [000] d..2. 1.0: sched_switch: prev_comm=bash",
					  events, 2),
			 1);
	/* sched_switch must not match sched_switch_foo. */
	assert_int_equal(trace_match_line("  a-1 [000] ..... 1.0: sched_switch_foo: x", events, 2),
			 -1);
}

static void test_ring_and_interval(void **state)
{
	struct tracer_opts o = {events, 2, 3, NULL};
	struct tracer *t = tracer__new_offline(&o);
	struct trace_stats st;
	bool fresh;

	assert_non_null(t);
	assert_int_equal(tracer__count(t), 2);
	tracer__feed(t, EXEC_LINE(1) EXEC_LINE(2), strlen(EXEC_LINE(1) EXEC_LINE(2)));
	tracer__end_interval(t);
	/* A line split across two reads. */
	const char *l3 = EXEC_LINE(3);

	tracer__feed(t, l3, 20);
	tracer__stats(t, 0, &st);
	assert_int_equal(st.total, 2);
	tracer__feed(t, l3 + 20, strlen(l3) - 20);
	tracer__feed(t, EXEC_LINE(4), strlen(EXEC_LINE(4)));
	tracer__stats(t, 0, &st);
	assert_string_equal(st.event, "sched:sched_process_exec");
	assert_int_equal(st.total, 4);
	assert_int_equal(st.interval, 2);
	assert_int_equal(st.kept, 3); /* bounded: the oldest line is gone */
	assert_non_null(strstr(tracer__line(t, 0, 0, &fresh), "pid=4 "));
	assert_true(fresh);
	assert_non_null(strstr(tracer__line(t, 0, 1, &fresh), "pid=3 "));
	assert_true(fresh);
	assert_non_null(strstr(tracer__line(t, 0, 2, &fresh), "pid=2 "));
	assert_false(fresh); /* from the previous interval */
	assert_null(tracer__line(t, 0, 3, NULL));
	tracer__stats(t, 1, &st);
	assert_int_equal(st.total, 0);
	assert_int_equal(tracer__unmatched(t), 0);
	tracer__free(t);
}

static void test_lost_and_long(void **state)
{
	struct tracer_opts o = {events, 1, 10, NULL};
	struct tracer *t = tracer__new_offline(&o);
	char longline[3 * TRACE_LINE_MAX];

	tracer__feed(t, "CPU:1 [LOST 120 EVENTS]\n", 24);
	tracer__feed(t, "garbage\n", 8);
	assert_int_equal(tracer__lost(t), 120);
	assert_int_equal(tracer__unmatched(t), 1);
	/* An overlong line is cut, not split into several. */
	memset(longline, 'x', sizeof(longline));
	memcpy(longline, EXEC_LINE(5), strlen(EXEC_LINE(5)) - 1);
	longline[sizeof(longline) - 1] = '\n';
	tracer__feed(t, longline, sizeof(longline));
	assert_int_equal(strlen(tracer__line(t, 0, 0, NULL)), TRACE_LINE_MAX - 1);
	assert_int_equal(tracer__unmatched(t), 1);
	tracer__free(t);
}

static void test_bad_name(void **state)
{
	const char *bad[] = {"nocolon"};
	struct tracer_opts o = {bad, 1, 10, NULL};
	char err[256], note[256];

	assert_null(tracer__new(&o, err, sizeof(err), note, sizeof(note)));
	assert_non_null(strstr(err, "need SUBSYSTEM:EVENT"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_ring_and_interval),
		cmocka_unit_test(test_lost_and_long),
		cmocka_unit_test(test_bad_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
