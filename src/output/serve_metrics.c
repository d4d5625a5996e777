// SPDX-License-Identifier: GPL-2.0-only
/*
 * /metrics in the Prometheus text format 0.0.4 (what Prometheus, VictoriaMetrics
 * and OpenMetrics scrapers all read). Gauges describe the last complete
 * interval (WIN_LAST, the one batch output printed last), read with the
 * queries batch output and the TUI use; counters are session totals, or sums
 * of the intervals served so far where the model keeps no session figure
 * box-wide. Cardinality is bounded: --serve-top processes, cgroups and
 * syscalls by activity, the rest summed into one "other" series.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "escape.h"
#include "serve_internal.h"
#include "syscalls.h"
#include "u64map.h"
#include "use_model.h"
#include "util.h"

void serve_label_value(FILE *f, const char *v)
{
	char safe[256];

	/* Control bytes and invalid UTF-8 become visible escapes first. */
	escape_for_terminal(v ? v : "", v ? strlen(v) : 0, safe, sizeof(safe));
	for (const char *p = safe; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', f);
		fputc(*p, f);
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void value(FILE *f, double v)
{
	if (isnan(v))
		fputs(" NaN\n", f);
	else
		fprintf(f, " %.9g\n", v);
}

/* name{pid="",comm=""[,state=""]} v */
static void process_sample(FILE *f, const struct model *m, const char *name,
			   const struct model_row *r, int state, double v)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%u", r ? r->pid : 0);
	fprintf(f, "%s{pid=\"%s\",comm=\"", name, r ? pid : "other");
	serve_label_value(f, r ? r->comm : "other");
	if (state >= 0)
		fprintf(f, "\",state=\"%c", TT_STATE_LETTERS[state]);
	fputs("\"}", f);
	value(f, v);
}

/* The container label: the cgroup's name (a container, pod or unit), else its id. */
static void cgroup_sample(FILE *f, const struct model *m, const char *name,
			  const struct model_row *r, int state, double v)
{
	const char *cname = r ? model__cgroup_name(m, r->cgroup_id) : "other";

	fprintf(f, "%s{cgroup=\"", name);
	if (r)
		fprintf(f, "%llu", (unsigned long long)r->cgroup_id);
	else
		fputs("other", f);
	fputs("\",container=\"", f);
	if (cname)
		serve_label_value(f, cname);
	else
		fprintf(f, "%llu", (unsigned long long)r->cgroup_id);
	if (state >= 0)
		fprintf(f, "\",state=\"%c", TT_STATE_LETTERS[state]);
	fputs("\"}", f);
	value(f, v);
}

static uint64_t row_key(const struct model_row *r, enum model_dim dim)
{
	return dim == DIM_PID ? r->pid : r->cgroup_id;
}

/*
 * Per process (dim DIM_PID) or per cgroup (DIM_CGROUP): active threads, CPU
 * and threads by state of the top rows by activity, the rest as "other".
 */
static void write_groups(struct serve *s, struct model *m, FILE *f, enum model_dim dim)
{
	const char *pre = dim == DIM_PID ? "threadtop" : "threadtop_cgroup";
	void (*sample)(FILE *, const struct model *, const char *, const struct model_row *, int,
		       double) = dim == DIM_PID ? process_sample : cgroup_sample;
	struct model_query q;
	struct model_result top, by_state;
	struct u64map *named = u64map__new();
	double other_active = 0, other_cpu = 0, other_state[TT_ST_MAX] = {0};
	size_t nr;
	char name[64];

	model_query_init(&q);
	q.window = WIN_LAST;
	q.dims = DIM_BIT(dim);
	if (model__query(m, &q, &top) < 0) {
		u64map__free(named);
		return;
	}
	nr = top.nr < s->o.top ? top.nr : s->o.top;
	for (size_t i = 0; i < top.nr; i++) {
		if (i < nr) {
			u64map__put(named, row_key(&top.rows[i], dim), &top.rows[i]);
			continue;
		}
		other_active += top.rows[i].avg_active;
		other_cpu += top.rows[i].cpu_pct / 100;
	}
	snprintf(name, sizeof(name), "%s_active_threads", pre);
	family(f, name, "gauge",
	       "Average threads not sleeping (not in S or I) over the last interval");
	for (size_t i = 0; i < nr; i++)
		sample(f, m, name, &top.rows[i], -1, top.rows[i].avg_active);
	if (top.nr > nr)
		sample(f, m, name, NULL, -1, other_active);
	if (top.cpu_valid) {
		snprintf(name, sizeof(name), "%s_cpu_ratio", pre);
		family(f, name, "gauge",
		       "CPU time per second of the last interval (1 = one CPU busy)");
		for (size_t i = 0; i < nr; i++)
			sample(f, m, name, &top.rows[i], -1, top.rows[i].cpu_pct / 100);
		if (top.nr > nr)
			sample(f, m, name, NULL, -1, other_cpu);
	}
	q.dims = DIM_BIT(dim) | DIM_BIT(DIM_STATE);
	q.sort = SORT_NONE;
	if (model__query(m, &q, &by_state) == 0) {
		bool other = false;

		snprintf(name, sizeof(name), "%s_threads", pre);
		family(f, name, "gauge", "Average threads in each state over the last interval");
		for (size_t i = 0; i < by_state.nr; i++) {
			const struct model_row *r = &by_state.rows[i];
			const struct model_row *t = u64map__get(named, row_key(r, dim));

			if (r->state >= TT_ST_MAX)
				continue;
			if (t)
				sample(f, m, name, t, r->state, r->avg_threads);
			else
				other_state[r->state] += r->avg_threads, other = true;
		}
		for (int st = 0; st < TT_ST_MAX && other; st++)
			if (other_state[st] > 0)
				sample(f, m, name, NULL, st, other_state[st]);
		model_result__release(&by_state);
	}
	model_result__release(&top);
	u64map__free(named);
}

/* Threads caught in each syscall by the sampler (no tracing needed). */
static void write_sampled_syscalls(struct serve *s, struct model *m, FILE *f)
{
	struct model_query q;
	struct model_result res;
	double other = 0;
	size_t named = 0;
	char sc[32];

	model_query_init(&q);
	q.window = WIN_LAST;
	q.dims = DIM_BIT(DIM_SYSCALL);
	if (model__query(m, &q, &res) < 0)
		return;
	family(f, "threadtop_syscall_threads", "gauge",
	       "Average threads in each syscall over the last interval (sampled)");
	for (size_t i = 0; i < res.nr; i++) {
		const struct model_row *r = &res.rows[i];

		if (r->syscall == TT_SYSCALL_NONE)
			continue;
		if (named++ >= s->o.top) {
			other += r->avg_threads;
			continue;
		}
		fprintf(f, "threadtop_syscall_threads{syscall=\"");
		serve_label_value(f, syscall_label(r->syscall, sc, sizeof(sc)));
		fputs("\"}", f);
		value(f, r->avg_threads);
	}
	if (named > s->o.top)
		fputs("threadtop_syscall_threads{syscall=\"other\"}", f), value(f, other);
	model_result__release(&res);
}

/* --syscalls: exact counts and time, summed over the intervals served. */
static void write_exact_syscalls(struct serve *s, FILE *f)
{
	static const char *const names[2] = {"threadtop_syscalls_total",
					     "threadtop_syscall_seconds_total"};
	char sc[32];

	for (int k = 0; k < 2; k++) {
		family(f, names[k], "counter",
		       k ? "Time spent in each syscall, all threads (--syscalls)"
			 : "Calls of each syscall, all threads (--syscalls)");
		for (int nr = 0; nr < SERVE_MAX_SYSCALLS; nr++) {
			if (!s->c.syscall_count[nr])
				continue;
			fprintf(f, "%s{syscall=\"", names[k]);
			serve_label_value(f, syscall_label(nr, sc, sizeof(sc)));
			fputs("\"}", f);
			value(f, k ? (double)s->c.syscall_ns[nr] / 1e9
				   : (double)s->c.syscall_count[nr]);
		}
	}
}

/* --offcpu: blocked time per process over the last interval, and box-wide counters. */
static void write_offcpu(struct serve *s, struct model *m, FILE *f)
{
	struct model_stack_row *rows = NULL;
	int nr = model__offcpu(m, WIN_LAST, &rows);
	double win = model__window_seconds(m, WIN_LAST);
	struct u64map *by_pid = u64map__new();
	struct model_row *procs = xcalloc((size_t)(nr > 0 ? nr : 0) + 1, sizeof(*procs));
	double *ns = xcalloc((size_t)(nr > 0 ? nr : 0) + 1, sizeof(*ns)), other = 0;
	size_t np = 0;

	struct model_query q;
	struct model_result names = {0};
	struct u64map *pcomm = u64map__new();

	/* Processes are named for their main thread, as in the other families. */
	model_query_init(&q);
	q.window = WIN_LAST;
	q.dims = DIM_BIT(DIM_PID);
	q.sort = SORT_NONE;
	if (model__query(m, &q, &names) == 0)
		for (size_t i = 0; i < names.nr; i++)
			u64map__put(pcomm, names.rows[i].pid, (void *)names.rows[i].comm);
	for (int i = 0; i < nr; i++) {
		size_t k = (size_t)(uintptr_t)u64map__get(by_pid, rows[i].pid);
		const char *comm = u64map__get(pcomm, rows[i].pid);

		if (!k) {
			procs[np] = (struct model_row){.pid = rows[i].pid,
						       .comm = comm ? comm : rows[i].comm};
			u64map__put(by_pid, rows[i].pid, (void *)(uintptr_t)++np);
			k = np;
		}
		ns[k - 1] += (double)rows[i].value;
	}
	family(f, "threadtop_offcpu_threads", "gauge",
	       "Average threads blocked off-CPU over the last interval (--offcpu)");
	/* rows come most first, so processes come in order of their largest stack */
	for (size_t i = 0; i < np; i++) {
		if (i >= s->o.top) {
			other += ns[i];
			continue;
		}
		process_sample(f, m, "threadtop_offcpu_threads", &procs[i], -1,
			       win > 0 ? ns[i] / 1e9 / win : NAN);
	}
	if (np > s->o.top)
		process_sample(f, m, "threadtop_offcpu_threads", NULL, -1,
			       win > 0 ? other / 1e9 / win : NAN);
	family(f, "threadtop_offcpu_seconds_total", "counter",
	       "Time threads spent blocked off-CPU, all threads (--offcpu)");
	fputs("threadtop_offcpu_seconds_total", f), value(f, (double)s->c.offcpu_ns / 1e9);
	family(f, "threadtop_offcpu_switches_total", "counter",
	       "Switches off-CPU while blocked, all threads (--offcpu)");
	fputs("threadtop_offcpu_switches_total", f), value(f, (double)s->c.offcpu_switches);
	free(rows);
	free(procs);
	free(ns);
	u64map__free(by_pid);
	u64map__free(pcomm);
	model_result__release(&names);
}

static void use_sample(FILE *f, const char *name, const struct tt_use_metric *r, const char *figure,
		       double v)
{
	char comp[2 * TT_COMM_LEN + 1];

	if (isnan(v))
		return;
	memcpy(comp, r->name, sizeof(r->name));
	comp[sizeof(r->name)] = '\0';
	fprintf(f, "%s{resource=\"%s\",component=\"", name, use_kind_name(r->kind));
	serve_label_value(f, comp);
	if (figure)
		fprintf(f, "\",figure=\"%s", figure);
	fputs("\"}", f);
	value(f, v);
}

/* Every USE figure of the latest interval, and the verdict. */
static void write_use(struct model *m, FILE *f)
{
	static const struct {
		const char *name, *help;
	} fams[] = {
		{"threadtop_use_utilization_ratio", "USE utilization over the last interval"},
		{"threadtop_use_saturation", "USE saturation figure (see label figure)"},
		{"threadtop_use_saturation_limit", "Saturation figure above which it saturates"},
		{"threadtop_use_saturated", "1 when the component is saturated"},
		{"threadtop_use_psi_some_ratio", "PSI some: share of the interval stalled"},
		{"threadtop_use_psi_full_ratio", "PSI full: share of the interval stalled"},
		{"threadtop_use_errors", "Error events in the last interval"},
	};
	struct use_model *um = model__use(m);
	const struct use_component **comps;
	size_t nr = use_model__current(um, &comps);
	struct use_verdict v;

	for (size_t k = 0; k < ARRAY_SIZE(fams); k++) {
		family(f, fams[k].name, "gauge", fams[k].help);
		for (size_t i = 0; i < nr; i++) {
			const struct tt_use_metric *r = &comps[i]->last;
			const char *fig = r->sat_what ? use_figure_key(r->sat_what) : NULL;

			if (k == 0)
				use_sample(f, fams[k].name, r, NULL, use_util_pct(r) / 100);
			else if (k == 1 && fig)
				use_sample(f, fams[k].name, r, fig, use_sat_value(r));
			else if (k == 2 && fig)
				use_sample(f, fams[k].name, r, fig, use_sat_limit(r));
			else if (k == 3)
				use_sample(f, fams[k].name, r, NULL, r->flags & TT_USE_SATURATED);
			else if (k == 4 && r->psi_some_milli != TT_USE_UNKNOWN)
				use_sample(f, fams[k].name, r, NULL, use_psi_some_pct(r) / 100);
			else if (k == 5 && r->psi_full_milli != TT_USE_UNKNOWN)
				use_sample(f, fams[k].name, r, NULL, use_psi_full_pct(r) / 100);
			else if (k == 6 && r->flags & TT_USE_ERRORS_KNOWN)
				use_sample(f, fams[k].name, r, NULL, (double)r->errors);
		}
	}
	use_model__verdict(um, &v);
	family(f, "threadtop_use_verdict_level", "gauge",
	       "Bottleneck verdict: 0 no data, 1 ok, 2 almost busy, 3 busy, 4 saturated");
	fputs("threadtop_use_verdict_level", f), value(f, v.level);
	family(f, "threadtop_use_verdict", "gauge", "The verdict and the component it names");
	fprintf(f, "threadtop_use_verdict{level=\"%s\",resource=\"%s\",component=\"",
		use_verdict_level_name(v.level), v.name[0] ? use_kind_name(v.kind) : "");
	serve_label_value(f, v.name);
	fputs("\"} 1\n", f);
}

static void counter(FILE *f, const char *name, const char *help, double v)
{
	family(f, name, "counter", help);
	fputs(name, f);
	value(f, v);
}

/* Drops, threadtop's own cost and the server's. */
static void write_self(struct serve *s, struct model *m, FILE *f)
{
	struct model_prog_stat *ps = NULL;
	struct model_stats st;
	struct rusage ru;
	int nr;

	model__stats(m, &st);
	family(f, "threadtop_dropped_events_total", "counter", "Events lost, by reason");
	for (int r = 0; r < MODEL_DROP_MAX; r++)
		fprintf(f, "threadtop_dropped_events_total{reason=\"%s\"} %llu\n",
			model_drop_name(r), (unsigned long long)st.drops_session[r]);
	counter(f, "threadtop_ticks_total", "Sampling passes", (double)st.ticks);
	counter(f, "threadtop_tick_seconds_total", "Time the sampling passes took",
		(double)st.tick_cost_ns / 1e9);
	counter(f, "threadtop_events_total", "Records the model took", (double)st.events);
	counter(f, "threadtop_intervals_total", "Intervals closed", (double)st.intervals);
	family(f, "threadtop_sample_period_seconds", "gauge",
	       "Period a thread sample stands for (its weight)");
	fputs("threadtop_sample_period_seconds", f), value(f, st.weight_us / 1e6);
	if (s->h.interval_realtime_ns) {
		family(f, "threadtop_interval_end_timestamp_seconds", "gauge",
		       "When the last interval ended (batch output's \"time\")");
		uint64_t ms = s->h.interval_realtime_ns(s->h.ctx) / 1000000; /* as "time" */

		fprintf(f, "threadtop_interval_end_timestamp_seconds %llu.%03llu\n",
			(unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000));
	}
	family(f, "threadtop_interval_seconds", "gauge", "Length of the last interval");
	fputs("threadtop_interval_seconds", f), value(f, model__window_seconds(m, WIN_LAST));
	family(f, "threadtop_tracked_threads", "gauge", "Threads in threadtop's table");
	fputs("threadtop_tracked_threads", f), value(f, (double)st.nr_threads);
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		family(f, "threadtop_self_cpu_seconds_total", "counter",
		       "CPU time threadtop itself used");
		fprintf(f, "threadtop_self_cpu_seconds_total{mode=\"user\"} %.6f\n",
			ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6);
		fprintf(f, "threadtop_self_cpu_seconds_total{mode=\"system\"} %.6f\n",
			ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
		family(f, "threadtop_self_max_resident_bytes", "gauge",
		       "Peak resident memory of threadtop");
		fprintf(f, "threadtop_self_max_resident_bytes %llu\n",
			(unsigned long long)ru.ru_maxrss * 1024);
	}
	nr = model__prog_stats(m, WIN_SESSION, &ps);
	if (nr > 0) {
		family(f, "threadtop_bpf_program_seconds_total", "counter",
		       "Run time of each of threadtop's BPF programs (BPF_ENABLE_STATS)");
		for (int i = 0; i < nr; i++) {
			fputs("threadtop_bpf_program_seconds_total{program=\"", f);
			serve_label_value(f, ps[i].name);
			fprintf(f, "\"} %.9f\n", (double)ps[i].run_time_ns / 1e9);
		}
		family(f, "threadtop_bpf_program_runs_total", "counter",
		       "Runs of each of threadtop's BPF programs");
		for (int i = 0; i < nr; i++) {
			fputs("threadtop_bpf_program_runs_total{program=\"", f);
			serve_label_value(f, ps[i].name);
			fprintf(f, "\"} %llu\n", (unsigned long long)ps[i].run_cnt);
		}
	}
	free(ps);
	counter(f, "threadtop_serve_responses_total", "HTTP responses sent", (double)s->requests);
	counter(f, "threadtop_serve_busy_seconds_total",
		"Time the event loop spent serving (building responses included)",
		(double)s->busy_ns / 1e9);
	family(f, "threadtop_serve_longest_handler_seconds", "gauge",
	       "The longest the server held the event loop at once");
	fputs("threadtop_serve_longest_handler_seconds", f), value(f, (double)s->longest_ns / 1e9);
	counter(f, "threadtop_serve_refused_total", "Connections refused (too many open)",
		(double)s->refused);
}

int serve_metrics_write(struct serve *s, struct model *m, FILE *f)
{
	write_groups(s, m, f, DIM_PID);
	write_groups(s, m, f, DIM_CGROUP);
	write_sampled_syscalls(s, m, f);
	if (model__traced(m) & MODEL_TRACED_SYSCALLS)
		write_exact_syscalls(s, f);
	if (model__traced(m) & MODEL_TRACED_OFFCPU)
		write_offcpu(s, m, f);
	write_use(m, f);
	write_self(s, m, f);
	return ferror(f) ? -EIO : 0;
}

void serve_metrics_interval(struct serve *s, struct model *m)
{
	unsigned traced = model__traced(m);

	s->c.intervals++;
	if (traced & MODEL_TRACED_SYSCALLS) {
		struct model_query q;
		struct model_result res;

		model_query_init(&q);
		q.window = WIN_LAST;
		q.sort = SORT_NONE;
		if (model__query(m, &q, &res) == 0) {
			for (size_t i = 0; i < res.nr; i++) {
				struct model_syscall_stat *st = NULL;
				int n = model__thread_syscall_stats(m, res.rows[i].tid, WIN_LAST,
								    &st);

				for (int k = 0; k < n; k++) {
					if (st[k].nr < 0 || st[k].nr >= SERVE_MAX_SYSCALLS)
						continue;
					s->c.syscall_count[st[k].nr] += st[k].count;
					s->c.syscall_ns[st[k].nr] += st[k].total_ns;
				}
				free(st);
			}
			model_result__release(&res);
		}
	}
	if (traced & MODEL_TRACED_OFFCPU) {
		struct model_stack_row *rows = NULL;
		int n = model__offcpu(m, WIN_LAST, &rows);

		for (int i = 0; i < n; i++) {
			s->c.offcpu_ns += rows[i].value;
			s->c.offcpu_switches += rows[i].count;
		}
		free(rows);
	}
}
