// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload for the USE tests: N threads spinning on the CPU for S seconds
 * (default 4 threads, 10 seconds), then exit. Usage: use_spin [N [S]].
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static double seconds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	double end = now() + seconds;
	volatile unsigned long n = 0;

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			n++;
	return NULL;
}

int main(int argc, char **argv)
{
	int nr = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t tids[64];

	seconds = argc > 2 ? atof(argv[2]) : 10;
	if (nr < 1 || nr > 64)
		return 2;
	for (int i = 0; i < nr; i++)
		if (pthread_create(&tids[i], NULL, spin, NULL))
			return 1;
	for (int i = 0; i < nr; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
