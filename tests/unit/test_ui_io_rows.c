// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the I/O pane's rows (ui/io_rows.c): the model's rows per
 * thread, device and direction summed per device and per thread of one
 * device, narrowed by pid, tid and comm; IOPS and MB/s over the window,
 * percentiles, mean and share; sorting; escaped names and the text filter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "io_rows.h"
#include "rows.h"

/* A model row: count requests of 4096 bytes, each ns_each (all in its log2 bucket). */
static struct model_io_row mrow(uint32_t tid, uint32_t minor, unsigned op, uint64_t count,
				uint64_t ns_each, const char *comm, const char *disk)
{
	struct model_io_row r = {
		.pid = 10,
		.tid = tid,
		.major = 7,
		.minor = minor,
		.op = op,
		.comm = comm,
		.disk = disk,
		.count = count,
		.bytes = count * 4096,
		.total_ns = count * ns_each,
	};

	r.hist[63 - __builtin_clzll(ns_each)] = count;
	return r;
}

static struct model_io_row in[5];

static void fill(void)
{
	in[0] = mrow(11, 0, TT_IO_READ, 100, 50000, "reader", "loop0");
	in[1] = mrow(11, 0, TT_IO_WRITE, 20, 1000000, "reader", "loop0");
	in[2] = mrow(12, 0, TT_IO_READ, 30, 3000, "writer", "loop0");
	in[3] = mrow(12, 1, TT_IO_READ, 400, 3000, "writer", "");
	in[4] = mrow(13, 1, TT_IO_OTHER, 2, 3000, "flusher", "");
}

static struct io_row *find(struct io_row *rows, size_t n, uint32_t minor, uint32_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].minor == minor && rows[i].tid == tid)
			return &rows[i];
	fail_msg("no row %u/%u", minor, tid);
	return NULL;
}

static void devices(void **state)
{
	struct io_rows_query q = {0};
	struct io_row *rows = NULL, *r;
	size_t cap = 0, n;
	char buf[64];

	fill();
	n = io_rows_build(in, 5, &q, &rows, &cap);
	assert_int_equal(n, 2);
	r = find(rows, n, 0, 0);
	assert_string_equal(r->name, "loop0");
	assert_int_equal(r->count, 150);
	assert_int_equal(r->reads, 130);
	assert_int_equal(r->writes, 20);
	assert_int_equal(r->bytes, 150 * 4096);
	/* Over 2 s: 75 requests a second, 150 * 4096 / 1e6 / 2 = 0.31 MB/s. */
	assert_string_equal(io_rows_cell(r, COL_IOPS, 2.0, 0, buf, sizeof(buf)), "75.0");
	assert_string_equal(io_rows_cell(r, COL_MBS, 2.0, 0, buf, sizeof(buf)), "0.31");
	assert_string_equal(io_rows_cell(r, COL_IOPS, 0, 0, buf, sizeof(buf)), "-");
	/* 50 us lies in [2^15, 2^16) ns: p50 reads the bucket's top, 65 us; p99 that of 1 ms's. */
	assert_string_equal(io_rows_cell(r, COL_P50, 2.0, 0, buf, sizeof(buf)), "65us");
	assert_string_equal(io_rows_cell(r, COL_P99, 2.0, 0, buf, sizeof(buf)), "1.0ms");
	/* (100 * 50 us + 20 * 1 ms + 30 * 3 us) / 150 = 167 us. */
	assert_string_equal(io_rows_cell(r, COL_MEAN, 2.0, 0, buf, sizeof(buf)), "167us");
	assert_string_equal(
		io_rows_cell(r, COL_SHARE, 2.0, io_rows_total(rows, n), buf, sizeof(buf)), "27.2%");
	/* No name from /sys: major:minor. */
	r = find(rows, n, 1, 0);
	assert_string_equal(r->name, "7:1");
	assert_int_equal(r->count, 402);
	assert_int_equal(r->writes, 0);
	assert_int_equal(io_rows_total(rows, n), 552);

	io_rows_sort(rows, n, COL_IOPS, false);
	assert_int_equal(rows[0].minor, 1);
	io_rows_sort(rows, n, COL_IOPS, true);
	assert_int_equal(rows[0].minor, 0);
	io_rows_sort(rows, n, COL_WRITES, false);
	assert_int_equal(rows[0].minor, 0);
	io_rows_sort(rows, n, COL_DEVICE, false); /* names ascending: "7:1" < "loop0" */
	assert_string_equal(rows[0].name, "7:1");
	io_rows_sort(rows, n, COL_MEAN, false);
	assert_int_equal(rows[0].minor, 0);
	free(rows);
	(void)state;
}

static void threads_of_a_device(void **state)
{
	struct io_rows_query q = {.threads = true, .major = 7, .minor = 0};
	struct io_row *rows = NULL, *r;
	size_t cap = 0, n;
	char buf[64];

	fill();
	n = io_rows_build(in, 5, &q, &rows, &cap);
	assert_int_equal(n, 2);
	r = find(rows, n, 0, 11);
	assert_string_equal(r->name, "reader");
	assert_int_equal(r->count, 120);
	assert_int_equal(r->reads, 100);
	assert_int_equal(r->pid, 10);
	assert_string_equal(io_rows_cell(r, COL_TID, 1.0, 0, buf, sizeof(buf)), "11");
	assert_string_equal(io_rows_cell(r, COL_COMM, 1.0, 0, buf, sizeof(buf)), "reader");
	r = find(rows, n, 0, 12);
	assert_int_equal(r->count, 30); /* its 400 on the other device are not here */

	/* The drill-down's tid and comm narrow. */
	q.tid = 12;
	assert_int_equal(io_rows_build(in, 5, &q, &rows, &cap), 1);
	assert_int_equal(rows[0].tid, 12);
	q.tid = 0;
	q.comm_substr = "read";
	assert_int_equal(io_rows_build(in, 5, &q, &rows, &cap), 1);
	assert_int_equal(rows[0].tid, 11);
	q.comm_substr = NULL;
	q.pid = 99;
	assert_int_equal(io_rows_build(in, 5, &q, &rows, &cap), 0);
	free(rows);
	(void)state;
}

/* Names from another process or /sys are escaped where shown and matched; the filter keeps matches. */
static void escaped_and_filtered(void **state)
{
	struct io_rows_query q = {.threads = true, .major = 7, .minor = 0};
	struct model_io_row hostile[2];
	struct io_row *rows = NULL;
	size_t cap = 0, n;
	char buf[128];

	hostile[0] = mrow(21, 0, TT_IO_READ, 5, 3000, "\033[2Jevil\n", "loop0");
	hostile[1] = mrow(22, 0, TT_IO_READ, 5, 3000, "calm", "loop0");
	n = io_rows_build(hostile, 2, &q, &rows, &cap);
	assert_int_equal(n, 2);
	io_rows_sort(rows, n, COL_TID, false);
	io_rows_cell(&rows[0], COL_COMM, 1.0, 0, buf, sizeof(buf));
	assert_null(strchr(buf, '\033'));
	assert_null(strchr(buf, '\n'));
	assert_non_null(strstr(buf, "evil"));
	assert_true(io_rows_match(&rows[0], "EVIL"));
	assert_true(io_rows_match(&rows[1], "22"));
	assert_false(io_rows_match(&rows[1], "evil"));
	n = io_rows_filter(rows, n, "calm");
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].tid, 22);
	assert_int_equal(io_rows_filter(rows, n, ""), 1);

	/* A device name from /sys, likewise. */
	q = (struct io_rows_query){0};
	hostile[0] = mrow(21, 0, TT_IO_READ, 5, 3000, "a", "sd\033]0;x\007a");
	assert_int_equal(io_rows_build(hostile, 1, &q, &rows, &cap), 1);
	io_rows_cell(&rows[0], COL_DEVICE, 1.0, 0, buf, sizeof(buf));
	assert_null(strchr(buf, '\033'));
	assert_null(strchr(buf, '\007'));
	free(rows);
	(void)state;
}

/* The threads past the model's bound, together: no tid to show or drill to. */
static void other_row(void **state)
{
	struct io_rows_query q = {.threads = true, .major = 7, .minor = 0};
	struct model_io_row r = mrow(UINT32_MAX, 0, TT_IO_READ, 5, 3000, "(other)", "loop0");
	struct io_row *rows = NULL;
	size_t cap = 0;
	char buf[32];

	r.other = true;
	r.pid = 0;
	assert_int_equal(io_rows_build(&r, 1, &q, &rows, &cap), 1);
	assert_true(rows[0].other);
	assert_string_equal(io_rows_cell(&rows[0], COL_TID, 1.0, 0, buf, sizeof(buf)), "-");
	assert_false(io_rows_match(&rows[0], "4294967295"));
	free(rows);
	(void)state;
}

/* A thread's requests made partly by io_uring workers: its name says so, a device's does not. */
static void io_worker_mark(void **state)
{
	struct io_rows_query q = {.threads = true, .major = 7, .minor = 0};
	struct model_io_row r[2] = {mrow(21, 0, TT_IO_READ, 5, 3000, "ring", "loop0"),
				    mrow(22, 0, TT_IO_READ, 5, 3000, "plain", "loop0")};
	struct io_row *rows = NULL;
	size_t cap = 0;
	char buf[64];

	r[0].io_worker = 3;
	assert_int_equal(io_rows_build(r, 2, &q, &rows, &cap), 2);
	assert_int_equal(find(rows, 2, 0, 21)->io_worker, 3);
	assert_string_equal(io_rows_cell(find(rows, 2, 0, 21), COL_COMM, 1.0, 10, buf, sizeof(buf)),
			    "ring" IO_ROWS_WORKER_MARK);
	assert_string_equal(io_rows_cell(find(rows, 2, 0, 22), COL_COMM, 1.0, 10, buf, sizeof(buf)),
			    "plain");
	/* No room for the mark: the name alone. */
	assert_string_equal(io_rows_cell(find(rows, 2, 0, 21), COL_COMM, 1.0, 10, buf, 8), "ring");
	free(rows);
	q.threads = false;
	cap = 0;
	rows = NULL;
	assert_int_equal(io_rows_build(r, 2, &q, &rows, &cap), 1);
	assert_string_equal(io_rows_cell(&rows[0], COL_DEVICE, 1.0, 10, buf, sizeof(buf)), "loop0");
	free(rows);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(devices),
		cmocka_unit_test(threads_of_a_device),
		cmocka_unit_test(escaped_and_filtered),
		cmocka_unit_test(other_row),
		cmocka_unit_test(io_worker_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
