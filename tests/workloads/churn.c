// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: thread and process churn for argv[1] seconds (default 30).
 * One loop forks children that exit at once (a fork/exit storm, reusing
 * pids quickly); another creates and joins short-lived threads. argv[1]
 * may be fractional. At the end it prints "churn forks=N threads=M
 * seconds=S" (work done, for the benchmark suite).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static unsigned long threads_made;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *nothing(void *arg)
{
	return arg;
}

static void *thread_churn(void *arg)
{
	while (!stop) {
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) == 0) {
			pthread_join(t, NULL);
			threads_made++;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 30, start = now_s();
	unsigned long forks = 0;
	pthread_t t;

	pthread_create(&t, NULL, thread_churn, NULL);
	while (now_s() - start < secs) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			forks++;
	}
	stop = 1;
	pthread_join(t, NULL);
	/* For the benchmark suite: the work done in the time given. */
	printf("churn forks=%lu threads=%lu seconds=%.3f\n", forks, threads_made, now_s() - start);
	return 0;
}
