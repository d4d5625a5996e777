// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload with known behaviour: a thread named "spinner" burns CPU in
 * burn_cpu(), a thread named "sleeper" sleeps in clock_nanosleep, argv[2]
 * ms at a time (default 200). Runs for argv[1] seconds (default 30) or until
 * killed. Each wake-up may wait in a loaded machine's run queue: state tests
 * ask for fewer wake-ups, off-CPU tests for more.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

__attribute__((noinline)) static unsigned long burn_cpu(unsigned long n)
{
	for (unsigned long i = 0; i < 1000000; i++)
		n = n * 6364136223846793005ul + 1442695040888963407ul;
	return n;
}

static void *spinner(void *arg)
{
	unsigned long n = 1;

	prctl(PR_SET_NAME, "spinner");
	while (!stop)
		n = burn_cpu(n);
	return (void *)n;
}

static void *sleeper(void *arg)
{
	long ms = *(const long *)arg;
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000};

	prctl(PR_SET_NAME, "sleeper");
	while (!stop)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 30;
	long sleep_ms = argc > 2 ? atol(argv[2]) : 200;
	pthread_t a, b;

	if (sleep_ms < 1)
		sleep_ms = 200;

	pthread_create(&a, NULL, spinner, NULL);
	pthread_create(&b, NULL, sleeper, &sleep_ms);
	sleep((unsigned)secs);
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
