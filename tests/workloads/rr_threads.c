// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload for the record/replay tests and benchmark: argv[1] threads named
 * "rr-spin" that burn CPU and argv[2] threads named "rr-sleep" that sleep in
 * clock_nanosleep, for argv[3] seconds (default 60) or until killed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static void *spin(void *arg)
{
	unsigned long n = 1;

	prctl(PR_SET_NAME, "rr-spin");
	while (!stop)
		for (int i = 0; i < 1000000; i++)
			n = n * 6364136223846793005ul + 1442695040888963407ul;
	return (void *)n;
}

static void *nap(void *arg)
{
	struct timespec ts = {0, 100 * 1000 * 1000};

	prctl(PR_SET_NAME, "rr-sleep");
	while (!stop)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	int spinners = argc > 1 ? atoi(argv[1]) : 1;
	int sleepers = argc > 2 ? atoi(argv[2]) : 1;
	int secs = argc > 3 ? atoi(argv[3]) : 60;
	pthread_t t;

	for (int i = 0; i < spinners; i++)
		pthread_create(&t, NULL, spin, NULL);
	for (int i = 0; i < sleepers; i++)
		pthread_create(&t, NULL, nap, NULL);
	sleep((unsigned)secs);
	stop = 1;
	return 0;
}
