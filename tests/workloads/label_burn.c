// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload for labels on CPU stacks: one thread, "burner", calls
 * set_phase("A") and burns CPU in burn_cpu() for 30 ms, set_phase("B") and
 * burns in the same function for 10 ms, then set_phase("C") and sleeps
 * 10 ms, again and again: burn_cpu's on-CPU samples split 3:1 between
 * phases A and B, and its off-CPU time goes to phase C. The phases change
 * far faster than the thread sampler's ticks, so only labels read when the
 * CPU sample is taken attribute them right. Runs for argv[1] seconds
 * (default 30). With argv[2] "cpu", the burns last 30 and 10 ms of the
 * thread's CPU time, not of wall time: the 3:1 split holds on a loaded
 * machine too, where the thread runs only part of each burn.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* The probed function: external so that it has a symbol to attach to. */
void set_phase(const char *phase);
void burn_cpu(long ms);

static volatile const char *current_phase;
static volatile unsigned long sink;

__attribute__((noipa, used)) void set_phase(const char *phase)
{
	current_phase = phase;
	__asm__ volatile("" ::: "memory");
}

static clockid_t burn_clock = CLOCK_MONOTONIC;

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(burn_clock, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Spins for ms of CPU time, reading the clock rarely so samples land here. */
__attribute__((noipa, used)) void burn_cpu(long ms)
{
	struct timespec t0;

	clock_gettime(burn_clock, &t0);
	do {
		for (int i = 0; i < 200000; i++)
			sink = sink * 31 + (unsigned long)i;
	} while (elapsed_ms(&t0) < ms);
}

static void nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static void *burner(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "burner");
	for (;;) {
		set_phase("A");
		burn_cpu(30);
		set_phase("B");
		burn_cpu(10);
		set_phase("C");
		nap(10);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 30;
	pthread_t t;

	if (argc > 2 && !strcmp(argv[2], "cpu"))
		burn_clock = CLOCK_THREAD_CPUTIME_ID;
	if (pthread_create(&t, NULL, burner, NULL))
		return 1;
	sleep((unsigned)(secs > 0 ? secs : 30));
	return 0;
}
