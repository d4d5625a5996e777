// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: argv[1] threads (default 1000) that block forever on a pipe,
 * while the main thread sleeps argv[2] seconds (default 30): a box full of
 * idle threads, for threadtop's own cost at default settings. With argv[3]
 * (MB, default 0) the main thread meanwhile touches that much new memory
 * every second, to 400 MB at most: a many-thread process whose resident
 * memory moves.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GROW_MAX_MB 400

static char *kept[GROW_MAX_MB]; /* the memory touched: held to the end */

static int fds[2];

static void *idle(void *arg)
{
	char c;

	while (read(fds[0], &c, 1) > 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int secs = argc > 2 ? atoi(argv[2]) : 30;
	long grow_mb = argc > 3 ? atol(argv[3]) : 0, grown = 0;
	pthread_attr_t attr;
	pthread_t t;

	if (pipe(fds))
		return 1;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t, &attr, idle, NULL))
			return 1;
	if (grow_mb <= 0) {
		sleep((unsigned)secs); /* wakes no more than its threads */
		return 0;
	}
	for (int s = 0; s < secs; s++) {
		if (grown + grow_mb <= GROW_MAX_MB) {
			char *p = malloc((size_t)grow_mb << 20);

			if (!p)
				return 1;
			memset(p, 1, (size_t)grow_mb << 20); /* resident now */
			kept[s] = p;
			grown += grow_mb;
		}
		sleep(1);
	}
	return 0;
}
