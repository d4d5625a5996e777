/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The I/O pane's rows (--io): the model's requests per thread, device and
 * direction (model__io) summed per device, or per thread of one device,
 * narrowed by the drill-down's pid, tid and comm; their cells (IOPS, MB/s
 * over the window, p50/p99/mean latency, share, escaped names), order and
 * text match. No curses here, so it is unit-tested (tests/unit/test_ui_io_rows.c).
 */
#ifndef THREADTOP_UI_IO_ROWS_H
#define THREADTOP_UI_IO_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* After a thread's name: io_uring's io-wq workers (iou-wrk-TID) made requests of it. */
#define IO_ROWS_WORKER_MARK " +iou-wrk"

/* A device, or a thread's requests to one device. */
struct io_row {
	uint32_t major, minor;
	uint32_t pid, tid; /* 0 on a device row */
	bool other;	   /* threads past the model's bound, together */
	/* As the model has it, not escaped: the device's name ("8:0" when /sys
	 * did not say), or the thread's comm. */
	char name[TT_IO_DISK_LEN];
	uint64_t count, reads, writes, bytes, total_ns;
	uint64_t io_worker;		   /* of count, made by io_uring workers for the thread */
	uint64_t hist[TT_IO_HIST_BUCKETS]; /* log2 ns buckets */
};

/* Which rows: per device, or per thread of device major:minor; narrowed by pid, tid, comm. */
struct io_rows_query {
	bool threads;
	uint32_t major, minor;
	uint32_t pid, tid;	 /* 0 = any */
	const char *comm_substr; /* NULL = any */
};

/*
 * Sums the n model rows in into rows as q asks, into *rows (grown as
 * needed, *cap its entries; the caller frees it). Returns the count, in
 * no order.
 */
size_t io_rows_build(const struct model_io_row *in, size_t n, const struct io_rows_query *q,
		     struct io_row **rows, size_t *cap);
/* The requests of n rows: what a row's share is of. */
uint64_t io_rows_total(const struct io_row *rows, size_t n);
/* The I/O pane's columns, in screen order (q->threads: the thread view's). */
size_t io_rows_columns(bool threads, const int **ret);
/* Sorts by col (enum ui_col): figures largest first, names and ids ascending; reverse flips. */
void io_rows_sort(struct io_row *rows, size_t n, int col, bool reverse);
/*
 * Cell col of r as text into buf (escaped for the terminal), its rates over
 * window_s seconds ("-" when the window has no length), its share of total
 * requests. COL_HIST reads as the mean latency; a thread's COL_COMM ends in
 * IO_ROWS_WORKER_MARK when io_uring workers made some of its requests.
 * Returns buf.
 */
char *io_rows_cell(const struct io_row *r, int col, double window_s, uint64_t total, char *buf,
		   size_t len);
/* Whether r's name (escaped, as shown), tid or pid contain text, case-insensitive. */
bool io_rows_match(const struct io_row *r, const char *text);
/* Keeps the rows that match text ("" keeps all); returns the new count. */
size_t io_rows_filter(struct io_row *rows, size_t n, const char *text);

#endif /* THREADTOP_UI_IO_ROWS_H */
