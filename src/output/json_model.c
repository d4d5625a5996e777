// SPDX-License-Identifier: GPL-2.0-only
/* Model figures as JSON members (see json_model.h), shared by batch NDJSON and the report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotfuncs.h"
#include "json_model.h"
#include "profile.h"
#include "threadtop/events.h"
#include "syscalls.h"
#include "util.h"

void json_thread_names(struct json *j, const struct model_row *row)
{
	json_u64(j, "pid", row->pid);
	json_u64(j, "tid", row->tid);
	json_string(j, "comm", row->comm);
	if (row->cmdline)
		json_string(j, "cmdline", row->cmdline);
}

void json_state_samples(struct json *j, const char *key, const uint64_t *counts)
{
	json_begin_object(j, key);
	for (int s = 0; s < TT_ST_MAX; s++) {
		char letter[2] = {TT_STATE_LETTERS[s], '\0'};

		if (counts[s])
			json_u64(j, letter, counts[s]);
	}
	json_end_object(j);
}

void json_syscall_samples(struct json *j, const char *key, const struct model_syscall_count *sc,
			  int nr)
{
	char name[32];

	json_begin_object(j, key);
	for (int i = 0; i < nr; i++)
		json_u64(j, syscall_label(sc[i].nr, name, sizeof(name)), sc[i].samples);
	json_end_object(j);
}

/* Samples of syscall nr in sc (nr_sc entries), 0 when none. */
static uint64_t sampled(const struct model_syscall_count *sc, int nr_sc, int nr)
{
	for (int i = 0; i < nr_sc; i++)
		if (sc[i].nr == nr)
			return sc[i].samples;
	return 0;
}

void json_thread_syscalls(struct json *j, struct model *m, uint32_t tid, enum model_window window,
			  const struct model_syscall_count *sc, int nr, bool hist)
{
	struct model_syscall_stat *st = NULL;
	int nr_st = 0;
	char name[32];

	if (model__traced(m) & MODEL_TRACED_SYSCALLS)
		nr_st = model__thread_syscall_stats(m, tid, window, &st);
	json_begin_object(j, "syscalls");
	for (int i = 0; i < nr_st; i++) {
		uint64_t n = sampled(sc, nr, st[i].nr);

		json_begin_object(j, syscall_label(st[i].nr, name, sizeof(name)));
		json_u64(j, "count", st[i].count);
		json_u64(j, "total_ns", st[i].total_ns);
		if (n)
			json_u64(j, "samples", n);
		if (hist) {
			int last = TT_SYSCALL_HIST_BUCKETS - 1;

			while (last > 0 && !st[i].hist[last])
				last--;
			json_begin_array(j, "hist_log2_ns");
			for (int b = 0; b <= last; b++)
				json_u64(j, NULL, st[i].hist[b]);
			json_end_array(j);
		}
		json_end_object(j);
	}
	for (int i = 0; i < nr; i++) {
		bool exact = false;

		for (int k = 0; k < nr_st && !exact; k++)
			exact = st[k].nr == sc[i].nr;
		if (exact)
			continue;
		json_begin_object(j, syscall_label(sc[i].nr, name, sizeof(name)));
		json_u64(j, "samples", sc[i].samples);
		json_end_object(j);
	}
	json_end_object(j);
	free(st);
}

void json_thread_runq(struct json *j, struct model *m, uint32_t tid, enum model_window window)
{
	uint64_t count, ns;

	if (!(model__traced(m) & MODEL_TRACED_OFFCPU) ||
	    model__thread_runq(m, tid, window, &count, &ns) < 0)
		return;
	json_begin_object(j, "runq");
	json_u64(j, "count", count);
	json_u64(j, "total_ns", ns);
	json_end_object(j);
}

void json_thread_io_wait(struct json *j, struct model *m, uint32_t tid)
{
	struct model_io_wait w;
	char dev[24];

	if (model__thread_io_wait(m, tid, &w) < 0)
		return;
	json_begin_object(j, "io_wait");
	json_string(j, "device", w.disk);
	snprintf(dev, sizeof(dev), "%u:%u", w.major, w.minor);
	json_string(j, "dev", dev);
	json_string(j, "op", model_io_op_name(w.op));
	json_u64(j, "bytes", w.bytes);
	json_u64(j, "age_ns", w.age_ns);
	json_bool(j, "issued", w.issued);
	json_end_object(j);
}

void json_hot_functions(struct json *j, const char *key, struct model *m, const struct profile *p,
			int kind)
{
	/* On-CPU without the CPU sampler: the running threads' samples, as the TUI shows. */
	bool threads = kind == PROFILE_ONCPU && !(model__traced(m) & MODEL_TRACED_ONCPU);
	struct hotfuncs *h = hotfuncs__from_profile(m, p, threads ? PROFILE_THREADS : kind,
						    threads ? 1u << TT_ST_R : 0);
	char total_key[64];
	size_t n = h->nr;

	if (n > JSON_HOT_FUNCTIONS_MAX) {
		hotfuncs__sort_first(h, HOTFUNCS_BY_TOTAL, false, JSON_HOT_FUNCTIONS_MAX);
		n = JSON_HOT_FUNCTIONS_MAX;
		h->nr = n; /* the rest go unlisted; free still frees them */
	}
	hotfuncs__sort(h, HOTFUNCS_BY_SELF, false);
	json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		const struct hotfunc *f = h->funcs[i];
		char name[HOTFUNC_NAME_LEN];

		json_begin_object(j, NULL);
		json_string(j, "name", hotfunc_name(f, name));
		if (f->module)
			json_string(j, "module", f->module);
		if (f->kernel)
			json_bool(j, "kernel", true);
		json_u64(j, "self", f->self);
		json_u64(j, "total", f->total);
		/* Shares of time: a LuaJIT sample weighs its interval (model__oncpu_stacks). */
		json_double(j, "self_pct",
			    h->total_weight
				    ? 100.0 * (double)f->self_weight / (double)h->total_weight
				    : 0,
			    2);
		json_double(j, "total_pct",
			    h->total_weight
				    ? 100.0 * (double)f->total_weight / (double)h->total_weight
				    : 0,
			    2);
		json_begin_array(j, "pids");
		for (unsigned k = 0; k < f->nr_pids; k++)
			json_u64(j, NULL, f->pids[k]);
		json_end_array(j);
		if (f->more_pids)
			json_bool(j, "more_pids", true);
		json_end_object(j);
	}
	json_end_array(j);
	snprintf(total_key, sizeof(total_key), "%s_total", key);
	json_u64(j, total_key, h->total);
	hotfuncs__free(h);
}

/* Requests of one device, or one thread on one device, summed over directions. */
struct io_sum {
	const struct model_io_row *first; /* names it */
	uint64_t count, bytes, total_ns, queue_ns, errors, io_worker;
	uint64_t op_count[TT_IO_OP_MAX], op_bytes[TT_IO_OP_MAX];
	uint64_t hist[TT_IO_HIST_BUCKETS];
};

static void io_add(struct io_sum *s, const struct model_io_row *r)
{
	if (!s->first)
		s->first = r;
	s->count += r->count;
	s->bytes += r->bytes;
	s->total_ns += r->total_ns;
	s->queue_ns += r->queue_ns;
	s->errors += r->errors;
	s->io_worker += r->io_worker;
	s->op_count[r->op < TT_IO_OP_MAX ? r->op : TT_IO_OTHER] += r->count;
	s->op_bytes[r->op < TT_IO_OP_MAX ? r->op : TT_IO_OTHER] += r->bytes;
	for (int b = 0; b < TT_IO_HIST_BUCKETS; b++)
		s->hist[b] += r->hist[b];
}

static void json_io_figures(struct json *j, const struct io_sum *s, double seconds)
{
	static const char *const op_names[TT_IO_OP_MAX][2] = {
		{"reads", "read_bytes"}, {"writes", "write_bytes"}, {"other", "other_bytes"}};
	int last = TT_IO_HIST_BUCKETS - 1;
	char dev[24];

	json_string(j, "device", s->first->disk[0] ? s->first->disk : "");
	snprintf(dev, sizeof(dev), "%u:%u", s->first->major, s->first->minor);
	json_string(j, "dev", dev);
	json_u64(j, "requests", s->count);
	json_u64(j, "bytes", s->bytes);
	json_double(j, "iops", seconds > 0 ? (double)s->count / seconds : 0, 1);
	json_double(j, "mb_s", seconds > 0 ? (double)s->bytes / 1e6 / seconds : 0, 3);
	for (int op = 0; op < TT_IO_OP_MAX; op++) {
		json_u64(j, op_names[op][0], s->op_count[op]);
		json_u64(j, op_names[op][1], s->op_bytes[op]);
	}
	json_u64(j, "errors", s->errors);
	json_u64(j, "io_worker_requests", s->io_worker);
	json_u64(j, "total_ns", s->total_ns);
	json_u64(j, "mean_ns", s->count ? s->total_ns / s->count : 0);
	json_u64(j, "queue_ns", s->queue_ns);
	json_u64(j, "p50_ns", model_log2_percentile(s->hist, TT_IO_HIST_BUCKETS, 50));
	json_u64(j, "p99_ns", model_log2_percentile(s->hist, TT_IO_HIST_BUCKETS, 99));
	while (last > 0 && !s->hist[last])
		last--;
	json_begin_array(j, "hist_log2_ns");
	for (int b = 0; b <= last; b++)
		json_u64(j, NULL, s->hist[b]);
	json_end_array(j);
}

static bool same_dev(const struct model_io_row *a, const struct model_io_row *b)
{
	return a->major == b->major && a->minor == b->minor;
}

/*
 * Sums rows into sums by device (tid too when by_thread), in the rows'
 * order (most requests first). Returns the sums made.
 */
static size_t io_group(const struct model_io_row *rows, size_t nr, bool by_thread,
		       struct io_sum *sums)
{
	size_t n = 0;

	for (size_t i = 0; i < nr; i++) {
		size_t k = 0;

		while (k < n && !(same_dev(sums[k].first, &rows[i]) &&
				  (!by_thread || (sums[k].first->tid == rows[i].tid &&
						  sums[k].first->other == rows[i].other))))
			k++;
		if (k == n)
			memset(&sums[n++], 0, sizeof(*sums));
		io_add(&sums[k], &rows[i]);
	}
	return n;
}

static int cmp_io_sums(const void *a, const void *b)
{
	const struct io_sum *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

void json_io(struct json *j, struct model *m, enum model_window window, double seconds)
{
	struct model_io_row *rows = NULL;
	int nr = model__io(m, window, &rows);
	struct io_sum *sums;
	size_t n;

	json_begin_object(j, "io");
	sums = xcalloc(nr > 0 ? (size_t)nr : 1, sizeof(*sums));
	n = io_group(rows, nr > 0 ? (size_t)nr : 0, false, sums);
	qsort(sums, n, sizeof(*sums), cmp_io_sums);
	json_begin_array(j, "devices");
	for (size_t i = 0; i < n; i++) {
		json_begin_object(j, NULL);
		json_io_figures(j, &sums[i], seconds);
		json_end_object(j);
	}
	json_end_array(j);
	n = io_group(rows, nr > 0 ? (size_t)nr : 0, true, sums);
	qsort(sums, n, sizeof(*sums), cmp_io_sums);
	json_begin_array(j, "threads");
	for (size_t i = 0; i < n; i++) {
		json_begin_object(j, NULL);
		json_u64(j, "pid", sums[i].first->pid);
		json_u64(j, "tid", sums[i].first->tid);
		json_string(j, "comm", sums[i].first->comm);
		if (sums[i].first->other)
			json_bool(j, "other", true);
		json_io_figures(j, &sums[i], seconds);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
	free(sums);
	free(rows);
}
