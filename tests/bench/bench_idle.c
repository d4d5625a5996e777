// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model's work for a box of idle threads (prints figures; not a timed
 * test): what threadtop's user space spends a second beside N threads that
 * never change, the case of issue 23's 100,000 idle threads, without the
 * BPF side or the screen. Each thread has one full sample; then each
 * simulated second has 20 passes of repeat records in the kernel's blocks
 * (TT_REPEAT_BLOCK tids, the same list every pass) and a tick each; at the
 * first pass of each new second (as live) the interval's end, and what the
 * TUI asks for once a second: the Threads pane's rows (its query, every
 * thread, unsorted; the header's totals come from them, and its threads
 * alive now from the same walk).
 * Prints the CPU time of each part per second; for instruction counts,
 * which a loaded box does not blur, run it under valgrind --tool=callgrind.
 * Usage: bench_idle [THREADS (100000)] [SECONDS (10)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"
#include "util.h"

#define HZ 20

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void full_samples(struct model *m, uint32_t threads, uint64_t t)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.weight_us = 1000000 / HZ,
		.syscall_nr = 202, /* futex: an idle thread's usual wait */
		.state = TT_ST_S,
		.comm = "idle",
	};

	for (uint32_t i = 0; i < threads; i++) {
		s.pid = 1000 + i / 100;
		s.tid = 1000 + i;
		s.start_time_ns = i + 1;
		s.cpu_time_ns = 1000;
		model__ingest(m, &s.hdr);
	}
}

/* One pass: every thread repeated, block by block, then the pass's tick. */
static void pass(struct model *m, struct tt_thread_repeat *r, uint32_t threads, uint64_t t)
{
	struct tt_tick tick = {
		.hdr = {TT_EV_TICK, TT_TICK_VERSION, sizeof(tick), t},
		.weight_us = 1000000 / HZ,
		.nr_threads = threads,
		.asked_us = 1000000 / HZ,
		.target_us = 1000000 / HZ,
	};

	for (uint32_t first = 0; first < threads; first += TT_REPEAT_BLOCK) {
		uint32_t nr = threads - first < TT_REPEAT_BLOCK ? threads - first : TT_REPEAT_BLOCK;

		r->hdr = (struct tt_event_header){TT_EV_THREAD_REPEAT, TT_THREAD_REPEAT_VERSION,
						  (uint16_t)(sizeof(*r) + nr * sizeof(r->tids[0])),
						  t};
		r->nr = nr;
		r->block = first / TT_REPEAT_BLOCK;
		for (uint32_t i = 0; i < nr; i++)
			r->tids[i] = 1000 + first + i;
		model__ingest(m, &r->hdr);
	}
	model__ingest(m, &tick.hdr);
}

int main(int argc, char **argv)
{
	uint32_t threads = argc > 1 ? (uint32_t)atoi(argv[1]) : 100000;
	int seconds = argc > 2 ? atoi(argv[2]) : 10;
	uint64_t base = 1000 * NSEC_PER_SEC, ingest = 0, end = 0, query = 0, c;
	struct tt_thread_repeat *r = xmalloc(sizeof(*r) + TT_REPEAT_BLOCK * sizeof(r->tids[0]));
	struct model *m = model__new(NULL);
	struct model_result rows = {0};
	struct model_query q;
	struct model_now now;

	model_query_init(&q);
	q.window = WIN_LAST; /* as the TUI: the last complete interval, */
	q.sort = SORT_NONE;  /* whose first screens it sorts itself (rows_sort_first) */
	model__advance(m, base);
	full_samples(m, threads, base);
	model__end_interval(m, base + NSEC_PER_SEC / HZ);
	/*
	 * As live, an interval ends at the first pass of a new second: its
	 * records come in (the second changed), then the interval ends.
	 */
	for (int sec = 1; sec <= seconds + 1; sec++) {
		uint64_t start = base + (uint64_t)sec * NSEC_PER_SEC;

		for (int p = 0; p < HZ; p++) {
			uint64_t t = start + (uint64_t)p * (NSEC_PER_SEC / HZ);

			c = cpu_ns();
			model__advance(m, t);
			pass(m, r, threads, t);
			ingest += cpu_ns() - c;
			if (p || sec == 1)
				continue;
			c = cpu_ns();
			model__end_interval(m, t);
			end += cpu_ns() - c;
			/* The TUI counts the threads alive now in its query's walk. */
			c = cpu_ns();
			if (model__query_into_now(m, &q, &rows, &now) < 0)
				return 1;
			query += cpu_ns() - c;
			if (sec == seconds + 1)
				break;
		}
	}
	printf("%u idle threads, %d s: CPU ms a second: passes %.2f, interval end %.2f, "
	       "Threads query with threads alive now %.2f (%zu rows); all %.2f (%.2f%% of a core)\n",
	       threads, seconds, (double)ingest / seconds / 1e6, (double)end / seconds / 1e6,
	       (double)query / seconds / 1e6, rows.nr,
	       (double)(ingest + end + query) / seconds / 1e6,
	       (double)(ingest + end + query) / seconds / 1e7);
	model_result__release(&rows);
	model__free(m);
	free(r);
	return 0;
}
