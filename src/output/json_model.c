// SPDX-License-Identifier: GPL-2.0-only
/* Model figures as JSON members (see json_model.h), shared by batch NDJSON and the report. */
#include <stdio.h>
#include <stdlib.h>

#include "hotfuncs.h"
#include "json_model.h"
#include "profile.h"
#include "threadtop/events.h"
#include "syscalls.h"

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
