// SPDX-License-Identifier: GPL-2.0-only
/*
 * Model benchmark (prints figures; not a timed test): ingest rate of
 * synthetic thread samples, the time of one per-thread query and one
 * group-by query over 10,000 threads, and the process's memory at the end.
 * Usage: bench_model [THREADS] [SECONDS] [STACKS] [HZ] [CHURN]
 * STACKS > 0 adds that many unique stacks (half kernel, half user) that the
 * samples use in turn; HZ (default 20, may be below 1) is the simulated
 * sampling rate: an hour with 100,000 stacks at 0.1 Hz gives the memory a
 * long session holds without the hour of CPU time a 20 Hz run would take.
 * CHURN (default 0) threads a second exit and are replaced by new ones
 * (new tids, one new process per ten): a churning box, whose memory must
 * stay flat; the RSS is printed at simulated minute 5 and at the end, with
 * what the model's accounting (model__mem) says each structure holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "synth.h"
#include "model.h"
#include "util.h"

static void fill(struct tt_thread_sample *s, uint32_t i, uint32_t tid, uint64_t t)
{
	s->hdr.time_ns = t;
	s->pid = 1000 + tid / 10;
	s->tid = 1000 + tid;
	s->start_time_ns = tid + 1;
	tid = i; /* what follows depends on the slot, not the thread in it */
	s->cpu_time_ns = t / 4;
	s->syscall_nr = (int)(tid % 7) * 3 - 1;
	s->state = (uint8_t)(tid % 5 == 0 ? TT_ST_R : TT_ST_S);
	s->wchan_id = tid % 13;
	snprintf(s->comm, sizeof(s->comm), "worker-%u", tid % 50);
}

/* This process's CPU time: on a shared machine, steadier than wall time. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* A line of /proc/self/status (VmRSS, VmHWM) in MB. */
static double status_mb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			kb = atof(line + strlen(key) + 1);
	fclose(f);
	return kb / 1024;
}

/* The model's own accounting (model_mem.c): which structure holds the RSS. */
static void print_mem(const struct model *m)
{
	struct model_mem mm;

	model__mem(m, &mm);
	printf("model holds: %zu threads (%zu exited) %zu keys %.1f MB; %zu stacks %.1f MB "
	       "(%llu aged); %zu strings %.1f MB; %zu procs\n",
	       mm.threads, mm.exited, mm.keys, (double)mm.thread_bytes / 1e6, mm.stacks,
	       (double)mm.stack_bytes / 1e6, (unsigned long long)mm.stacks_aged, mm.strings,
	       (double)mm.string_bytes / 1e6, mm.procs);
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
	uint32_t stacks = argc > 3 ? (uint32_t)atoi(argv[3]) : 0;
	double hz = argc > 4 ? atof(argv[4]) : 20;
	uint32_t churn = argc > 5 ? (uint32_t)atoi(argv[5]) : 0;
	uint32_t *tid_of, next_tid, cursor = 0;
	double rss5 = 0;
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), 0},
	};
	struct model *m = model__new(NULL);
	uint64_t base = 1000 * NSEC_PER_SEC, events = 0, t0, ns, step, last_end = base;
	long ticks;
	struct model_query q;
	size_t rows = 0;
	double ms;

	if (hz <= 0 || hz > 1000)
		hz = 20;
	step = (uint64_t)((double)NSEC_PER_SEC / hz);
	ticks = (long)((double)seconds * hz);
	s.weight_us = (uint32_t)(step / 1000);
	model__advance(m, base);
	for (uint32_t i = 1; i <= stacks; i++)
		synth_stack(m, i, i % 2 == 1, base);
	tid_of = calloc(threads ? threads : 1, sizeof(*tid_of));
	for (uint32_t i = 0; i < threads; i++)
		tid_of[i] = i;
	next_tid = threads;
	t0 = cpu_ns();
	/* Every thread every tick, `seconds` of simulated time. */
	for (long tick = 0; tick < ticks; tick++) {
		uint64_t t = base + (uint64_t)tick * step;

		for (uint32_t i = 0; i < threads; i++) {
			fill(&s, i, tid_of[i], t);
			if (stacks) { /* thread i cycles through 5 stack pairs */
				uint32_t a = i * 5 + (uint32_t)(tick % 5);

				s.kstack_id = 1 + (2 * a) % stacks;
				s.ustack_id = 1 + (2 * a + 1) % stacks;
			}
			model__ingest(m, &s.hdr);
			events++;
		}
		if (t + step - last_end >= NSEC_PER_SEC) {
			/* CHURN a second: an interval below 1 Hz spans several seconds. */
			uint64_t secs = (t - last_end + NSEC_PER_SEC / 2) / NSEC_PER_SEC;

			model__end_interval(m, t);
			last_end = t;
			for (uint64_t k = 0; k < churn * secs && threads; k++)
				tid_of[cursor++ % threads] = next_tid++;
			if (!rss5 && t - base >= 300 * NSEC_PER_SEC)
				rss5 = status_mb("VmRSS:");
		}
	}
	ns = cpu_ns() - t0;
	model__advance(m, base + (uint64_t)seconds * NSEC_PER_SEC);
	printf("model ingest: %llu events in %.3f s CPU = %.2f M events/s (%u threads, %d s at %g Hz)\n",
	       (unsigned long long)events, (double)ns / 1e9, (double)events / ((double)ns / 1e3),
	       threads, seconds, hz);
	printf("model memory: %u threads, %u stacks, %d s simulated: RSS %.1f MB, peak %.1f MB\n",
	       threads, stacks, seconds, status_mb("VmRSS:"), status_mb("VmHWM:"));
	print_mem(m);
	if (churn)
		printf("model churn: %u threads a second replaced (%u threads made): RSS at minute "
		       "5 %.1f MB, at the end %.1f MB (%.2fx)\n",
		       churn, next_tid, rss5, status_mb("VmRSS:"),
		       rss5 > 0 ? status_mb("VmRSS:") / rss5 : 0);
	free(tid_of);

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
