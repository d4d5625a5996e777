// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: waits until the file argv[2] exists (the test creates it once the
 * tracer runs), makes exactly argv[1] getppid syscalls, then sleeps argv[3]
 * seconds (default 0). With argv[2] "-" it starts at once: the benchmark's
 * getppid storm. Prints the seconds the calls took.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	const char *go = argc > 2 ? argv[2] : "-";
	struct timespec tick = {0, 10 * 1000 * 1000};
	double start;

	while (strcmp(go, "-") && access(go, F_OK) != 0)
		nanosleep(&tick, NULL);
	start = now_s();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("%.6f\n", now_s() - start);
	fflush(stdout);
	if (argc > 3)
		sleep((unsigned)atoi(argv[3]));
	return 0;
}
