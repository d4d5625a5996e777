// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of command capture in a real event loop: output and exit status, a
 * hanging command cut off by its timeout (its whole process group), the
 * output cap, a run still going at the next snapshot (skipped, not started
 * twice), a command killed by a signal, and the JSON rendering.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture_report.h"
#include "cmdcap.h"
#include "loop.h"
#include "util.h"

struct waiter {
	struct cmdcap *c;
	struct loop *loop;
	uint64_t deadline;
};

static int check_done(void *ctx, uint64_t now, uint64_t expirations)
{
	struct waiter *w = ctx;

	if (!cmdcap__busy(w->c) || now > w->deadline)
		loop__stop(w->loop);
	return 0;
}

/* Runs the loop until no command runs (or 10 s), once per loop. Returns the seconds it took. */
static double run_until_idle(struct loop *loop, struct cmdcap *c)
{
	uint64_t t0 = monotonic_ns();
	struct waiter w = {c, loop, t0 + 10 * NSEC_PER_SEC};
	int timer = loop__add_timer(loop, 10000000, 10000000, check_done, &w);

	assert_true(timer >= 0);
	assert_int_equal(loop__run(loop), 0);
	return (double)(monotonic_ns() - t0) / 1e9;
}

static void test_output_and_status(void **state)
{
	const char *cmds[] = {"echo hello; echo oops >&2; exit 3", "kill -TERM $$"};
	struct cmdcap_opts o = {cmds, 2, 5 * NSEC_PER_SEC, 4096, NULL, {0}};
	struct loop *loop = loop__new();
	struct cmdcap *c = cmdcap__new(&o, loop);
	struct cmd_result r;
	char status[48];

	assert_non_null(c);
	cmdcap__result(c, 0, &r);
	assert_false(r.done);
	assert_string_equal(cmd_status_text(&r, status, sizeof(status)), "not run yet");
	assert_int_equal(cmdcap__run_all(c), 2);
	run_until_idle(loop, c);
	cmdcap__result(c, 0, &r);
	assert_true(r.done);
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(r.signal, 0);
	assert_false(r.timed_out);
	assert_int_equal(r.output_len, strlen("hello\noops\n"));
	assert_memory_equal(r.output, "hello\noops\n", r.output_len);
	assert_int_equal(r.runs, 1);
	cmdcap__result(c, 1, &r);
	assert_int_equal(r.signal, SIGTERM);
	assert_int_equal(r.exit_code, -1);
	assert_string_equal(cmd_status_text(&r, status, sizeof(status)), "killed by signal 15");
	cmdcap__free(c);
	loop__free(loop);
}

static void test_timeout(void **state)
{
	/*
	 * The sleep is a child of the shell: the group kill must take it too.
	 * Our pid in the durations tells our sleeps from a parallel run's.
	 */
	char cmd[96], left[96];
	const char *cmds[] = {cmd};
	struct cmdcap_opts o = {cmds, 1, 300000000ull, 4096, NULL, {0}};
	struct loop *loop = loop__new();
	struct cmdcap *c;
	struct cmd_result r;
	double secs;

	snprintf(cmd, sizeof(cmd), "sleep 97.%d & sleep 98.%d; echo never", getpid(), getpid());
	snprintf(left, sizeof(left), "pgrep -f 'sleep 9[78][.]%d$' >/dev/null", getpid());
	c = cmdcap__new(&o, loop);

	assert_int_equal(cmdcap__run_all(c), 1);
	assert_true(cmdcap__busy(c));
	/* Still running at the next snapshot: not started twice. */
	assert_int_equal(cmdcap__run_all(c), 0);
	secs = run_until_idle(loop, c);
	/* Cut off, not waited for: the bound is loose for a loaded machine. */
	assert_true(secs >= 0.25 && secs < 30.0);
	cmdcap__result(c, 0, &r);
	assert_true(r.done);
	assert_true(r.timed_out);
	assert_int_equal(r.signal, SIGKILL);
	assert_int_equal(r.skipped, 1);
	assert_int_equal(r.output_len, 0);
	assert_int_equal(system(left), 256); /* none left */
	cmdcap__free(c);
	loop__free(loop);
}

static void test_output_cap(void **state)
{
	const char *cmds[] = {"head -c 100000 /dev/zero | tr '\\0' x"};
	struct cmdcap_opts o = {cmds, 1, 5 * NSEC_PER_SEC, 4096, NULL, {0}};
	struct loop *loop = loop__new();
	struct cmdcap *c = cmdcap__new(&o, loop);
	struct cmd_result r;
	char *text = NULL;
	size_t len = 0;
	struct json j;
	FILE *f;

	assert_int_equal(cmdcap__run_all(c), 1);
	run_until_idle(loop, c);
	cmdcap__result(c, 0, &r);
	/* The rest was read and dropped, so the command was not blocked on a full pipe. */
	assert_int_equal(r.exit_code, 0);
	assert_true(r.truncated);
	assert_int_equal(r.output_len, 4096);
	f = open_memstream(&text, &len);
	json_init(&j, f);
	json_begin_object(&j, NULL);
	cmdcap_report__json(&j, c);
	json_end_object(&j);
	fclose(f);
	assert_non_null(strstr(text, "\"status\":\"exited\""));
	assert_non_null(strstr(text, "\"exit_code\":0"));
	assert_non_null(strstr(text, "\"truncated\":true"));
	assert_non_null(strstr(text, "\"output\":\"xxxx"));
	free(text);
	cmdcap__free(c);
	loop__free(loop);
}

static void test_free_kills(void **state)
{
	/* Our pid in the duration tells our sleep from a parallel run's. */
	char cmd[64], alive[96];
	const char *cmds[] = {cmd};
	struct cmdcap_opts o = {cmds, 1, 60 * NSEC_PER_SEC, 4096, NULL, {0}};
	struct loop *loop = loop__new();
	struct cmdcap *c = cmdcap__new(&o, loop);
	int i;

	snprintf(cmd, sizeof(cmd), "sleep 96.%d", getpid());
	snprintf(alive, sizeof(alive), "pgrep -f '^slee[p] 96[.]%d$' >/dev/null", getpid());
	assert_int_equal(cmdcap__run_all(c), 1);
	/* Until the command runs (a loaded machine starts it late), so that
	 * the check below sees it killed, not yet to start. */
	for (i = 0; i < 300 && system(alive) != 0; i++)
		usleep(100000);
	assert_int_equal(system(alive), 0);
	cmdcap__free(c); /* the exit path: kill the group, reap the shell */
	/*
	 * The sleep is the shell's child (dash forks it): killed with the
	 * group, it finishes dying after the shell is reaped, so a loaded
	 * machine may still show it for a moment. Gone within seconds, or
	 * the kill missed it.
	 */
	for (i = 0; i < 100 && system(alive) == 0; i++)
		usleep(100000);
	assert_int_equal(system(alive), 256);
	loop__free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_and_status),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_output_cap),
		cmocka_unit_test(test_free_kills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
