// SPDX-License-Identifier: GPL-2.0-only
/*
 * The I/O pane's rows (see io_rows.h): the model's rows per thread, device
 * and direction summed per device or per thread of a device, and their
 * cells, order and match. Names from other processes and from /sys pass
 * escape_for_terminal before they are shown or matched.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "io_rows.h"
#include "rows.h"
#include "u64map.h"
#include "util.h"

static bool wanted(const struct model_io_row *r, const struct io_rows_query *q)
{
	if (q->threads && (r->major != q->major || r->minor != q->minor))
		return false;
	if ((q->pid && r->pid != q->pid) || (q->tid && r->tid != q->tid))
		return false;
	return !q->comm_substr || !q->comm_substr[0] ||
	       (r->comm && strstr(r->comm, q->comm_substr));
}

/* A row's identity: its device, and on a thread row its thread (UINT32_MAX: the other). */
static uint64_t row_id(const struct model_io_row *r, bool threads)
{
	uint64_t dev = (uint64_t)r->major << 20 ^ r->minor;

	return threads ? dev << 32 ^ (r->other ? UINT32_MAX : r->tid) : dev;
}

size_t io_rows_build(const struct model_io_row *in, size_t n, const struct io_rows_query *q,
		     struct io_row **rows, size_t *cap)
{
	struct u64map *index = u64map__new(); /* row_id -> 1 + index in rows */
	size_t nr = 0;

	for (size_t i = 0; i < n; i++) {
		const struct model_io_row *r = &in[i];
		uint64_t id = row_id(r, q->threads);
		size_t at;
		struct io_row *o;

		if (!wanted(r, q))
			continue;
		at = (uintptr_t)u64map__get(index, id);
		o = at ? &(*rows)[at - 1] : NULL;
		if (!o) {
			xgrow((void **)rows, cap, nr + 1, sizeof(**rows));
			o = &(*rows)[nr++];
			u64map__put(index, id, (void *)(uintptr_t)nr);
			memset(o, 0, sizeof(*o));
			o->major = r->major;
			o->minor = r->minor;
			if (q->threads) {
				o->pid = r->pid;
				o->tid = r->tid;
				o->other = r->other;
				snprintf(o->name, sizeof(o->name), "%s", r->comm ? r->comm : "");
			}
		}
		/* A device's name as the latest row has it, else major:minor. */
		if (!q->threads && r->disk && r->disk[0])
			snprintf(o->name, sizeof(o->name), "%s", r->disk);
		else if (!q->threads && !o->name[0])
			snprintf(o->name, sizeof(o->name), "%u:%u", r->major, r->minor);
		o->count += r->count;
		if (r->op == TT_IO_READ)
			o->reads += r->count;
		else if (r->op == TT_IO_WRITE)
			o->writes += r->count;
		o->bytes += r->bytes;
		o->total_ns += r->total_ns;
		o->io_worker += r->io_worker;
		for (int b = 0; b < TT_IO_HIST_BUCKETS; b++)
			o->hist[b] += r->hist[b];
	}
	u64map__free(index);
	return nr;
}

uint64_t io_rows_total(const struct io_row *rows, size_t n)
{
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += rows[i].count;
	return total;
}

size_t io_rows_columns(bool threads, const int **ret)
{
	static const int devices[] = {COL_DEVICE, COL_IOPS, COL_MBS,  COL_READS, COL_WRITES,
				      COL_P50,	  COL_P99,  COL_MEAN, COL_SHARE, COL_HIST};
	static const int thread_cols[] = {COL_TID,   COL_COMM,	 COL_IOPS, COL_MBS,
					  COL_READS, COL_WRITES, COL_P50,  COL_P99,
					  COL_MEAN,  COL_SHARE,	 COL_HIST};

	*ret = threads ? thread_cols : devices;
	return threads ? sizeof(thread_cols) / sizeof(thread_cols[0])
		       : sizeof(devices) / sizeof(devices[0]);
}

static uint64_t pct(const struct io_row *r, double p)
{
	return model_log2_percentile(r->hist, TT_IO_HIST_BUCKETS, p);
}

/* What a figure column sorts by. */
static uint64_t value(const struct io_row *r, int col)
{
	switch (col) {
	case COL_MBS:
		return r->bytes;
	case COL_READS:
		return r->reads;
	case COL_WRITES:
		return r->writes;
	case COL_P50:
		return pct(r, 50);
	case COL_P99:
		return pct(r, 99);
	case COL_MEAN:
		return r->count ? r->total_ns / r->count : 0;
	case COL_HIST:
		return r->total_ns;
	default: /* IOPS, SHARE */
		return r->count;
	}
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static _Thread_local int sort_col;
static _Thread_local bool sort_reverse;

static int cmp(const void *pa, const void *pb)
{
	const struct io_row *a = pa, *b = pb;
	int c;

	switch (sort_col) {
	case COL_DEVICE:
	case COL_COMM:
		c = strcmp(a->name, b->name);
		break;
	case COL_TID:
		c = CMP(a->tid, b->tid);
		break;
	case COL_PID:
		c = CMP(a->pid, b->pid);
		break;
	default:
		c = CMP(value(b, sort_col), value(a, sort_col)); /* largest first */
		break;
	}
	if (sort_reverse)
		c = -c;
	if (c) /* else the same order every refresh */
		return c;
	if (a->major != b->major)
		return CMP(a->major, b->major);
	if (a->minor != b->minor)
		return CMP(a->minor, b->minor);
	return CMP(a->tid, b->tid);
}

void io_rows_sort(struct io_row *rows, size_t n, int col, bool reverse)
{
	sort_col = col;
	sort_reverse = reverse;
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp);
}

char *io_rows_cell(const struct io_row *r, int col, double window_s, uint64_t total, char *buf,
		   size_t len)
{
	double rate;

	switch (col) {
	case COL_DEVICE:
	case COL_COMM:
		escape_for_terminal(r->name, strnlen(r->name, sizeof(r->name)), buf, len);
		if (col == COL_COMM && r->io_worker &&
		    strlen(buf) + sizeof(IO_ROWS_WORKER_MARK) <= len)
			strcat(buf, IO_ROWS_WORKER_MARK);
		break;
	case COL_TID:
	case COL_PID:
		if (r->other)
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%" PRIu32, col == COL_TID ? r->tid : r->pid);
		break;
	case COL_IOPS:
	case COL_MBS:
		if (window_s <= 0) {
			snprintf(buf, len, "-");
			break;
		}
		rate = col == COL_IOPS ? (double)r->count / window_s
				       : (double)r->bytes / 1e6 / window_s;
		snprintf(buf, len, rate < 10 ? "%.2f" : rate < 100 ? "%.1f" : "%.0f", rate);
		break;
	case COL_READS:
	case COL_WRITES:
		snprintf(buf, len, "%" PRIu64, value(r, col));
		break;
	case COL_SHARE:
		rows_share(r->count, total, buf, len);
		break;
	case COL_P50:
	case COL_P99:
	case COL_MEAN:
	case COL_HIST:
		if (!r->count)
			snprintf(buf, len, "-");
		else
			cols_fmt_ns(col == COL_HIST ? r->total_ns / r->count : value(r, col), buf,
				    len);
		break;
	default:
		snprintf(buf, len, "-");
		break;
	}
	return buf;
}

bool io_rows_match(const struct io_row *r, const char *text)
{
	char buf[TT_IO_DISK_LEN * 4 + 1];

	if (!text[0])
		return true;
	if (strcasestr(io_rows_cell(r, COL_DEVICE, 0, 0, buf, sizeof(buf)), text))
		return true;
	if (!r->tid || r->other)
		return false;
	return strstr(io_rows_cell(r, COL_TID, 0, 0, buf, sizeof(buf)), text) ||
	       strstr(io_rows_cell(r, COL_PID, 0, 0, buf, sizeof(buf)), text);
}

size_t io_rows_filter(struct io_row *rows, size_t n, const char *text)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (io_rows_match(&rows[i], text))
			rows[kept++] = rows[i];
	return kept;
}
