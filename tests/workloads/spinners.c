// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: argv[1] threads (default 3) named "spinN" burn CPU for argv[2]
 * seconds (default 30). More spinners than CPUs must show runnable-but-waiting
 * (Q) samples.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

static volatile int stop;

__attribute__((noinline)) static unsigned long spin_burn(unsigned long n)
{
	for (unsigned long i = 0; i < 1000000; i++)
		n = n * 6364136223846793005ul + 1442695040888963407ul;
	return n;
}

static void *spin(void *arg)
{
	char name[16];
	unsigned long n = 1;

	snprintf(name, sizeof(name), "spin%ld", (long)arg);
	prctl(PR_SET_NAME, name);
	while (!stop)
		n = spin_burn(n);
	return (void *)n;
}

int main(int argc, char **argv)
{
	long nr = argc > 1 ? atol(argv[1]) : 3;
	int secs = argc > 2 ? atoi(argv[2]) : 30;
	pthread_t t[64];

	if (nr < 1 || nr > 64)
		return 2;
	for (long i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, spin, (void *)i);
	sleep((unsigned)secs);
	stop = 1;
	for (long i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
	return 0;
}
