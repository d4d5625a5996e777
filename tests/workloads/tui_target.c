// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload for the TUI test: a process whose main thread's comm holds a
 * terminal escape sequence (ESC [2J, "clear screen", if a UI obeyed it),
 * a thread "ttspin" that burns CPU in short bursts, and a thread "ttsleep"
 * asleep in clock_nanosleep. Runs until killed (or argv[1] seconds).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long spin_sum; /* volatile: the loop is not optimised away */

static void *spin(void *arg)
{
	prctl(PR_SET_NAME, "ttspin");
	for (;;) {
		struct timespec ts = {0, 5 * 1000 * 1000};

		for (unsigned long i = 0; i < 2000000; i++)
			spin_sum += i;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	prctl(PR_SET_NAME, "ttsleep");
	for (;;) {
		struct timespec ts = {3600, 0};

		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned secs = argc > 1 ? (unsigned)atoi(argv[1]) : 600;
	pthread_t a, b;

	prctl(PR_SET_NAME, "\033[2Jevil");
	if (pthread_create(&a, NULL, spin, NULL) || pthread_create(&b, NULL, sleeper, NULL))
		return 1;
	sleep(secs);
	return 0;
}
