// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: threads that change on a signal and otherwise stay put, for the
 * thread sampler's passes that re-read the threads it knows instead of
 * walking the thread list. Two threads ("mover" and "leaver") block in
 * read() on pipes. On SIGUSR1 the main thread wakes the mover, which then
 * sleeps in clock_nanosleep, and the leaver, which exits. On SIGUSR2 it
 * starts a "newcomer" that waits in pause(). The process exits after argv[1]
 * seconds (default 30). No task is created but the newcomer.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int mover_pipe[2], leaver_pipe[2];

static void *mover(void *arg)
{
	struct timespec forever = {3600, 0};
	char c;

	prctl(PR_SET_NAME, "mover");
	if (read(mover_pipe[0], &c, 1) < 0)
		return NULL;
	for (;;)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &forever, NULL);
	return arg;
}

static void *leaver(void *arg)
{
	char c;

	prctl(PR_SET_NAME, "leaver");
	if (read(leaver_pipe[0], &c, 1) < 0)
		return NULL;
	return arg;
}

static void *newcomer(void *arg)
{
	prctl(PR_SET_NAME, "newcomer");
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec limit = {argc > 1 ? atoi(argv[1]) : 30, 0};
	pthread_t t;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	/* Blocked before the threads start: they inherit the mask, main takes it. */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) || pipe(mover_pipe) || pipe(leaver_pipe) ||
	    pthread_create(&t, NULL, mover, NULL) || pthread_create(&t, NULL, leaver, NULL))
		return 1;
	if (sigtimedwait(&set, NULL, &limit) != SIGUSR1)
		return 0;
	if (write(mover_pipe[1], "x", 1) != 1 || write(leaver_pipe[1], "x", 1) != 1)
		return 1;
	if (sigtimedwait(&set, NULL, &limit) != SIGUSR2)
		return 0;
	if (pthread_create(&t, NULL, newcomer, NULL))
		return 1;
	sigtimedwait(&set, NULL, &limit);
	return 0;
}
