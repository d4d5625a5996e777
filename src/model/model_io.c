// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model's block I/O requests (--io, see model.h): TT_EV_IO_STATS kept
 * per thread, device and direction for three windows (this interval, the
 * last complete one, the session). The entries are bounded: past
 * IO_ENTRIES_MAX, requests of threads new to the table go to one "(other)"
 * entry per device and direction (tid IO_OTHER_TID), so the session's
 * device totals stay whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "u64map.h"
#include "util.h"

#define IO_ENTRIES_MAX 4096
#define IO_OTHER_TID UINT32_MAX

struct io_entry {
	uint32_t pid, tid, major, minor, op;
	char comm[TT_COMM_LEN];
	char disk[TT_IO_DISK_LEN];
	uint64_t count[W_MAX], bytes[W_MAX], total_ns[W_MAX], queue_ns[W_MAX], errors[W_MAX];
	uint64_t io_worker[W_MAX];
	uint64_t hist[W_MAX][TT_IO_HIST_BUCKETS];
};

struct model_io {
	struct io_entry *arr;
	size_t nr, cap;
	struct u64map *index; /* io_key -> 1 + index in arr */
};

/* tid, op and device in 64 bits: tids stay below 2^22 (PID_MAX_LIMIT), else compared. */
static uint64_t io_key(uint32_t tid, uint32_t op, uint32_t major, uint32_t minor)
{
	return (uint64_t)tid << 34 ^ (uint64_t)op << 32 ^ (uint64_t)major << 20 ^ minor;
}

static struct io_entry *find(struct model_io *mio, uint64_t key, uint32_t tid, uint32_t op,
			     const struct tt_io_stats *r)
{
	size_t i = (uintptr_t)u64map__get(mio->index, key);
	struct io_entry *e = i ? &mio->arr[i - 1] : NULL;

	if (e && e->tid == tid && e->op == op && e->major == r->major && e->minor == r->minor)
		return e;
	return NULL;
}

static struct io_entry *add(struct model_io *mio, uint64_t key, uint32_t tid,
			    const struct tt_io_stats *r)
{
	struct io_entry *e;

	xgrow((void **)&mio->arr, &mio->cap, mio->nr + 1, sizeof(*mio->arr));
	e = &mio->arr[mio->nr++];
	memset(e, 0, sizeof(*e));
	e->pid = tid == IO_OTHER_TID ? 0 : r->pid;
	e->tid = tid;
	e->major = r->major;
	e->minor = r->minor;
	e->op = r->op;
	if (tid == IO_OTHER_TID)
		snprintf(e->comm, sizeof(e->comm), "(other)");
	else
		memcpy(e->comm, r->comm, TT_COMM_LEN);
	e->comm[TT_COMM_LEN - 1] = '\0';
	u64map__put(mio->index, key, (void *)(uintptr_t)mio->nr);
	return e;
}

void model_io_ingest(struct model *m, const struct tt_io_stats *r)
{
	struct model_io *mio = m->io;
	uint64_t key = io_key(r->tid, r->op, r->major, r->minor);
	struct io_entry *e;

	if (!mio) {
		mio = m->io = xcalloc(1, sizeof(*mio));
		mio->index = u64map__new();
	}
	e = find(mio, key, r->tid, r->op, r);
	if (!e && mio->nr < IO_ENTRIES_MAX && !u64map__get(mio->index, key))
		e = add(mio, key, r->tid, r);
	if (!e) {
		key = io_key(IO_OTHER_TID, r->op, r->major, r->minor);
		e = find(mio, key, IO_OTHER_TID, r->op, r);
		if (!e)
			e = add(mio, key, IO_OTHER_TID, r);
	}
	/* The name the latest record gives (a device seen before /sys named it). */
	if (r->disk[0]) {
		memcpy(e->disk, r->disk, TT_IO_DISK_LEN);
		e->disk[TT_IO_DISK_LEN - 1] = '\0';
	}
	for (int w = 0; w < W_ACCUM; w++) {
		e->count[w] += r->count;
		e->bytes[w] += r->bytes;
		e->total_ns[w] += r->total_ns;
		e->queue_ns[w] += r->queue_ns;
		e->errors[w] += r->errors;
		e->io_worker[w] += r->hdr.version >= 2 ? r->io_worker : 0;
		for (int b = 0; b < TT_IO_HIST_BUCKETS; b++)
			e->hist[w][b] += r->hist[b];
	}
	m->traced |= MODEL_TRACED_IO;
	trace_io_stacks_add(m, r);
}

void model_io_end_interval(struct model *m)
{
	if (!m->io)
		return;
	for (size_t i = 0; i < m->io->nr; i++) {
		struct io_entry *e = &m->io->arr[i];

		e->count[W_LAST] = e->count[W_INTERVAL];
		e->bytes[W_LAST] = e->bytes[W_INTERVAL];
		e->total_ns[W_LAST] = e->total_ns[W_INTERVAL];
		e->queue_ns[W_LAST] = e->queue_ns[W_INTERVAL];
		e->errors[W_LAST] = e->errors[W_INTERVAL];
		e->io_worker[W_LAST] = e->io_worker[W_INTERVAL];
		memcpy(e->hist[W_LAST], e->hist[W_INTERVAL], sizeof(e->hist[W_LAST]));
		e->count[W_INTERVAL] = e->bytes[W_INTERVAL] = 0;
		e->total_ns[W_INTERVAL] = e->queue_ns[W_INTERVAL] = e->errors[W_INTERVAL] = 0;
		e->io_worker[W_INTERVAL] = 0;
		memset(e->hist[W_INTERVAL], 0, sizeof(e->hist[W_INTERVAL]));
	}
}

size_t model_io_bytes(const struct model *m)
{
	if (!m->io)
		return 0;
	return sizeof(*m->io) + m->io->cap * sizeof(*m->io->arr) + u64map__bytes(m->io->index);
}

void model_io_free(struct model *m)
{
	if (!m->io)
		return;
	free(m->io->arr);
	u64map__free(m->io->index);
	free(m->io);
	m->io = NULL;
}

static int cmp_io_rows(const void *a, const void *b)
{
	const struct model_io_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

int model__io(struct model *m, enum model_window window, struct model_io_row **ret)
{
	int w = trace_window_index(window);
	struct model_io_row *rows;
	size_t nr = 0;

	*ret = NULL;
	if (w < 0)
		return w;
	if (!m->io || !m->io->nr)
		return 0;
	rows = xcalloc(m->io->nr, sizeof(*rows));
	for (size_t i = 0; i < m->io->nr; i++) {
		const struct io_entry *e = &m->io->arr[i];
		struct model_io_row *r = &rows[nr];

		if (!e->count[w])
			continue;
		r->pid = e->pid;
		r->tid = e->tid;
		r->major = e->major;
		r->minor = e->minor;
		r->op = e->op;
		r->comm = e->comm;
		r->disk = e->disk;
		r->other = e->tid == IO_OTHER_TID;
		r->count = e->count[w];
		r->bytes = e->bytes[w];
		r->total_ns = e->total_ns[w];
		r->queue_ns = e->queue_ns[w];
		r->errors = e->errors[w];
		r->io_worker = e->io_worker[w];
		memcpy(r->hist, e->hist[w], sizeof(r->hist));
		nr++;
	}
	if (!nr) {
		free(rows);
		return 0;
	}
	qsort(rows, nr, sizeof(*rows), cmp_io_rows);
	*ret = rows;
	return (int)nr;
}

uint64_t model_log2_percentile(const uint64_t *hist, int nr, double pct)
{
	uint64_t n = 0, want;

	for (int b = 0; b < nr; b++)
		n += hist[b];
	if (!n)
		return 0;
	want = (uint64_t)((double)n * pct / 100.0 + 0.5);
	if (!want)
		want = 1;
	n = 0;
	for (int b = 0; b < nr; b++) {
		n += hist[b];
		if (n >= want)
			return 2ull << b;
	}
	return 2ull << (nr - 1);
}

const char *model_io_op_name(unsigned op)
{
	static const char *const names[TT_IO_OP_MAX] = {"read", "write", "other"};

	return op < TT_IO_OP_MAX ? names[op] : "other";
}
