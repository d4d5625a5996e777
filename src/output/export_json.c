// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON report: everything a snapshot holds in one versioned document
 * (batch schema 1 extended, "report_version": 1, documented in README.md):
 * the run, per-thread figures as in batch output, groups by state, process
 * and syscall, drop counters, and the profiles (frames table + samples) the
 * other formats render, with their totals.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "export_internal.h"
#include "batch.h"
#include "json.h"
#include "json_model.h"
#include "syscalls.h"
#include "capture_report.h"
#include "use_report.h"
#include "util.h"

#define REPORT_VERSION 1

static const char *const window_names[WIN_MAX] = {
	[WIN_INTERVAL] = "interval",
	[WIN_MINUTE] = "minute",
	[WIN_SESSION] = "session",
	[WIN_LAST] = "last_interval",
};

/* "bpf_stats": what each BPF program cost in the window (BPF_ENABLE_STATS). */
static void write_bpf_stats(const struct export_ctx *x, struct json *j)
{
	struct model_prog_stat *ps = NULL;
	int nr;

	if (!(model__traced(x->m) & MODEL_TRACED_PROGS))
		return;
	nr = model__prog_stats(x->m, x->o->window, &ps);
	json_begin_object(j, "bpf_stats");
	for (int i = 0; i < nr; i++) {
		json_begin_object(j, ps[i].name);
		json_u64(j, "run_cnt", ps[i].run_cnt);
		json_u64(j, "run_time_ns", ps[i].run_time_ns);
		json_u64(j, "recursion_misses", ps[i].recursion_misses);
		json_end_object(j);
	}
	json_end_object(j);
	free(ps);
}

static void write_thread(const struct export_ctx *x, struct json *j, const struct model_row *row)
{
	struct model_syscall_count *sc = NULL;
	int nr;

	json_begin_object(j, NULL);
	json_thread_names(j, row);
	json_bool(j, "kthread", row->kthread);
	json_state_samples(j, "samples", row->state_samples);
	json_double(j, "avg_active", row->avg_active, 3);
	json_double(j, "cpu_pct", row->cpu_pct, 1);
	nr = model__thread_syscalls(x->m, row->tid, x->o->window, &sc);
	json_syscall_samples(j, "samples_by_syscall", sc, nr);
	json_thread_syscalls(j, x->m, row->tid, x->o->window, sc, nr, true);
	free(sc);
	json_thread_runq(j, x->m, row->tid, x->o->window);
	json_thread_io_wait(j, x->m, row->tid);
	json_end_object(j);
}

/* Rows of one query over the report's window and filter; 0 or -errno. */
static int query(const struct export_ctx *x, unsigned dims, struct model_result *res)
{
	struct model_query q;

	model_query_init(&q);
	q.window = x->o->window;
	q.dims = dims;
	if (x->o->filter)
		q.filter = *x->o->filter;
	return model__query(x->m, &q, res);
}

static void write_threads(const struct export_ctx *x, struct json *j)
{
	struct model_result res;

	json_begin_array(j, "threads");
	if (query(x, DIM_BIT(DIM_TID), &res) == 0) {
		for (size_t i = 0; i < res.nr; i++)
			write_thread(x, j, &res.rows[i]);
		model_result__release(&res);
	}
	json_end_array(j);
}

static void write_groups(const struct export_ctx *x, struct json *j)
{
	struct model_result res;
	char name[32];

	json_begin_object(j, "groups");
	json_begin_array(j, "by_state");
	if (query(x, DIM_BIT(DIM_STATE), &res) == 0) {
		for (size_t i = 0; i < res.nr; i++) {
			char letter[2] = {TT_STATE_LETTERS[res.rows[i].state], '\0'};

			json_begin_object(j, NULL);
			json_string(j, "state", letter);
			json_u64(j, "samples", res.rows[i].samples);
			json_double(j, "avg_threads", res.rows[i].avg_threads, 3);
			json_end_object(j);
		}
		model_result__release(&res);
	}
	json_end_array(j);
	json_begin_array(j, "by_process");
	if (query(x, DIM_BIT(DIM_PID), &res) == 0) {
		for (size_t i = 0; i < res.nr; i++) {
			json_begin_object(j, NULL);
			json_u64(j, "pid", res.rows[i].pid);
			json_string(j, "comm", res.rows[i].comm);
			json_u64(j, "nr_threads", res.rows[i].nr_threads);
			json_state_samples(j, "samples", res.rows[i].state_samples);
			json_double(j, "avg_active", res.rows[i].avg_active, 3);
			json_double(j, "cpu_pct", res.rows[i].cpu_pct, 1);
			json_end_object(j);
		}
		model_result__release(&res);
	}
	json_end_array(j);
	json_begin_array(j, "by_syscall");
	if (query(x, DIM_BIT(DIM_SYSCALL), &res) == 0) {
		for (size_t i = 0; i < res.nr; i++) {
			if (res.rows[i].syscall == TT_SYSCALL_NONE)
				continue;
			json_begin_object(j, NULL);
			json_string(j, "syscall",
				    syscall_label(res.rows[i].syscall, name, sizeof(name)));
			json_u64(j, "samples", res.rows[i].samples);
			json_u64(j, "nr_threads", res.rows[i].nr_threads);
			json_end_object(j);
		}
		model_result__release(&res);
	}
	json_end_array(j);
	json_end_object(j);
}

static void write_frames(const struct export_ctx *x, struct json *j)
{
	json_begin_array(j, "frames");
	for (size_t i = 0; i < x->p->nr_frames; i++) {
		const struct profile_frame *fr = &x->p->frames[i];

		json_begin_object(j, NULL);
		json_string(j, "name", fr->name);
		if (fr->module)
			json_string(j, "module", fr->module);
		if (fr->addr)
			json_u64(j, "addr", fr->addr);
		json_bool(j, "kernel", fr->flags & PROFILE_FRAME_KERNEL);
		if (fr->flags & PROFILE_FRAME_SYNTH)
			json_bool(j, "synthetic", true);
		if (fr->flags & PROFILE_FRAME_INLINED)
			json_bool(j, "inlined", true);
		json_end_object(j);
	}
	json_end_array(j);
}

static void write_profile(const struct export_ctx *x, struct json *j, enum profile_kind kind)
{
	const struct profile *p = x->p;
	char name[32];

	json_begin_object(j, profile_kind_name(kind));
	json_string(j, "count_unit",
		    kind == PROFILE_OFFCPU ? "switches"
		    : kind == PROFILE_IO   ? "requests"
					   : "samples");
	json_u64(j, "total_count", p->total_count[kind]);
	json_u64(j, "total_ns", p->total_ns[kind]);
	json_begin_array(j, "samples");
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];

		if (s->kind != kind)
			continue;
		json_begin_object(j, NULL);
		json_u64(j, "pid", s->pid);
		json_u64(j, "tid", s->tid);
		json_string(j, "comm", s->comm);
		if (s->state < TT_ST_UNKNOWN) {
			char letter[2] = {TT_STATE_LETTERS[s->state], '\0'};

			json_string(j, "state", letter);
		}
		if (s->syscall != TT_SYSCALL_NONE)
			json_string(j, "syscall", syscall_label(s->syscall, name, sizeof(name)));
		if (s->labels_id) {
			const char *names[TT_LABEL_SLOTS] = {0}, *values[TT_LABEL_SLOTS] = {0};

			model__labels(x->m, s->labels_id, names, values);
			json_begin_object(j, "labels");
			for (int k = 0; k < TT_LABEL_SLOTS; k++)
				if (names[k] && values[k])
					json_string(j, names[k], values[k]);
			json_end_object(j);
		}
		json_begin_array(j, "frames");
		for (uint32_t k = 0; k < s->nr_frames; k++)
			json_u64(j, NULL, s->frames[k]);
		json_end_array(j);
		json_u64(j, "count", s->count);
		json_u64(j, "ns", s->ns);
		if (kind == PROFILE_IO)
			json_u64(j, "bytes", s->bytes);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

int export_json(const struct export_ctx *x, FILE *f)
{
	struct model_stats st;
	struct model_rate rate;
	struct json j;
	char when[40];

	model__stats(x->m, &st);
	json_init(&j, f);
	json_begin_object(&j, NULL);
	json_u64(&j, "schema", BATCH_SCHEMA_VERSION);
	json_string(&j, "kind", "report");
	json_u64(&j, "report_version", REPORT_VERSION);
	json_string(&j, "time", format_rfc3339(x->realtime_ns, when, sizeof(when)));
	json_string(&j, "window",
		    window_names[x->o->window < WIN_MAX ? x->o->window : WIN_SESSION]);
	json_double(&j, "duration_s", (double)x->p->duration_ns / 1e9, 3);
	json_string(&j, "host", x->host);
	json_string(&j, "kernel", x->kernel);
	json_string(&j, "source", x->o->source ? x->o->source : "unknown");
	json_u64(&j, "hz", x->o->hz);
	json_u64(&j, "weight_us", x->p->weight_us);
	if (model__rate(x->m, x->o->window < WIN_MAX ? x->o->window : WIN_SESSION, &rate) == 0) {
		json_double(&j, "hz_achieved", rate.hz_achieved, 3);
		json_double(&j, "hz_target", rate.hz_target, 3);
		json_u64(&j, "ticks", rate.ticks);
		json_u64(&j, "ticks_missed", rate.missed);
	}
	write_threads(x, &j);
	write_groups(x, &j);
	json_begin_object(&j, "dropped");
	for (int r = 0; r < MODEL_DROP_MAX; r++)
		json_u64(&j, model_drop_name(r), st.drops_session[r]);
	json_end_object(&j);
	json_begin_object(&j, "cost");
	json_u64(&j, "ticks", st.ticks);
	json_double(&j, "tick_ms_avg",
		    st.ticks ? (double)st.tick_cost_ns / 1e6 / (double)st.ticks : 0, 3);
	json_end_object(&j);
	write_bpf_stats(x, &j);
	batch_luajit_json_window(&j, x->m, x->o->window, x->o->filter ? x->o->filter->pid : 0,
				 x->o->filter ? x->o->filter->tid : 0);
	use_report__json(&j, model__use(x->m), true);
	if (x->o->tracer)
		trace_report__json(&j, x->o->tracer, model__window_seconds(x->m, WIN_INTERVAL),
				   false);
	if (x->o->cmds)
		cmdcap_report__json(&j, x->o->cmds);
	json_hot_functions(&j, "hot_functions", x->m, x->p, PROFILE_ONCPU);
	if (x->p->kinds & (1u << PROFILE_OFFCPU))
		json_hot_functions(&j, "hot_functions_offcpu", x->m, x->p, PROFILE_OFFCPU);
	write_frames(x, &j);
	json_begin_object(&j, "profiles");
	for (int k = 0; k < PROFILE_KIND_MAX; k++)
		if (x->p->kinds & (1u << k))
			write_profile(x, &j, (enum profile_kind)k);
	json_end_object(&j);
	json_end_object(&j);
	fputc('\n', f);
	return 0;
}
