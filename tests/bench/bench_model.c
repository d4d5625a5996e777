// SPDX-License-Identifier: GPL-2.0-only
/*
 * Model benchmark (prints figures; not a timed test): ingest rate of
 * synthetic thread samples, and the time of one per-thread query and one
 * group-by query over 10,000 threads. Usage: bench_model [THREADS] [SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threadtop/model.h"
#include "threadtop/util.h"

static void fill(struct tt_thread_sample *s, uint32_t tid, uint64_t t)
{
	s->hdr.time_ns = t;
	s->pid = 1000 + tid / 10;
	s->tid = 1000 + tid;
	s->start_time_ns = tid + 1;
	s->cpu_time_ns = t / 4;
	s->syscall_nr = (int)(tid % 7) * 3 - 1;
	s->state = (uint8_t)(tid % 5 == 0 ? TT_ST_R : TT_ST_S);
	s->wchan_id = tid % 13;
	snprintf(s->comm, sizeof(s->comm), "worker-%u", tid % 50);
}

static double time_query(struct model *m, struct model_query *q, int reps, size_t *rows)
{
	uint64_t t0 = monotonic_ns();

	for (int i = 0; i < reps; i++) {
		struct model_result res;

		model__query(m, q, &res);
		*rows = res.nr;
		model_result__release(&res);
	}
	return (double)(monotonic_ns() - t0) / reps / 1e6;
}

int main(int argc, char **argv)
{
	uint32_t threads = argc > 1 ? (uint32_t)atoi(argv[1]) : 10000;
	int seconds = argc > 2 ? atoi(argv[2]) : 20;
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), 0},
		.weight_us = 50000,
	};
	struct model *m = model__new(NULL);
	uint64_t base = 1000 * NSEC_PER_SEC, events = 0, t0, ns;
	struct model_query q;
	size_t rows = 0;
	double ms;

	model__advance(m, base);
	t0 = monotonic_ns();
	/* 20 Hz for `seconds` of simulated time, every thread every tick. */
	for (int tick = 0; tick < seconds * 20; tick++) {
		uint64_t t = base + (uint64_t)tick * NSEC_PER_SEC / 20;

		for (uint32_t i = 0; i < threads; i++) {
			fill(&s, i, t);
			model__ingest(m, &s.hdr);
			events++;
		}
		if (tick % 20 == 19)
			model__end_interval(m, t);
	}
	ns = monotonic_ns() - t0;
	model__advance(m, base + (uint64_t)seconds * NSEC_PER_SEC);
	printf("model ingest: %llu events in %.3f s = %.2f M events/s (%u threads, %d s at 20 Hz)\n",
	       (unsigned long long)events, (double)ns / 1e9, (double)events / ((double)ns / 1e3),
	       threads, seconds);

	model_query_init(&q);
	q.window = WIN_MINUTE;
	ms = time_query(m, &q, 20, &rows);
	printf("query per thread, minute window: %.3f ms (%zu rows)\n", ms, rows);
	q.window = WIN_SESSION;
	ms = time_query(m, &q, 20, &rows);
	printf("query per thread, session window: %.3f ms (%zu rows)\n", ms, rows);
	q.dims = DIM_BIT(DIM_STATE) | DIM_BIT(DIM_SYSCALL);
	ms = time_query(m, &q, 20, &rows);
	printf("query group by state+syscall, session: %.3f ms (%zu rows)\n", ms, rows);
	model__free(m);
	return 0;
}
