// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: argv[1] threads (default 2) burn CPU for argv[2] seconds
 * (default 30) at the bottom of a recursion argv[3] frames deep (default
 * 100, at most 1000): every on-CPU sample of them is a deep stack, costly to
 * unwind (--unwind dwarf), so a reader of their samples has real work per
 * sample.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long depth = 100;
static double deadline;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long spin_at(long level, unsigned long n)
{
	volatile unsigned long slot = n; /* a frame of its own on the stack */

	if (level < depth) {
		n = spin_at(level + 1, slot) + 1;
		__asm__ volatile("" ::: "memory"); /* no tail call: keep this frame */
		return n;
	}
	while (now_s() < deadline)
		for (unsigned long i = 0; i < 1000000; i++)
			slot = slot * 6364136223846793005ul + 1442695040888963407ul;
	return slot;
}

static void *spin(void *arg)
{
	(void)arg;
	return (void *)spin_at(0, 1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2;
	double secs = argc > 2 ? atof(argv[2]) : 30;
	pthread_t *t;

	if (argc > 3)
		depth = atol(argv[3]);
	if (n < 1 || n > 1024 || depth < 0 || depth > 1000) {
		fprintf(stderr, "usage: deep_spinners [THREADS [SECONDS [DEPTH]]]\n");
		return 2;
	}
	deadline = now_s() + secs;
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
