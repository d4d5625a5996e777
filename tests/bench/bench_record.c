// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark of recordings (not a timed test). A synthetic session like the
 * BPF source's (200 threads sampled at 20 Hz, kernel and user stacks from a
 * pool, states, syscalls, wait channels) is recorded, then it prints:
 *  - bytes per thread-sample of the .ttr file, against the same samples as
 *    xcapture-style CSV rows (stacks symbolized) and as zstd-compressed NDJSON;
 *  - replay ingest: records per second decoded and fed to the model;
 *  - seeking: jumps to random times of a one-hour recording, each from a fresh
 *    model until the interval there is complete (what the TUI's jump does).
 * Usage: bench_record [DIR [SECONDS [THREADS]]]  (default /tmp 3600 200)
 *        bench_record --seek FILE [JUMPS]   times jumps in an existing recording
 *        bench_record --seeds DIR   writes small fuzz seed files
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zstd.h>

#include "event_codec.h"
#include "model.h"
#include "record.h"
#include "source_replay.h"
#include "ttr_reader.h"
#include "util.h"

#define HZ 20
#define NR_PROCS 4
#define NR_STACKS 2000
#define NR_SYMS 3000
#define T0 (1000 * NSEC_PER_SEC)

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static double now_s(void)
{
	return (double)monotonic_ns() / 1e9;
}

/* CPU time of this process: the rates hold on a busy machine too. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct stack_def {
	uint16_t nr;
	uint64_t ips[48];
	bool sent;
};

struct synth {
	unsigned nr_threads;
	struct stack_def stacks[NR_STACKS];
	char *syms[NR_SYMS];
	struct {
		uint64_t cpu_ns;
		uint8_t profile; /* 0 spinner, 1 sleeper, 2 mixed */
		uint32_t home_k, home_u, wchan;
		int syscall;
	} th[1024];
	/* Output. */
	void (*emit)(void *ctx, const struct tt_event_header *ev);
	void *ctx;
	uint64_t samples;
};

static const char *const parts[] = {"do",     "sys",	 "futex", "wait",  "queue", "schedule",
				    "epoll",  "read",	 "write", "tcp",   "sock",  "vfs",
				    "page",   "fault",	 "mutex", "lock",  "entry", "syscall",
				    "handle", "process", "json",  "parse", "http",  "worker"};

static void synth_init(struct synth *s, unsigned nr_threads)
{
	memset(s, 0, sizeof(*s));
	s->nr_threads = nr_threads;
	for (int i = 0; i < NR_SYMS; i++) {
		char name[96];

		snprintf(name, sizeof(name), "%s_%s_%s+0x%x", parts[rnd(24)], parts[rnd(24)],
			 parts[rnd(24)], rnd(0x400));
		s->syms[i] = xstrdup(name);
	}
	for (int i = 0; i < NR_STACKS; i++) {
		struct stack_def *st = &s->stacks[i];
		bool kernel = i < NR_STACKS / 2;

		st->nr = (uint16_t)(8 + rnd(kernel ? 12 : 30));
		for (int f = 0; f < st->nr; f++)
			st->ips[f] = (kernel ? 0xffffffff81000000ull : 0x55d0c0de0000ull) +
				     (uint64_t)rnd(NR_SYMS) * 64;
	}
	for (unsigned t = 0; t < nr_threads; t++) {
		s->th[t].profile = t % 10 == 0 ? 0 : (t % 10 < 8 ? 1 : 2);
		s->th[t].home_k = 1 + rnd(NR_STACKS / 2 - 8);
		s->th[t].home_u = 1 + NR_STACKS / 2 + rnd(NR_STACKS / 2 - 32);
		s->th[t].wchan = 1 + NR_PROCS + rnd(8);
		s->th[t].syscall = (int)(rnd(3) == 0 ? 202 : (rnd(2) ? 232 : 0));
	}
}

static void synth_free(struct synth *s)
{
	for (int i = 0; i < NR_SYMS; i++)
		free(s->syms[i]);
}

static void emit_string(struct synth *s, uint32_t id, const char *text, uint64_t t)
{
	union {
		struct tt_string rec;
		char buf[sizeof(struct tt_string) + TT_MAX_STRING_LEN];
	} u;
	size_t len = strlen(text);

	u.rec.hdr = (struct tt_event_header){TT_EV_STRING, TT_STRING_VERSION,
					     (uint32_t)(sizeof(u.rec) + len), t};
	u.rec.id = id;
	u.rec.len = (uint32_t)len;
	memcpy(u.rec.data, text, len);
	s->emit(s->ctx, &u.rec.hdr);
}

static uint32_t use_stack(struct synth *s, uint32_t id, uint64_t t)
{
	struct stack_def *st = &s->stacks[id - 1];
	union {
		struct tt_stack rec;
		char buf[sizeof(struct tt_stack) + 48 * 8];
	} u;

	if (!st->sent) {
		st->sent = true;
		memset(&u.rec, 0, sizeof(u.rec));
		u.rec.hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION,
						     (uint32_t)(sizeof(u.rec) + st->nr * 8u), t};
		u.rec.id = id;
		u.rec.pid = id <= NR_STACKS / 2 ? 0 : 1000;
		u.rec.nr = st->nr;
		u.rec.flags = id <= NR_STACKS / 2 ? TT_STACK_KERNEL : 0;
		memcpy(u.rec.ips, st->ips, st->nr * 8u);
		s->emit(s->ctx, &u.rec.hdr);
	}
	return id;
}

static void synth_start(struct synth *s, uint64_t t)
{
	static const char *const wchans[] = {"futex_wait_queue",  "do_epoll_wait", "pipe_read",
					     "hrtimer_nanosleep", "wait_woken",	   "do_select",
					     "sk_wait_data",	  "io_schedule"};
	struct tt_clock c = {{TT_EV_CLOCK, TT_CLOCK_VERSION, sizeof(c), t}};

	s->emit(s->ctx, &c.hdr);
	for (int p = 0; p < NR_PROCS; p++) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "/usr/bin/service-%d --config /etc/service-%d.conf", p,
			 p);
		emit_string(s, 1 + (uint32_t)p, cmd, t);
	}
	for (int w = 0; w < 8; w++)
		emit_string(s, 1 + NR_PROCS + (uint32_t)w, wchans[w], t);
	for (unsigned i = 0; i < s->nr_threads; i++) {
		struct tt_thread_info info = {0};

		info.hdr = (struct tt_event_header){TT_EV_THREAD_INFO, TT_THREAD_INFO_VERSION,
						    sizeof(info), t};
		info.pid = 1000 + i % NR_PROCS;
		info.tid = 1000 + i;
		info.start_time_ns = 5 * NSEC_PER_SEC + i;
		info.cmdline_id = 1 + i % NR_PROCS;
		snprintf(info.comm, sizeof(info.comm), "worker-%u", i % 10000);
		s->emit(s->ctx, &info.hdr);
	}
}

/* One sampling pass at time t; an interval mark every HZ ticks. */
static void synth_tick(struct synth *s, uint64_t t, uint64_t tick)
{
	struct tt_clock c = {{TT_EV_CLOCK, TT_CLOCK_VERSION, sizeof(c), t}};
	struct tt_tick tk = {.hdr = {TT_EV_TICK, TT_TICK_VERSION, sizeof(tk), t}};

	s->emit(s->ctx, &c.hdr);
	for (unsigned i = 0; i < s->nr_threads; i++) {
		struct tt_thread_sample x = {0};
		uint32_t r = rnd(100);
		int prof = s->th[i].profile;

		x.hdr = (struct tt_event_header){TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION,
						 sizeof(x), t};
		x.pid = 1000 + i % NR_PROCS;
		x.tid = 1000 + i;
		x.start_time_ns = 5 * NSEC_PER_SEC + i;
		x.cgroup_id = 4242 + i % NR_PROCS;
		x.weight_us = 1000000 / HZ;
		x.syscall_nr = TT_SYSCALL_NONE;
		if ((prof == 0 && r < 90) || (prof == 2 && r < 40) || (prof == 1 && r < 3)) {
			x.state = TT_ST_R;
			x.flags = TT_SAMPLE_USER_MODE;
			x.cpu = (uint16_t)rnd(8);
			s->th[i].cpu_ns += 1000000000ull / HZ - rnd(1000000);
			/* A few hot on-CPU stacks per thread, skewed to the first. */
			x.ustack_id = use_stack(
				s, s->th[i].home_u + 1 + (rnd(16) < 8 ? rnd(4) : rnd(24)), t);
		} else {
			x.state = prof == 2 && r < 50 ? TT_ST_D : TT_ST_S;
			x.cpu = (uint16_t)(i % 8);
			x.syscall_nr = s->th[i].syscall;
			x.flags = TT_SAMPLE_HAS_ARGS;
			x.syscall_args[0] = 0x7f0000001000ull + i * 64;
			x.syscall_args[1] = 128;
			x.wchan_id = s->th[i].wchan;
			x.kstack_id =
				use_stack(s, r < 95 ? s->th[i].home_k : 1 + rnd(NR_STACKS / 2), t);
			x.ustack_id = use_stack(s,
						r < 95 ? s->th[i].home_u
						       : 1 + NR_STACKS / 2 + rnd(NR_STACKS / 2),
						t);
		}
		x.cpu_time_ns = s->th[i].cpu_ns;
		snprintf(x.comm, sizeof(x.comm), "worker-%u", i % 10000);
		s->emit(s->ctx, &x.hdr);
		s->samples++;
	}
	tk.weight_us = 1000000 / HZ;
	tk.nr_threads = s->nr_threads;
	tk.duration_ns = 200000 + rnd(50000);
	s->emit(s->ctx, &tk.hdr);
	if ((tick + 1) % HZ == 0) {
		struct tt_interval iv = {
			.hdr = {TT_EV_INTERVAL, TT_INTERVAL_VERSION, sizeof(iv), t},
			.realtime_ns = 1700000000ull * NSEC_PER_SEC + t,
			.seq = (uint32_t)(tick / HZ),
		};

		s->emit(s->ctx, &iv.hdr);
	}
}

/* --- the same samples as xcapture CSV rows and as compressed NDJSON ---------- */

struct text_sizes {
	struct synth *s;
	uint64_t csv_bytes;
	char *json;
	size_t json_len, json_cap;
	uint64_t json_zstd_bytes;
	uint64_t json_chunk_start;
	ZSTD_CCtx *cctx;
	void *zbuf;
	size_t zcap;
};

static size_t render_stack(struct synth *s, uint32_t id, char *buf, size_t len, const char *sep)
{
	size_t o = 0;

	buf[0] = '\0';
	if (!id)
		return 0;
	for (int f = 0; f < s->stacks[id - 1].nr && o < len; f++) {
		uint64_t ip = s->stacks[id - 1].ips[f];
		unsigned sym = (unsigned)((ip & 0xffffff) / 64) % NR_SYMS;

		o += (size_t)snprintf(buf + o, len - o, "%s%s", f ? sep : "", s->syms[sym]);
	}
	return o < len ? o : len - 1;
}

static void flush_json(struct text_sizes *ts)
{
	size_t n = ZSTD_compressCCtx(ts->cctx, ts->zbuf, ts->zcap, ts->json, ts->json_len, 3);

	if (!ZSTD_isError(n))
		ts->json_zstd_bytes += n;
	ts->json_len = 0;
}

static void text_emit(void *ctx, const struct tt_event_header *ev)
{
	struct text_sizes *ts = ctx;
	const struct tt_thread_sample *x = (const void *)ev;
	char k[4096], u[4096], row[10000];
	int n;

	if (ev->type != TT_EV_THREAD_SAMPLE)
		return;
	render_stack(ts->s, x->kstack_id, k, sizeof(k), "->");
	render_stack(ts->s, x->ustack_id, u, sizeof(u), "->");
	/* xcapture v3 style: one row per sample, every field as text, stacks symbolized. */
	n = snprintf(row, sizeof(row),
		     "2026-11-29 10:00:00.%06llu,%u,%u,root,%s,%c,%s,0x%llx,0x%llx,0x%llx,%s,%s,%s,"
		     "%s,%llu\n",
		     (unsigned long long)(ev->time_ns / 1000 % 1000000), x->tid, x->pid, x->comm,
		     TT_STATE_LETTERS[x->state], x->syscall_nr >= 0 ? "futex" : "[running]",
		     (unsigned long long)x->syscall_args[0], (unsigned long long)x->syscall_args[1],
		     (unsigned long long)x->syscall_args[2], x->wchan_id ? "futex_wait_queue" : "0",
		     "/usr/bin/service", k, u, (unsigned long long)x->cpu_time_ns);
	ts->csv_bytes += (uint64_t)n;
	n = snprintf(row, sizeof(row),
		     "{\"t\":%llu,\"pid\":%u,\"tid\":%u,\"comm\":\"%s\",\"state\":\"%c\","
		     "\"syscall\":%d,\"args\":[%llu,%llu],\"wchan\":%u,\"cpu_ns\":%llu,"
		     "\"kstack\":\"%s\",\"ustack\":\"%s\"}\n",
		     (unsigned long long)ev->time_ns, x->pid, x->tid, x->comm,
		     TT_STATE_LETTERS[x->state], x->syscall_nr,
		     (unsigned long long)x->syscall_args[0], (unsigned long long)x->syscall_args[1],
		     x->wchan_id, (unsigned long long)x->cpu_time_ns, k, u);
	if (ev->time_ns >= ts->json_chunk_start + NSEC_PER_SEC && ts->json_len) {
		flush_json(ts);
		ts->json_chunk_start = ev->time_ns;
	}
	xgrow((void **)&ts->json, &ts->json_cap, ts->json_len + (size_t)n, 1);
	memcpy(ts->json + ts->json_len, row, (size_t)n);
	ts->json_len += (size_t)n;
}

/* --- recording and replay ----------------------------------------------------- */

static void rec_emit(void *ctx, const struct tt_event_header *ev)
{
	recorder__write(ctx, ev);
}

static int record(const char *path, unsigned threads, unsigned seconds, int level,
		  uint64_t chunk_ns, uint64_t *ret_samples, double *ret_secs)
{
	struct recorder_opts ro = {.path = path,
				   .force = true,
				   .source = "synthetic",
				   .hz = HZ,
				   .interval_s = 1,
				   .level = level,
				   .chunk_ns = chunk_ns};
	struct synth *s = xcalloc(1, sizeof(*s));
	struct recorder *r;
	char err[320];
	double t0 = cpu_s();

	r = recorder__new(&ro, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	synth_init(s, threads);
	s->emit = rec_emit;
	s->ctx = r;
	synth_start(s, T0);
	for (uint64_t k = 0; k < (uint64_t)seconds * HZ; k++)
		synth_tick(s, T0 + (k + 1) * (NSEC_PER_SEC / HZ), k);
	if (recorder__close(r) < 0)
		return -1;
	*ret_samples = s->samples;
	*ret_secs = cpu_s() - t0;
	synth_free(s);
	free(s);
	return 0;
}

struct player {
	struct model *m;
	uint64_t events;
	uint64_t last_interval_ns;
};

static void play_emit(void *ctx, const struct tt_event_header *ev)
{
	struct player *p = ctx;

	p->events++;
	if (ev->type == TT_EV_CLOCK) {
		model__advance(p->m, ev->time_ns);
	} else if (ev->type == TT_EV_INTERVAL) {
		model__end_interval(p->m, ev->time_ns);
		p->last_interval_ns = ev->time_ns;
	} else {
		model__ingest(p->m, ev);
	}
}

static void count_emit(void *ctx, const struct tt_event_header *ev)
{
	((struct player *)ctx)->events++;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Jumps to `jumps` random times of the recording at path, each from a fresh
 * model until the interval there is complete (what the TUI's jump does), and
 * prints the median and worst in CPU and in wall time.
 */
static int time_seeks(const char *path, int jumps)
{
	double *dict = xcalloc((size_t)jumps, sizeof(*dict)),
	       *cpu = xcalloc((size_t)jumps, sizeof(*cpu)),
	       *wall = xcalloc((size_t)jumps, sizeof(*wall));
	struct player p = {0};
	struct event_sink sink = {play_emit, &p};
	struct source *src;
	struct ttr_reader *rd;
	uint64_t first_ns, last_ns, seconds;
	size_t nr, snaps = 0, dicts = 0;
	double t0, w0, open_s;
	char err[384];
	int ret = -1;

	rd = ttr_reader__open(path, err, sizeof(err));
	if (!rd || !(nr = ttr_reader__nr_chunks(rd))) {
		if (rd)
			fprintf(stderr, "%s: no chunks\n", path);
		else
			fprintf(stderr, "%s\n", err);
		ttr_reader__free(rd);
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		snaps += ttr_reader__chunk(rd, i)->kind == TTR_KIND_SNAPSHOT;
		dicts += ttr_reader__chunk(rd, i)->kind == TTR_KIND_EVENTS &&
			 (ttr_reader__chunk(rd, i)->flags & TTR_FLAG_DICT);
	}
	first_ns = ttr_reader__chunk(rd, 0)->first_ns;
	last_ns = ttr_reader__chunk(rd, nr - 1)->last_ns;
	ttr_reader__free(rd);
	seconds = (last_ns - first_ns) / NSEC_PER_SEC;
	if (seconds < 4) {
		fprintf(stderr, "%s: too short to seek in\n", path);
		goto out;
	}
	w0 = now_s();
	src = replay_source__new(path, sink, err, sizeof(err));
	open_s = now_s() - w0;
	if (!src) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	for (int i = 0; i < jumps; i++) {
		/* Whole seconds from 2 s in to 1 s before the end. */
		uint64_t target =
			first_ns + (2 + (uint64_t)rnd((uint32_t)seconds - 3)) * NSEC_PER_SEC;

		t0 = cpu_s();
		w0 = now_s();
		model__free(p.m);
		p.m = model__new(NULL);
		p.last_interval_ns = 0;
		if (replay_source__seek(src, target - 2 * NSEC_PER_SEC) < 0) {
			fprintf(stderr, "seek failed: %s\n", src->error);
			source__free(src);
			goto out;
		}
		dict[i] = cpu_s() - t0;
		while (p.last_interval_ns < target && src->ops->ready(src) == 0)
			;
		cpu[i] = cpu_s() - t0;
		wall[i] = now_s() - w0;
	}
	qsort(dict, (size_t)jumps, sizeof(dict[0]), cmp_double);
	qsort(cpu, (size_t)jumps, sizeof(cpu[0]), cmp_double);
	qsort(wall, (size_t)jumps, sizeof(wall[0]), cmp_double);
	printf("seek in %llu s (%.1f MB, %zu chunks: %zu snapshots, %zu with dictionary "
	       "records): open (index) %.1f ms; jump to a random time, fresh model, interval "
	       "complete (%d jumps): CPU median %.1f ms (dictionaries %.1f), max %.1f ms; "
	       "wall median %.1f ms, max %.1f ms\n",
	       (unsigned long long)seconds, (double)file_size(path) / 1e6, nr, snaps, dicts,
	       open_s * 1e3, jumps, cpu[jumps / 2] * 1e3, dict[jumps / 2] * 1e3,
	       cpu[jumps - 1] * 1e3, wall[jumps / 2] * 1e3, wall[jumps - 1] * 1e3);
	source__free(src);
	ret = 0;
out:
	model__free(p.m);
	free(dict);
	free(cpu);
	free(wall);
	return ret;
}

static int write_seeds(const char *dir)
{
	char path[4096];
	uint64_t samples;
	double secs;

	snprintf(path, sizeof(path), "%s/zstd", dir);
	if (record(path, 3, 2, 0, NSEC_PER_SEC / 2, &samples, &secs) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/stored", dir);
	if (record(path, 2, 1, -1, NSEC_PER_SEC / 4, &samples, &secs) < 0)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	unsigned seconds = argc > 2 ? (unsigned)atoi(argv[2]) : 3600;
	unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 200;
	char path[4096], err[384];
	struct text_sizes ts = {0};
	struct synth *s;
	uint64_t samples, size;
	double secs, t0, t;

	if (argc > 2 && !strcmp(argv[1], "--seeds"))
		return write_seeds(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "--seek")) {
		int jumps = argc > 3 ? atoi(argv[3]) : 25;

		return time_seeks(argv[2], jumps > 0 ? jumps : 25) ? 1 : 0;
	}
	if (threads < 1 || threads > 1024 || seconds < 60) {
		fprintf(stderr, "usage: bench_record [DIR [SECONDS>=60 [THREADS<=1024]]]\n");
		return 2;
	}

	/* 1. Size: one minute of the session. */
	snprintf(path, sizeof(path), "%s/bench_record_1min.ttr", dir);
	if (record(path, threads, 60, 0, 0, &samples, &secs) < 0)
		return 1;
	size = file_size(path);
	s = xcalloc(1, sizeof(*s));
	rng = 88172645463325252ull;
	synth_init(s, threads);
	ts.s = s;
	ts.cctx = ZSTD_createCCtx();
	ts.zcap = ZSTD_compressBound(64 << 20);
	ts.zbuf = xmalloc(ts.zcap);
	s->emit = text_emit;
	s->ctx = &ts;
	synth_start(s, T0);
	for (uint64_t k = 0; k < 60 * HZ; k++)
		synth_tick(s, T0 + (k + 1) * (NSEC_PER_SEC / HZ), k);
	if (ts.json_len)
		flush_json(&ts);
	printf("session: %u threads sampled at %d Hz for 60 s, stacks from a pool of %d\n", threads,
	       HZ, NR_STACKS);
	printf("  .ttr file:              %8.2f bytes/thread-sample (%llu bytes, %llu samples)\n",
	       (double)size / (double)samples, (unsigned long long)size,
	       (unsigned long long)samples);
	printf("  xcapture-style CSV:     %8.1f bytes/thread-sample\n",
	       (double)ts.csv_bytes / (double)samples);
	printf("  NDJSON, zstd -3 per 1s: %8.2f bytes/thread-sample\n",
	       (double)ts.json_zstd_bytes / (double)samples);
	printf("  recording cost:         %8.2f us CPU/thread-sample (encode, compress, write)\n",
	       secs * 1e6 / (double)samples);
	ZSTD_freeCCtx(ts.cctx);
	free(ts.zbuf);
	free(ts.json);
	synth_free(s);
	free(s);

	/* 2. Replay ingest: decode + model, one core. */
	{
		struct player p = {.m = model__new(NULL)};
		struct event_sink sink = {play_emit, &p};
		struct source *src = replay_source__new(path, sink, err, sizeof(err));
		int n;

		if (!src) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		t0 = cpu_s();
		while ((n = src->ops->ready(src)) == 0)
			;
		t = cpu_s() - t0;
		if (n != SOURCE_EOF) {
			fprintf(stderr, "replay failed: %s\n", src->error);
			return 1;
		}
		printf("replay ingest: %.2f M records/s, decode + model (%llu records, %.3f s CPU)\n",
		       (double)p.events / t / 1e6, (unsigned long long)p.events, t);
		source__free(src);
		model__free(p.m);
		p.m = NULL;
		p.events = 0;
		sink.emit = count_emit;
		src = replay_source__new(path, sink, err, sizeof(err));
		t0 = cpu_s();
		while (src && src->ops->ready(src) == 0)
			;
		t = cpu_s() - t0;
		printf("replay decode: %.2f M records/s, read + CRC + zstd + decode (%.3f s CPU)\n",
		       (double)p.events / t / 1e6, t);
		source__free(src);
	}

	/* 3. Seeking in a long recording. */
	snprintf(path, sizeof(path), "%s/bench_record_long.ttr", dir);
	if (record(path, threads, seconds, 0, 0, &samples, &secs) < 0)
		return 1;
	printf("long recording: %u s, %.1f MB, written in %.1f s CPU\n", seconds,
	       (double)file_size(path) / 1e6, secs);
	return time_seeks(path, 25) ? 1 : 0;
}
