// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: argv[1] threads (default 1000) that block forever on a pipe,
 * while the main thread sleeps argv[2] seconds (default 30): a box full of
 * idle threads, for threadtop's own cost at default settings.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

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
	sleep((unsigned)secs);
	return 0;
}
