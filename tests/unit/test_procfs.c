// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the /proc text parsers (src/lib/procfs.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include <cmocka.h>

#include "procfs.h"

static void stat_plain(void **state)
{
	struct proc_task_stat st;
	const char *line =
		"4242 (nginx) S 1 4242 4242 0 -1 4194560 1 0 0 0 150 50 0 0 20 0 3 0 "
		"4200 1 1 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0";

	assert_int_equal(procfs_parse_stat(line, &st), 0);
	assert_string_equal(st.comm, "nginx");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.utime_ticks, 150);
	assert_int_equal(st.stime_ticks, 50);
	assert_int_equal(st.start_ticks, 4200);
	assert_int_equal(st.processor, 1);
	assert_false(st.flags & PROC_PF_KTHREAD);
}

static void stat_hostile_comm(void **state)
{
	struct proc_task_stat st;
	/* A comm may hold spaces and parentheses: the last ")" ends it. */
	const char *line = "7 (a) R (b c) D 1 7 7 0 -1 2129984 0 0 0 0 1 2 0 0 20 0 1 0 "
			   "99 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 3 0";

	assert_int_equal(procfs_parse_stat(line, &st), 0);
	assert_string_equal(st.comm, "a) R (b c");
	assert_int_equal(st.state, 'D');
	assert_true(st.flags & PROC_PF_KTHREAD);
	assert_int_equal(st.processor, 3);
}

static void stat_long_comm_is_bounded(void **state)
{
	struct proc_task_stat st;
	char line[512];

	snprintf(line, sizeof(line),
		 "7 (%s) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 99 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
		 "17 0 0",
		 "0123456789abcdefghijklmnopqrstuvwxyz");
	assert_int_equal(procfs_parse_stat(line, &st), 0);
	assert_int_equal(strlen(st.comm), TT_COMM_LEN - 1);
}

static void stat_malformed(void **state)
{
	struct proc_task_stat st;

	assert_int_equal(procfs_parse_stat("", &st), -EINVAL);
	assert_int_equal(procfs_parse_stat("12 (x", &st), -EINVAL);
	assert_int_equal(procfs_parse_stat("12 (x) S 1 2 3", &st), -EINVAL);
	assert_int_equal(procfs_parse_stat("12 x) S 1 2 3", &st), -EINVAL);
	assert_int_equal(procfs_parse_stat("12 (x)", &st), -EINVAL);
}

static void syscall_forms(void **state)
{
	struct proc_syscall sc;

	assert_int_equal(procfs_parse_syscall("running\n", &sc), 0);
	assert_true(sc.running);
	assert_int_equal(sc.nr, TT_SYSCALL_NONE);

	assert_int_equal(procfs_parse_syscall("-1 0x7ffd1000 0x4011aa\n", &sc), 0);
	assert_false(sc.running);
	assert_int_equal(sc.nr, TT_SYSCALL_NONE);
	assert_int_equal(sc.pc, 0x4011aa);

	assert_int_equal(procfs_parse_syscall("230 0x0 0x0 0x7ffe67c3f790 0x7ffe67c3f7d0 0x0 0x0 "
					      "0x7ffe67c3f778 0x7f0236ea7503\n",
					      &sc),
			 0);
	assert_int_equal(sc.nr, 230);
	assert_int_equal(sc.args[2], 0x7ffe67c3f790ull);
	assert_int_equal(sc.args[5], 0);
	assert_int_equal(sc.sp, 0x7ffe67c3f778ull);
}

static void syscall_malformed(void **state)
{
	struct proc_syscall sc;

	assert_int_equal(procfs_parse_syscall("", &sc), -EINVAL);
	assert_int_equal(procfs_parse_syscall("abc", &sc), -EINVAL);
	assert_int_equal(procfs_parse_syscall("1 0x1 0x2", &sc), -EINVAL);
	assert_int_equal(procfs_parse_syscall("99999 0x0 0x0 0x0 0x0 0x0 0x0 0x0 0x0", &sc),
			 -EINVAL);
	assert_int_equal(procfs_parse_syscall("-7 0x0 0x0", &sc), -EINVAL);
}

static void cmdline_join(void **state)
{
	char out[16];

	assert_int_equal(procfs_join_cmdline("a\0bc\0d\0", 7, out, sizeof(out)), 6);
	assert_string_equal(out, "a bc d");
	assert_int_equal(procfs_join_cmdline("", 0, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	/* Bounded by the output. */
	assert_int_equal(procfs_join_cmdline("0123456789abcdefghij", 20, out, sizeof(out)), 15);
	assert_int_equal(strlen(out), 15);
}

static void states(void **state)
{
	assert_int_equal(procfs_state('R'), TT_ST_R);
	assert_int_equal(procfs_state('D'), TT_ST_D);
	assert_int_equal(procfs_state('t'), TT_ST_t);
	assert_int_equal(procfs_state('I'), TT_ST_I);
	assert_int_equal(procfs_state('W'), TT_ST_UNKNOWN);
	assert_int_equal(tt_state_letter(TT_ST_Q), 'Q');
	assert_int_equal(tt_state_letter(200), '?');
}

static void nspid(void **state)
{
	(void)state;
	assert_int_equal(procfs_parse_nspid("Name:\tapp\nNSpid:\t4242\t17\nPid:\t4242\n", 1), 17);
	assert_int_equal(procfs_parse_nspid("NSpid:\t99\n", 1), 99);
	assert_int_equal(procfs_parse_nspid("Name:\tapp\n", 5), 5);
	assert_int_equal(procfs_parse_nspid("NSpid:\t\nPid:\t3\n", 5), 5); /* empty line */
	assert_int_equal(procfs_parse_nspid("NSpid:\t99999999999999999999\n", 5), 5);
	assert_int_equal(procfs_parse_nspid("NSpid:\t0\n", 5), 5);
}

/* The effective uid: whose perf maps a process's frames may trust. */
static void euid(void **state)
{
	(void)state;
	assert_int_equal(procfs_parse_euid("Name:\tx\nUid:\t1000\t0\t0\t0\nGid:\t1\n", 7), 0);
	assert_int_equal(procfs_parse_euid("Uid:\t0\t1000\t1000\t1000\n", 7), 1000);
	assert_int_equal(procfs_parse_euid("Name:\tx\n", 7), 7);
	assert_int_equal(procfs_parse_euid("Uid:\t1000\n", 7), 7); /* one field */
	assert_int_equal(procfs_parse_euid("Uid:\tx\t1\n", 7), 7);
	assert_int_equal(procfs_parse_euid("Uid:\t1\t99999999999999999999\n", 7), 7);
}

/* statm's second field: a many-thread process's RSS between its stat reads. */
static void statm_rss(void **state)
{
	uint64_t pages = 7;

	(void)state;
	assert_int_equal(procfs_parse_statm_rss("2345 678 90 12 0 345 0\n", &pages), 0);
	assert_int_equal(pages, 678);
	assert_int_equal(procfs_parse_statm_rss("0 0 0 0 0 0 0", &pages), 0);
	assert_int_equal(pages, 0);
	pages = 7;
	assert_int_equal(procfs_parse_statm_rss("", &pages), -EINVAL);
	assert_int_equal(procfs_parse_statm_rss("12", &pages), -EINVAL);
	assert_int_equal(procfs_parse_statm_rss("12 ", &pages), -EINVAL);
	assert_int_equal(procfs_parse_statm_rss("12 x 3", &pages), -EINVAL);
	assert_int_equal(procfs_parse_statm_rss("-1 5 3", &pages), -EINVAL);
	assert_int_equal(procfs_parse_statm_rss("12 5x 3", &pages), -EINVAL);
	assert_int_equal(procfs_parse_statm_rss("1 99999999999999999999999 3", &pages), -EINVAL);
	assert_int_equal(pages, 7); /* untouched on a failure */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stat_plain),
		cmocka_unit_test(stat_hostile_comm),
		cmocka_unit_test(stat_long_comm_is_bounded),
		cmocka_unit_test(stat_malformed),
		cmocka_unit_test(syscall_forms),
		cmocka_unit_test(syscall_malformed),
		cmocka_unit_test(cmdline_join),
		cmocka_unit_test(states),
		cmocka_unit_test(nspid),
		cmocka_unit_test(euid),
		cmocka_unit_test(statm_rss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
