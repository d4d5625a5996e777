// SPDX-License-Identifier: GPL-2.0-only
/*
 * symchain: a workload with a known noinline call chain through the
 * executable and a shared library:
 *   main -> chain_exe_1 -> chain_lib_2 -> chain_lib_3 -> chain_exe_leaf (spins)
 * It first prints one line "symchain PID chain_exe_1=ADDR chain_lib_2=ADDR
 * chain_lib_3=ADDR chain_exe_leaf=ADDR" so tests know where the functions
 * landed (PIE at a random base), then spins for SECONDS (default 5) or, with
 * "wait", sleeps until killed; at the end it prints "symchain rounds=N
 * seconds=S" (work done, for the benchmark suite). Built in several variants (frame pointers or
 * not, PIE or not, stripped) by tests/workloads/sym/CMakeLists.txt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symchain.h"

static volatile int waiting;
static double deadline;
static volatile unsigned long rounds; /* work done: the benchmark's rate */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long chain_exe_leaf(unsigned long n)
{
	volatile unsigned long x = n;

	if (waiting) {
		for (;;)
			pause();
	}
	while (now_s() < deadline) {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		rounds = rounds + 1;
	}
	return x;
}

__attribute__((noinline)) static unsigned long chain_exe_1(unsigned long n)
{
	unsigned long r = chain_lib_2(chain_exe_leaf, n);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

int main(int argc, char **argv)
{
	double seconds = 5, start;
	void *lib_2, *lib_3;
	unsigned long r;

	if (argc > 1 && !strcmp(argv[1], "wait"))
		waiting = 1;
	else if (argc > 1)
		seconds = atof(argv[1]);
	chain_lib_addresses(&lib_2, &lib_3);
	printf("symchain %d chain_exe_1=%p chain_lib_2=%p chain_lib_3=%p chain_exe_leaf=%p\n",
	       (int)getpid(), (void *)chain_exe_1, lib_2, lib_3, (void *)chain_exe_leaf);
	fflush(stdout);
	start = now_s();
	deadline = start + seconds;
	r = chain_exe_1(1);
	/* For the benchmark suite: seconds per 10^5 rounds of the leaf loop. */
	printf("symchain rounds=%lu seconds=%.3f\n", rounds, now_s() - start);
	return (int)(r & 1) * 0;
}
