// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: thread and process churn for argv[1] seconds (default 30).
 * One loop forks children that exit at once (a fork/exit storm, reusing
 * pids quickly); another creates and joins short-lived threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static void *nothing(void *arg)
{
	return arg;
}

static void *thread_churn(void *arg)
{
	while (!stop) {
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 30);
	pthread_t t;

	pthread_create(&t, NULL, thread_churn, NULL);
	while (time(NULL) < end) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	stop = 1;
	pthread_join(t, NULL);
	return 0;
}
