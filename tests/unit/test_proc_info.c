// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_info over a fixture /proc: a process of a few threads is described
 * from its stat every second; one of many threads from its stat now and
 * then (the kernel walks every thread for it) and from statm in between, so
 * its resident memory still moves every second; a process gone is forgotten,
 * and a pid reused meanwhile does not inherit the old one's description.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "proc_info.h"
#include "strtab.h"
#include "threadtop/events.h"
#include "util.h"

#define SEC 1000000000ull

struct fixture {
	char dir[64];
	int proc_fd;
	struct strtab *strings;
	struct proc_info *pi;
	struct tt_proc_info last; /* the latest record sent */
	unsigned records;
	uint64_t page, ns_per_tick;
};

static void on_event(void *ctx, const struct tt_event_header *ev)
{
	struct fixture *f = ctx;

	if (ev->type != TT_EV_PROC_INFO)
		return;
	memcpy(&f->last, ev, sizeof(f->last));
	f->records++;
}

static void put(struct fixture *f, const char *name, const char *text)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A process directory of pid, with its status (named name). */
static void add_proc(struct fixture *f, unsigned pid, const char *name)
{
	char path[128], text[64];

	snprintf(path, sizeof(path), "%s/%u", f->dir, pid);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%u/status", pid);
	snprintf(text, sizeof(text), "Name:\t%s\nUid:\t0\t0\t0\t0\n", name);
	put(f, path, text);
}

/* Its stat and statm: these threads, CPU ticks and resident pages (in each). */
static void set_proc(struct fixture *f, unsigned pid, unsigned threads, unsigned ticks,
		     unsigned stat_rss, unsigned statm_rss)
{
	char path[32], buf[512];

	snprintf(buf, sizeof(buf),
		 "%u (app) S 1 %u %u 0 -1 4194560 1 0 0 0 %u 0 0 0 20 0 %u 0 4200 1 %u "
		 "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n",
		 pid, pid, pid, ticks, threads, stat_rss);
	snprintf(path, sizeof(path), "%u/stat", pid);
	put(f, path, buf);
	snprintf(buf, sizeof(buf), "9000 %u 10 1 0 500 0\n", statm_rss);
	snprintf(path, sizeof(path), "%u/statm", pid);
	put(f, path, buf);
}

/* The process ends: its directory goes. False when something was missing. */
static bool remove_proc(struct fixture *f, unsigned pid)
{
	char path[128];
	bool ok = true;

	for (const char *const *n = (const char *const[]){"stat", "statm", "status", NULL}; *n;
	     n++) {
		snprintf(path, sizeof(path), "%s/%u/%s", f->dir, pid, *n);
		ok &= unlink(path) == 0;
	}
	snprintf(path, sizeof(path), "%s/%u", f->dir, pid);
	return rmdir(path) == 0 && ok;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/tt_proc_info_XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	add_proc(f, 123, "app");
	f->proc_fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->proc_fd >= 0);
	f->strings = strtab__new();
	f->pi = proc_info__new(f->proc_fd, f->strings,
			       &(struct event_sink){.emit = on_event, .ctx = f});
	f->page = (uint64_t)sysconf(_SC_PAGESIZE);
	f->ns_per_tick = SEC / (uint64_t)sysconf(_SC_CLK_TCK);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	proc_info__free(f->pi);
	strtab__free(f->strings);
	close(f->proc_fd);
	remove_proc(f, 123); /* (a test may have taken statm away) */
	rmdir(f->dir);
	free(f);
	return 0;
}

static void few_threads_every_second(void **state)
{
	struct fixture *f = *state;

	set_proc(f, 123, 3, 100, 50, 60);
	proc_info__see(f->pi, 123, 10 * SEC);
	assert_int_equal(f->records, 1);
	assert_int_equal(f->last.nr_threads, 3);
	assert_int_equal(f->last.cpu_time_ns, 100 * f->ns_per_tick);
	assert_int_equal(f->last.rss_bytes, 50 * f->page);

	set_proc(f, 123, 3, 300, 70, 80);
	proc_info__pass(f->pi, 10 * SEC + SEC / 2); /* not due yet */
	assert_int_equal(f->records, 1);
	proc_info__pass(f->pi, 11 * SEC);
	assert_int_equal(f->records, 2);
	assert_int_equal(f->last.cpu_time_ns, 300 * f->ns_per_tick); /* its stat again */
	assert_int_equal(f->last.rss_bytes, 70 * f->page);
}

static void many_threads_statm_between(void **state)
{
	struct fixture *f = *state;
	unsigned threads = 5000; /* a stat every 20 s */

	set_proc(f, 123, threads, 100, 50, 50);
	proc_info__see(f->pi, 123, 10 * SEC);
	assert_int_equal(f->records, 1);
	assert_int_equal(f->last.rss_bytes, 50 * f->page);

	/* A second on: the memory from statm, the rest as its stat said. */
	set_proc(f, 123, threads, 900, 55, 2000);
	proc_info__pass(f->pi, 11 * SEC);
	assert_int_equal(f->records, 2);
	assert_int_equal(f->last.rss_bytes, 2000 * f->page);
	assert_int_equal(f->last.cpu_time_ns, 100 * f->ns_per_tick);
	assert_int_equal(f->last.nr_threads, threads);
	assert_int_equal(f->last.pid, 123);
	assert_int_equal(f->last.ppid, 1);
	assert_int_equal(f->last.hdr.time_ns, 11 * SEC);

	for (uint64_t s = 12; s < 30; s++) {
		proc_info__pass(f->pi, s * SEC);
		assert_int_equal(f->last.cpu_time_ns, 100 * f->ns_per_tick);
	}
	assert_int_equal(f->records, 20); /* one a second */
	/* 20 s after the first: its stat again. */
	proc_info__pass(f->pi, 30 * SEC);
	assert_int_equal(f->records, 21);
	assert_int_equal(f->last.cpu_time_ns, 900 * f->ns_per_tick);
	assert_int_equal(f->last.rss_bytes, 55 * f->page);
}

static void gone_between_stats(void **state)
{
	struct fixture *f = *state;
	char path[128];

	set_proc(f, 123, 5000, 100, 50, 50);
	proc_info__see(f->pi, 123, 10 * SEC);
	snprintf(path, sizeof(path), "%s/123/statm", f->dir);
	unlink(path);
	proc_info__pass(f->pi, 11 * SEC);
	assert_int_equal(f->records, 1); /* nothing made up */
	/* Forgotten: seen again, it is described anew from its stat. */
	set_proc(f, 123, 5000, 400, 50, 50);
	proc_info__see(f->pi, 123, 11 * SEC + 1);
	assert_int_equal(f->records, 2);
	assert_int_equal(f->last.cpu_time_ns, 400 * f->ns_per_tick);
}

/*
 * The process ends and its pid goes to a new one between two stats: the
 * newcomer is not shown under the old one's description (threads, CPU time,
 * parent), it is forgotten and then described anew from its own stat.
 */
static void pid_reused_between_stats(void **state)
{
	struct fixture *f = *state;

	set_proc(f, 123, 5000, 100, 50, 50);
	proc_info__see(f->pi, 123, 10 * SEC);
	assert_int_equal(f->records, 1);
	assert_true(remove_proc(f, 123));
	add_proc(f, 123, "new");
	set_proc(f, 123, 3, 7, 11, 12);

	proc_info__pass(f->pi, 11 * SEC);
	assert_int_equal(f->records, 1);
	proc_info__see(f->pi, 123, 11 * SEC + 1);
	assert_int_equal(f->records, 2);
	assert_int_equal(f->last.nr_threads, 3);
	assert_int_equal(f->last.cpu_time_ns, 7 * f->ns_per_tick);
	assert_int_equal(f->last.rss_bytes, 11 * f->page);
}

static void emit_count(void *ctx, const struct tt_event_header *ev)
{
	unsigned *per_pid = ctx; /* 300 of them */
	uint32_t pid;

	if (ev->type != TT_EV_PROC_INFO)
		return;
	memcpy(&pid, (const char *)ev + offsetof(struct tt_proc_info, pid), sizeof(pid));
	assert_true(pid < 300);
	per_pid[pid]++;
}

/*
 * Past PROC_INFO_MAX_DIR_FDS (64) processes of many threads, a process has
 * its stat alone, every threads/1000 seconds: no statm through a path a
 * reused pid could answer, and no stat every second either.
 */
static void many_processes_past_the_fds(void **state)
{
	struct fixture *f = *state;
	unsigned per_pid[300] = {0};
	struct proc_info *pi;

	for (unsigned pid = 200; pid < 265; pid++) {
		add_proc(f, pid, "app");
		set_proc(f, pid, 5000, 5, 50, 60);
	}
	pi = proc_info__new(f->proc_fd, f->strings,
			    &(struct event_sink){.emit = emit_count, .ctx = per_pid});
	for (unsigned pid = 200; pid < 265; pid++)
		proc_info__see(pi, pid, 10 * SEC);
	for (uint64_t s = 11; s <= 15; s++)
		proc_info__pass(pi, s * SEC);
	for (unsigned pid = 200; pid < 264; pid++)
		assert_int_equal(per_pid[pid], 6); /* one a second, statm between */
	assert_int_equal(per_pid[264], 2);	   /* its stat at 10 and 15 s */
	proc_info__free(pi);
	for (unsigned pid = 200; pid < 265; pid++)
		assert_true(remove_proc(f, pid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(few_threads_every_second, setup, teardown),
		cmocka_unit_test_setup_teardown(many_threads_statm_between, setup, teardown),
		cmocka_unit_test_setup_teardown(gone_between_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(pid_reused_between_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(many_processes_past_the_fds, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
