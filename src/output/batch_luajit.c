// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LuaJIT part of batch output: per LuaJIT thread of the interval, its
 * samples per VM state and its hottest Lua functions, as the "luajit" array
 * of the JSON line or a few lines under the text table.
 */
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "escape.h"
#include "json.h"
#include "lj_model.h"

#define TOP_FUNCTIONS 10

/* The thread's comm as the thread table knows it, or "". */
static const char *thread_comm(struct model *m, uint32_t tid, struct model_result *res)
{
	struct model_query q;

	model_query_init(&q);
	q.filter.tid = tid;
	q.window = WIN_SESSION;
	if (model__query(m, &q, res) < 0) {
		res->nr = 0;
		res->rows = NULL;
		return "";
	}
	return res->nr ? res->rows[0].comm : "";
}

void batch_luajit_json(struct json *j, struct model *m)
{
	batch_luajit_json_window(j, m, WIN_INTERVAL, 0, 0);
}

void batch_luajit_json_window(struct json *j, struct model *m, enum model_window window,
			      uint32_t pid, uint32_t tid)
{
	static const char *const names[] = TT_LJ_VMSTATE_NAMES;
	struct lj_model *lm = model__luajit(m);
	struct lj_thread_row *rows = NULL;
	int n = lj_model__threads(lm, window, pid, &rows);

	json_begin_array(j, "luajit");
	for (int i = 0; i < n; i++) {
		const struct lj_thread_row *r = &rows[i];
		struct lj_func_row *fr = NULL;
		struct model_result res;
		int nf;

		if (tid && r->tid != tid)
			continue;
		json_begin_object(j, NULL);
		json_u64(j, "pid", r->pid);
		json_u64(j, "tid", r->tid);
		json_string(j, "comm", thread_comm(m, r->tid, &res));
		model_result__release(&res);
		json_u64(j, "fidelity", r->fidelity);
		json_string(j, "source", r->agentless ? "bpf" : "library");
		json_u64(j, "interval_us", r->weight_us);
		json_begin_object(j, "counters");
		for (int s = 0; s < TT_LJ_VMSTATE_MAX; s++)
			json_u64(j, names[s], r->counts[s]);
		json_u64(j, "samples", r->samples);
		json_end_object(j);
		nf = lj_model__functions(lm, window, r->pid, r->tid, TOP_FUNCTIONS, &fr);
		json_begin_array(j, "top_functions");
		for (int k = 0; k < nf; k++) {
			json_begin_object(j, NULL);
			json_string(j, "name", fr[k].name);
			json_u64(j, "self", fr[k].self);
			json_u64(j, "total", fr[k].total);
			json_u64(j, "trace", fr[k].trace);
			json_end_object(j);
		}
		json_end_array(j);
		free(fr);
		json_end_object(j);
	}
	json_end_array(j);
	free(rows);
}

void batch_luajit_text(FILE *out, struct model *m)
{
	struct lj_model *lm = model__luajit(m);
	struct lj_thread_row *rows = NULL;
	int n = lj_model__threads(lm, WIN_INTERVAL, 0, &rows);

	for (int i = 0; i < n; i++) {
		const struct lj_thread_row *r = &rows[i];
		struct lj_func_row *fr = NULL;
		char name[128];
		int nf;

		fprintf(out, "luajit %u/%u  samples %llu  fidelity %u/10 (%s) ", r->pid, r->tid,
			(unsigned long long)r->samples, r->fidelity,
			r->agentless ? "bpf" : "library");
		for (int s = 0; s < TT_LJ_VMSTATE_MAX; s++)
			if (r->counts[s])
				fprintf(out, " %s %.0f%%", lj_vmstate_name((unsigned)s),
					100.0 * (double)r->counts[s] / (double)r->samples);
		fputc('\n', out);
		nf = lj_model__functions(lm, WIN_INTERVAL, r->pid, r->tid, 5, &fr);
		for (int k = 0; k < nf; k++) {
			escape_for_terminal(fr[k].name, strlen(fr[k].name), name, sizeof(name));
			fprintf(out, "  %6llu self %6llu total  %s\n",
				(unsigned long long)fr[k].self, (unsigned long long)fr[k].total,
				name);
		}
		free(fr);
	}
	free(rows);
}
