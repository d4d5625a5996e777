// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: once the file argv[2] exists ("-": at once), creates argv[1]
 * short-lived threads (default 2000), four at a time, each making a few
 * syscalls and blocking once before it exits; then sleeps argv[3] seconds
 * (default 0). Tracers must not keep per-thread entries of the dead. With
 * argv[4] "done", prints "done" once the storm is over.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *short_life(void *arg)
{
	struct timespec ts = {0, 100 * 1000};

	syscall(SYS_getppid);
	syscall(SYS_gettid);
	nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	const char *go = argc > 2 ? argv[2] : "-";
	struct timespec tick = {0, 10 * 1000 * 1000};
	pthread_t t[4];

	while (strcmp(go, "-") && access(go, F_OK) != 0)
		nanosleep(&tick, NULL);
	for (long i = 0; i < n; i += 4) {
		for (int k = 0; k < 4; k++)
			pthread_create(&t[k], NULL, short_life, NULL);
		for (int k = 0; k < 4; k++)
			pthread_join(t[k], NULL);
	}
	if (argc > 4 && !strcmp(argv[4], "done")) {
		printf("done\n");
		fflush(stdout);
	}
	if (argc > 3)
		sleep((unsigned)atoi(argv[3]));
	return 0;
}
