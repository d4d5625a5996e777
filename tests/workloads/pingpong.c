// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: two threads of one process ping-pong a byte over two pipes
 * argv[1] times (default 100000). The "pong" thread waits argv[2]
 * microseconds (default 0) before answering, so with a delay the "ping"
 * thread spends nearly all its time blocked in read (off CPU). Prints the
 * seconds the exchange took.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int to_pong[2], to_ping[2];
static long rounds, delay_us;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *pong(void *arg)
{
	struct timespec d = {delay_us / 1000000, (delay_us % 1000000) * 1000};
	char c;

	prctl(PR_SET_NAME, "pong");
	for (long i = 0; i < rounds; i++) {
		if (read(to_pong[0], &c, 1) != 1)
			break;
		if (delay_us)
			nanosleep(&d, NULL);
		if (write(to_ping[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	double start;
	char c = 'x';

	rounds = argc > 1 ? atol(argv[1]) : 100000;
	delay_us = argc > 2 ? atol(argv[2]) : 0;
	if (pipe(to_pong) || pipe(to_ping))
		return 1;
	prctl(PR_SET_NAME, "ping");
	pthread_create(&t, NULL, pong, NULL);
	start = now_s();
	for (long i = 0; i < rounds; i++) {
		if (write(to_pong[1], &c, 1) != 1 || read(to_ping[0], &c, 1) != 1)
			break;
	}
	printf("%.6f\n", now_s() - start);
	pthread_join(t, NULL);
	return 0;
}
