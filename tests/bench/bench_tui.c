// SPDX-License-Identifier: GPL-2.0-only
/*
 * TUI frame benchmark (prints figures; not a timed test): a model holding
 * 10,000 threads and 50,000 unique stacks (one interval of 20 Hz samples),
 * then building and drawing frames of each pane into a headless virtual
 * terminal (curses on /dev/null), the same code path as the live screen.
 * Each thread cycles through PER activities (state, syscall, kernel and user
 * stack) per interval: 10,000 threads x 5 = 50,000 distinct stack pairs.
 * Usage: bench_tui [THREADS] [STACKS] [PER] [COLSxROWS] [REPS (21)] [PANE]
 * PANE (a name as printed, e.g. "Hot (f)") measures that pane alone, the
 * panes before it switched to but not measured: for perf and callgrind.
 * With -i as the first argument it opens the real terminal instead, on the
 * same synthetic model, to look at (or test) the panes with stacks.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hotfuncs.h"
#include "keys.h"
#include "profile.h"
#include "tui_internal.h"
#include "screen.h"
#include "synth.h"
#include "model.h"
#include "util.h"
#include "tui.h"

#define HZ 20

static struct model *synth(uint32_t threads, uint32_t stacks, uint32_t per)
{
	struct model *m = model__new(NULL);
	uint64_t base = 1000 * NSEC_PER_SEC;
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), 0},
		.weight_us = 1000000 / HZ,
	};
	static const int syscalls[] = {-1, 0, 1, 7, 232, 202, 230, 281, 23, 61};
	static const uint8_t states[] = {TT_ST_R, TT_ST_S, TT_ST_S, TT_ST_S, TT_ST_D, TT_ST_Q};
	char text[64];

	model__advance(m, base);
	for (uint32_t i = 1; i <= 64; i++) {
		snprintf(text, sizeof(text), "wait_function_%u", i);
		synth_string(m, i, text, base);
	}
	for (uint32_t i = 1; i <= stacks; i++)
		synth_stack(m, i, i % 2 == 1, base);
	for (int tick = 0; tick < HZ; tick++) {
		uint64_t t = base + (uint64_t)tick * NSEC_PER_SEC / HZ;

		for (uint32_t k = 0; k < threads; k++) {
			/* Thread k cycles through `per` activities, each with its own stacks. */
			uint32_t j = (uint32_t)tick % per, a = k * per + j;

			s.hdr.time_ns = t;
			s.pid = 1000 + k / 10;
			s.tid = 1000 + k;
			s.start_time_ns = k + 1;
			s.cpu_time_ns = t / 8 + k;
			s.state = states[(k + j) % sizeof(states)];
			s.syscall_nr = s.state == TT_ST_R ? -1 : syscalls[(k * 7 + j) % 10];
			s.wchan_id = s.state == TT_ST_R ? 0 : 1 + (k + j) % 64;
			/* Odd ids are kernel stacks, even ids user stacks: all are used. */
			s.kstack_id = 1 + (2 * a) % stacks;
			s.ustack_id = 1 + (2 * a + 1) % stacks;
			snprintf(s.comm, sizeof(s.comm), "worker-%u", k % 97);
			model__ingest(m, &s.hdr);
		}
	}
	/* Exact syscall figures (--syscalls) of every tenth thread. */
	for (uint32_t k = 0; k < threads; k += 10) {
		struct tt_syscall_stats sc = {
			.hdr = {TT_EV_SYSCALL_STATS, TT_SYSCALL_STATS_VERSION, sizeof(sc),
				base + NSEC_PER_SEC - 1},
			.pid = 1000 + k / 10,
			.tid = 1000 + k,
		};

		for (int j = 0; j < 3; j++) {
			sc.nr = syscalls[1 + (k / 10 + (uint32_t)j) % 9];
			memset(sc.hist, 0, sizeof(sc.hist));
			sc.count = 0;
			sc.total_ns = 0;
			for (int b = 9 + j * 3; b < 16 + j * 4; b++) {
				sc.hist[b] = 1 + (uint32_t)(synth_rnd() % 50);
				sc.count += sc.hist[b];
				sc.total_ns += sc.hist[b] * (3ull << b) / 2;
			}
			model__ingest(m, &sc.hdr);
		}
	}
	/*
	 * Block I/O requests (--io) of every thread, reads on one of four
	 * devices and writes on another: past the model's 4096 entries, the
	 * "(other)" rows. The I/O pane's figures, per device and per thread.
	 */
	for (uint32_t k = 0; k < threads; k++) {
		struct tt_io_stats io = {
			.hdr = {TT_EV_IO_STATS, TT_IO_STATS_VERSION, sizeof(io),
				base + NSEC_PER_SEC - 1},
			.pid = 1000 + k / 10,
			.tid = 1000 + k,
			.major = 259,
		};

		snprintf(io.comm, sizeof(io.comm), "worker-%u", k % 97);
		for (uint32_t op = TT_IO_READ; op <= TT_IO_WRITE; op++) {
			io.minor = (k + op) % 4;
			io.op = op;
			snprintf(io.disk, sizeof(io.disk), "nvme0n%u", io.minor + 1);
			memset(io.hist, 0, sizeof(io.hist));
			io.count = io.total_ns = 0;
			for (int b = 12 + (int)op * 4; b < 18 + (int)op * 4; b++) {
				io.hist[b] = 1 + (uint32_t)(synth_rnd() % 20);
				io.count += io.hist[b];
				io.total_ns += io.hist[b] * (3ull << b) / 2;
			}
			io.bytes = io.count * 4096;
			model__ingest(m, &io.hdr);
		}
	}
	/* One process record per 10 threads: a tree three wide (the process view, F5). */
	synth_string(m, 65, "worker", base);
	for (uint32_t p = 0; p < (threads + 9) / 10; p++) {
		struct tt_proc_info pi = {
			.hdr = {TT_EV_PROC_INFO, TT_PROC_INFO_VERSION, sizeof(pi),
				base + NSEC_PER_SEC - 1},
			.pid = 1000 + p,
			.ppid = p ? 1000 + (p - 1) / 3 : 1,
			.uid = 1000,
			.user_id = 65,
			.rss_bytes = (uint64_t)(p + 1) << 20,
			.cpu_time_ns = (uint64_t)p * NSEC_PER_SEC,
			.nr_threads = 10,
		};

		model__ingest(m, &pi.hdr);
	}
	model__end_interval(m, base + NSEC_PER_SEC);
	return m;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

struct timing {
	double wall[64], cpu[64];
};

static void sample(struct timing *tm, int i, uint64_t t0, uint64_t c0)
{
	tm->wall[i] = (double)(monotonic_ns() - t0) / 1e6;
	tm->cpu[i] = (double)(cpu_ns() - c0) / 1e6;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

/*
 * Wall and CPU time (what a loaded box cannot inflate) of reps refreshes
 * (query, sort or tree, draw: what each new interval costs, the TUI told
 * the data changed as when an interval closes), of reps frames of the same
 * data (a key that requeries within an interval: the TUI's cache answers)
 * and of reps key presses that only redraw (moving the selection).
 */
static const char *only_pane; /* NULL: every pane */

static void bench_pane(struct tui *t, const char *name, int key, int reps)
{
	struct timing refresh, same, redraw;

	if (key)
		tui__key(t, key);
	if (only_pane && strcmp(only_pane, name))
		return;
	for (int i = 0; i < reps; i++) {
		uint64_t t0 = monotonic_ns(), c0 = cpu_ns();

		tui__data_changed(t);
		tui__frame(t);
		sample(&refresh, i, t0, c0);
	}
	for (int i = 0; i < reps; i++) {
		uint64_t t0 = monotonic_ns(), c0 = cpu_ns();

		tui__frame(t);
		sample(&same, i, t0, c0);
	}
	for (int i = 0; i < reps; i++) {
		uint64_t t0 = monotonic_ns(), c0 = cpu_ns();

		tui__key(t, i % 2 ? UK_UP : UK_DOWN);
		sample(&redraw, i, t0, c0);
	}
	printf("  %-9s refresh %7.2f ms (CPU %6.2f ms)   key redraw %6.2f ms (CPU %5.2f ms)   "
	       "same data %6.2f ms (CPU %5.2f ms)\n",
	       name, median(refresh.wall, reps), median(refresh.cpu, reps),
	       median(redraw.wall, reps), median(redraw.cpu, reps), median(same.wall, reps),
	       median(same.cpu, reps));
}

/* The model query alone, for comparison: the part of a refresh the UI does not own. */
static void bench_query(struct model *m, int reps)
{
	struct timing q;

	for (int i = 0; i < reps; i++) {
		uint64_t t0 = monotonic_ns(), c0 = cpu_ns();
		struct model_query mq;
		struct model_result res;

		model_query_init(&mq);
		mq.window = WIN_LAST;
		model__query(m, &mq, &res);
		model_result__release(&res);
		sample(&q, i, t0, c0);
	}
	printf("  (model__query per thread alone: %.2f ms, CPU %.2f ms)\n", median(q.wall, reps),
	       median(q.cpu, reps));
}

/*
 * A cold set of hot functions (batch JSON's every interval, the JSON report:
 * made once over a profile, nothing kept): the session profile of the
 * threads' samples, as json_hot_functions makes it without the CPU sampler.
 */
static void bench_hot_cold(struct model *m, int reps)
{
	struct profile_opts po = {.window = WIN_SESSION};
	struct profile *p = profile__build(m, &po);
	struct timing cold;
	size_t nr = 0;

	for (int i = 0; i < reps; i++) {
		uint64_t t0 = monotonic_ns(), c0 = cpu_ns();
		struct hotfuncs *h = hotfuncs__from_profile(m, p, PROFILE_THREADS, 0);

		nr = h->nr;
		hotfuncs__free(h);
		sample(&cold, i, t0, c0);
	}
	printf("  (hot functions cold, from the profile: %.2f ms, CPU %.2f ms; %zu samples, "
	       "%zu functions)\n",
	       median(cold.wall, reps), median(cold.cpu, reps), p->nr_samples, nr);
	profile__free(p);
}

static int interactive(struct model *m)
{
	struct tui *t;

	if (screen_open(NULL) < 0) {
		fprintf(stderr, "bench_tui: cannot open the terminal\n");
		return 1;
	}
	t = tui__new(m, "bpf", HZ, 1.0);
	tui__frame(t);
	for (;;) {
		int key = screen_key();

		if (key == UK_NONE) {
			usleep(10000);
			continue;
		}
		if (!tui__key(t, key))
			break;
	}
	tui__free(t);
	screen_close();
	return 0;
}

int main(int argc, char **argv)
{
	bool inter = argc > 1 && !strcmp(argv[1], "-i");
	int a = inter ? 2 : 1;
	uint32_t threads = argc > a ? (uint32_t)atoi(argv[a]) : 10000;
	uint32_t stacks = argc > a + 1 ? (uint32_t)atoi(argv[a + 1]) : 50000;
	uint32_t per = argc > a + 2 ? (uint32_t)atoi(argv[a + 2]) : 5;
	int cols = 200, rows = 50, reps = 21;
	struct screen_opts so = {.headless = true};
	struct model *m;
	struct tui *t;
	uint64_t t0;

	if (argc > a + 3)
		sscanf(argv[a + 3], "%dx%d", &cols, &rows);
	/* Fewer for a run under valgrind (counts that a loaded box cannot blur), at most 64. */
	if (argc > a + 4)
		reps = atoi(argv[a + 4]);
	reps = reps < 1 ? 1 : reps > 64 ? 64 : reps;
	if (argc > a + 5)
		only_pane = argv[a + 5];
	if (!per || per > HZ)
		per = 5;
	setlocale(LC_ALL, "C.UTF-8");
	t0 = monotonic_ns();
	m = synth(threads, stacks, per);
	if (inter) {
		int r = interactive(m);

		model__free(m);
		return r;
	}
	printf("bench_tui: %u threads, %u unique stacks, %u activities per thread, %dx%d "
	       "virtual terminal\n",
	       threads, stacks, per, cols, rows);
	printf("  model filled in %.0f ms\n", (double)(monotonic_ns() - t0) / 1e6);
	so.cols = cols;
	so.rows = rows;
	if (screen_open(&so) < 0) {
		fprintf(stderr, "bench_tui: cannot open a virtual terminal\n");
		return 1;
	}
	t = tui__new(m, "bpf", HZ, 1.0);
	bench_pane(t, "Threads", 0, reps);
	t->view.cols_on[0] = ~0u; /* every column F2 offers: USER, NI, RES, TIME+, COMMAND too */
	bench_pane(t, "Threads+", 0, reps);
	bench_pane(t, "Procs", 'H', reps);
	bench_pane(t, "Tree", UK_F5, reps);
	tui__key(t, 'H'); /* back to threads */
	bench_pane(t, "Group", '2', reps);
	bench_pane(t, "Syscalls", '3', reps);
	bench_pane(t, "Stacks", '4', reps);
	tui__key(t, 'E'); /* everything expanded */
	bench_pane(t, "Stacks E", 0, reps);
	bench_pane(t, "Hot (f)", 'f', reps);	  /* the hot functions of the same stacks */
	bench_pane(t, "I/O", '9', reps);	  /* per device */
	bench_pane(t, "I/O dev", UK_ENTER, reps); /* the threads of the first device */
	tui__free(t);
	screen_close();
	if (!only_pane) {
		bench_query(m, reps);
		bench_hot_cold(m, reps < 9 ? reps : 9);
	}
	model__free(m);
	return 0;
}
