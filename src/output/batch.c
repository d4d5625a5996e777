// SPDX-License-Identifier: GPL-2.0-only
/* Batch output of one interval as a text table or one NDJSON line (see batch.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "capture_report.h"
#include "escape.h"
#include "threadtop/frame_namer.h"
#include "json.h"
#include "json_model.h"
#include "procfs.h"
#include "profile.h"
#include "syscalls.h"
#include "use_report.h"
#include "util.h"

/* "labels": {NAME: value} of a label combination (model__labels). */
static void print_json_labels(struct model *m, struct json *j, uint32_t labels_id)
{
	const char *names[TT_LABEL_SLOTS], *values[TT_LABEL_SLOTS];

	model__labels(m, labels_id, names, values);
	json_begin_object(j, "labels");
	for (unsigned i = 0; i < TT_LABEL_SLOTS; i++)
		if (names[i] && values[i])
			json_string(j, names[i], values[i]);
	json_end_object(j);
}

/* "label_groups": the interval's samples split by label combination. */
static void print_json_label_groups(struct model *m, struct json *j)
{
	struct model_result res;
	struct model_query q;

	model_query_init(&q);
	q.dims = DIM_BIT(DIM_LABELS);
	if (model__query(m, &q, &res) < 0)
		return;
	json_begin_array(j, "label_groups");
	for (size_t i = 0; i < res.nr; i++) {
		json_begin_object(j, NULL);
		print_json_labels(m, j, res.rows[i].labels_id);
		json_u64(j, "samples", res.rows[i].samples);
		json_double(j, "avg_active", res.rows[i].avg_active, 3);
		json_double(j, "avg_threads", res.rows[i].avg_threads, 3);
		json_u64(j, "threads", res.rows[i].nr_threads);
		if (res.cpu_valid)
			json_double(j, "cpu_pct", res.rows[i].cpu_pct, 1);
		json_end_object(j);
	}
	json_end_array(j);
	model_result__release(&res);
}

static void print_json_thread(struct model *m, struct json *j, const struct model_row *row)
{
	struct model_syscall_count *sc = NULL;
	int nr;

	json_begin_object(j, NULL);
	json_thread_names(j, row);
	if (model__label_name(m, 0))
		print_json_labels(m, j, model__thread_labels(m, row->tid));
	json_bool(j, "kthread", row->kthread);
	json_state_samples(j, "samples", row->state_samples);
	json_double(j, "avg_active", row->avg_active, 3);
	json_double(j, "cpu_pct", row->cpu_pct, 1);
	json_double(j, "cpu_total_s", (double)row->cpu_total_ns / 1e9, 2);
	if (row->proc_known) { /* the TUI's USER, NI and RES columns */
		const char *user = model__string(m, row->user_id);

		json_u64(j, "ppid", row->ppid);
		json_u64(j, "uid", row->uid);
		if (user)
			json_string(j, "user", user);
		json_i64(j, "nice", row->nice);
		json_u64(j, "rss_bytes", row->rss_bytes);
	}
	nr = model__thread_syscalls(m, row->tid, WIN_INTERVAL, &sc);
	json_syscall_samples(j, "samples_by_syscall", sc, nr);
	/* What the fd of its latest syscall names (raw; JSON escapes it). */
	if (model__string(m, row->cur_target_id))
		json_string(j, "syscall_target", model__string(m, row->cur_target_id));
	json_thread_syscalls(j, m, row->tid, WIN_INTERVAL, sc, nr, false);
	free(sc);
	json_thread_runq(j, m, row->tid, WIN_INTERVAL);
	json_thread_io_wait(j, m, row->tid);
	json_end_object(j);
}

/*
 * "oncpu" (samples), "offcpu" (ns) or "io_stacks" (block I/O requests: ns,
 * requests, bytes): one entry per thread and stack, from
 * the same profile every export renders (profile.h), so the frames are the
 * exports' frames: inlined functions, LuaJIT threads' stitched stacks, the
 * tracer's frames cut. Frames root first, marked as in folded stacks
 * ("_[k]" kernel, "_[lua]" Lua, " [inlined]").
 */
static void print_json_stacks(struct model *m, struct json *j, const struct profile *p,
			      enum profile_kind kind)
{
	bool offcpu = kind == PROFILE_OFFCPU;
	char buf[1024];

	json_begin_array(j, offcpu ? "offcpu" : kind == PROFILE_IO ? "io_stacks" : "oncpu");
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];

		if (s->kind != kind)
			continue;
		json_begin_object(j, NULL);
		json_u64(j, "pid", s->pid);
		json_u64(j, "tid", s->tid);
		json_string(j, "comm", s->comm ? s->comm : "");
		json_begin_array(j, "frames");
		for (uint32_t f = 0; f < s->nr_frames; f++) {
			const struct profile_frame *fr = &p->frames[s->frames[f]];

			snprintf(buf, sizeof(buf), "%s%s", fr->name,
				 fr->flags & PROFILE_FRAME_SYNTH ? ""
								 : profile_frame_suffix(fr->flags));
			json_string(j, NULL, buf);
		}
		json_end_array(j);
		if (s->labels_id)
			print_json_labels(m, j, s->labels_id);
		if (offcpu) {
			json_u64(j, "ns", s->ns);
			json_u64(j, "switches", s->count);
		} else if (kind == PROFILE_IO) {
			json_u64(j, "ns", s->ns);
			json_u64(j, "requests", s->count);
			json_u64(j, "bytes", s->bytes);
		} else {
			json_u64(j, "samples", s->count);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

/* "bpf_stats": what each BPF program cost this interval (BPF_ENABLE_STATS). */
static void print_json_bpf_stats(struct model *m, struct json *j)
{
	struct model_prog_stat *ps = NULL;
	int nr = model__prog_stats(m, WIN_INTERVAL, &ps);

	json_begin_object(j, "bpf_stats");
	for (int i = 0; i < nr; i++) {
		json_begin_object(j, ps[i].name);
		json_u64(j, "run_cnt", ps[i].run_cnt);
		json_u64(j, "run_time_ns", ps[i].run_time_ns);
		json_u64(j, "avg_ns", ps[i].run_cnt ? ps[i].run_time_ns / ps[i].run_cnt : 0);
		json_u64(j, "recursion_misses", ps[i].recursion_misses);
		json_end_object(j);
	}
	json_end_object(j);
	free(ps);
}

/* The TUI header's figures: threads alive now by state, load, uptime, memory and swap. */
static void print_json_now(struct model *m, struct json *j)
{
	struct tt_host_stats h;
	struct model_now now;

	model__now(m, &now);
	json_begin_object(j, "now");
	json_u64(j, "threads", now.alive);
	json_u64(j, "running", now.states[TT_ST_R]);
	json_u64(j, "waiting", now.states[TT_ST_Q]);
	json_u64(j, "disk_wait", now.states[TT_ST_D]);
	json_u64(j, "stopped", now.states[TT_ST_T] + now.states[TT_ST_t]);
	json_u64(j, "zombie", now.states[TT_ST_Z]);
	json_end_object(j);
	if (!model__host(m, &h))
		return;
	json_begin_object(j, "host");
	for (int i = 0; i < 3; i++)
		json_double(j,
			    i == 0   ? "load1"
			    : i == 1 ? "load5"
				     : "load15",
			    h.load_milli[i] / 1000.0, 2);
	json_double(j, "uptime_s", (double)h.uptime_ns / 1e9, 0);
	json_u64(j, "mem_total_kb", h.mem_total_kb);
	json_u64(j, "mem_used_kb", h.mem_total_kb - h.mem_avail_kb);
	json_u64(j, "swap_total_kb", h.swap_total_kb);
	json_u64(j, "swap_used_kb", h.swap_total_kb - h.swap_free_kb);
	json_end_object(j);
}

/*
 * The sampling clock of the interval beside the rate asked: what was really
 * taken (hz_achieved, ticks), what the clock skipped (ticks_missed), and the
 * rate the source keeps when it lowered it (hz_target).
 */
static void print_json_rate(struct model *m, struct json *j)
{
	struct model_rate r;

	if (model__rate(m, WIN_INTERVAL, &r) < 0)
		return;
	json_double(j, "hz_achieved", r.hz_achieved, 3);
	json_double(j, "hz_target", r.hz_target, 3);
	json_u64(j, "ticks", r.ticks);
	json_u64(j, "ticks_missed", r.missed);
}

static int print_json(struct model *m, const struct batch_info *info,
		      const struct model_result *res, const struct model_stats *st, FILE *out)
{
	struct profile_opts po = {
		.window = WIN_INTERVAL,
		.namer = model__frame_namer(m),
		.cpu_hz = info->cpu_hz,
	};
	struct profile *p = profile__build(m, &po);
	struct json j;
	char when[40];

	json_init(&j, out);
	json_begin_object(&j, NULL);
	json_u64(&j, "schema", BATCH_SCHEMA_VERSION);
	json_string(&j, "time", format_rfc3339(info->realtime_ns, when, sizeof(when)));
	json_double(&j, "interval_s", res->window_s, 3);
	json_string(&j, "source", info->source);
	if (info->replay)
		json_bool(&j, "replay", true);
	json_u64(&j, "hz", info->hz);
	print_json_rate(m, &j);
	json_u64(&j, "nr_threads", res->nr);
	json_begin_array(&j, "threads");
	for (size_t i = 0; i < res->nr; i++)
		print_json_thread(m, &j, &res->rows[i]);
	json_end_array(&j);
	print_json_stacks(m, &j, p, PROFILE_ONCPU);
	json_hot_functions(&j, "hot_functions", m, p, PROFILE_ONCPU);
	if (model__traced(m) & MODEL_TRACED_OFFCPU) {
		print_json_stacks(m, &j, p, PROFILE_OFFCPU);
		json_hot_functions(&j, "hot_functions_offcpu", m, p, PROFILE_OFFCPU);
	}
	if (model__traced(m) & MODEL_TRACED_PROGS)
		print_json_bpf_stats(m, &j);
	if (model__traced(m) & MODEL_TRACED_IO)
		json_io(&j, m, WIN_INTERVAL, res->window_s);
	if (model__traced(m) & MODEL_TRACED_IO_STACKS)
		print_json_stacks(m, &j, p, PROFILE_IO);
	if (model__label_name(m, 0))
		print_json_label_groups(m, &j);
	batch_luajit_json(&j, m);
	print_json_now(m, &j);
	json_begin_object(&j, "dropped");
	for (int r = 0; r < MODEL_DROP_MAX; r++)
		json_u64(&j, model_drop_name(r), st->drops_interval[r]);
	json_end_object(&j);
	json_begin_object(&j, "cost");
	json_u64(&j, "ticks", st->ticks_interval);
	json_double(&j, "tick_ms_avg",
		    st->ticks_interval
			    ? (double)st->tick_cost_interval_ns / 1e6 / (double)st->ticks_interval
			    : 0,
		    3);
	json_end_object(&j);
	use_report__json(&j, model__use(m), true);
	if (info->tracer)
		trace_report__json(&j, info->tracer, res->window_s, true);
	if (info->cmds)
		cmdcap_report__json(&j, info->cmds);
	json_end_object(&j);
	fputc('\n', out);
	profile__free(p);
	return 0;
}

/* "S19 R1": the states of a row, most frequent first, at most three. */
static void state_mix(const struct model_row *row, char *buf, size_t len)
{
	bool used[TT_ST_MAX] = {0};
	size_t o = 0;

	buf[0] = '\0';
	for (int k = 0; k < 3; k++) {
		int best = -1;

		for (int s = 0; s < TT_ST_MAX; s++)
			if (!used[s] && row->state_samples[s] &&
			    (best < 0 || row->state_samples[s] > row->state_samples[best]))
				best = s;
		if (best < 0)
			break;
		used[best] = true;
		o += (size_t)snprintf(buf + o, len - o, "%s%c%llu", o ? " " : "",
				      TT_STATE_LETTERS[best],
				      (unsigned long long)row->state_samples[best]);
		if (o >= len)
			break;
	}
}

static int print_text(struct model *m, const struct batch_info *info,
		      const struct model_result *res, const struct model_stats *st, FILE *out)
{
	double active = 0;
	uint64_t drops = 0;
	char when[40], use_line[512];
	struct model_rate r = {0};

	for (size_t i = 0; i < res->nr; i++)
		active += res->rows[i].avg_active;
	for (int d = 0; d < MODEL_DROP_MAX; d++)
		drops += st->drops_interval[d];
	model__rate(m, WIN_INTERVAL, &r);
	fprintf(out,
		"threadtop %s  source %s%s  %u Hz (got %.1f, %llu missed)  interval %.2fs  threads %zu  "
		"active %.2f  dropped %llu\n",
		format_rfc3339(info->realtime_ns, when, sizeof(when)), info->source,
		info->replay ? " (replay)" : "", info->hz, r.hz_achieved,
		(unsigned long long)r.missed, res->window_s, res->nr, active,
		(unsigned long long)drops);
	fprintf(out, "%s\n", use_report__line(model__use(m), use_line, sizeof(use_line)));
	fprintf(out, "%8s %8s %-16s %-16s %7s %6s %-18s %s\n", "PID", "TID", "COMM", "STATES",
		"ACTIVE", "%CPU", "SYSCALL", "CMDLINE");
	for (size_t i = 0; i < res->nr; i++) {
		const struct model_row *row = &res->rows[i];
		struct model_syscall_count *sc = NULL;
		char comm[64], mix[48], cmd[96], scname[32] = "-";
		int nr = model__thread_syscalls(m, row->tid, WIN_INTERVAL, &sc);

		if (nr > 0)
			syscall_label(sc[0].nr, scname, sizeof(scname));
		free(sc);
		/* Bounded by the escaper, so a cut never splits an escape. */
		escape_for_terminal(row->comm, strlen(row->comm), comm, 17);
		if (row->cmdline)
			escape_for_terminal(row->cmdline, strlen(row->cmdline), cmd, sizeof(cmd));
		else
			snprintf(cmd, sizeof(cmd), row->kthread ? "[kernel]" : "-");
		state_mix(row, mix, sizeof(mix));
		fprintf(out, "%8u %8u %-16s %-16s %7.2f %6.1f %-18s %s\n", row->pid, row->tid, comm,
			mix, row->avg_active, row->cpu_pct, scname, cmd);
	}
	trace_report__text(out, info->tracer, res->window_s);
	cmdcap_report__text(out, info->cmds);
	batch_luajit_text(out, m);
	fputc('\n', out);
	return 0;
}

int batch_print_interval(struct model *m, enum output_format format, const struct batch_info *info,
			 FILE *out)
{
	struct model_result res;
	struct model_query q;
	struct model_stats st;
	int err;

	model_query_init(&q);
	err = model__query(m, &q, &res);
	if (err)
		return err;
	model__stats(m, &st);
	if (format == FORMAT_JSON)
		err = print_json(m, info, &res, &st, out);
	else
		err = print_text(m, info, &res, &st, out);
	model_result__release(&res);
	if (fflush(out) == EOF || ferror(out))
		return errno ? -errno : -EIO; /* EPIPE: the reader went away */
	return err;
}
