// SPDX-License-Identifier: GPL-2.0-only
/*
 * inline_hot: CPU burnt in a function the compiler inlined. inline_outer()
 * (noinline) calls inline_mid(), which calls inline_hot(), a loop, both
 * static always_inline, so at -O2 the hot code sits inside inline_outer and
 * only DWARF says it is inline_hot's, inlined in inline_mid (built -O2 -g:
 * tests/CMakeLists.txt). It first prints
 * "inline_hot PID outer=ADDR hot_pc=ADDR hot_vaddr=0xVADDR", hot_pc an
 * address inside the inlined loop and hot_vaddr the same as an ELF address
 * of this file (for addr2line), then spins for SECONDS (default 5) or, with
 * "wait", sleeps until killed.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double deadline;
static volatile int waiting;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline __attribute__((always_inline)) unsigned long inline_hot(unsigned long n,
								      uintptr_t *pc)
{
	volatile unsigned long x = n;

	/* An instruction of the inlined body, whose address the tests look up. */
	__asm__ volatile("1: lea 1b(%%rip), %0" : "=r"(*pc));
	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static inline __attribute__((always_inline)) unsigned long inline_mid(unsigned long n,
								      uintptr_t *pc)
{
	unsigned long r = inline_hot(n ^ 0x5a, pc);

	__asm__ volatile("" ::: "memory");
	return r * 3;
}

__attribute__((noinline)) unsigned long inline_outer(unsigned long n, uintptr_t *pc);
__attribute__((noinline)) unsigned long inline_outer(unsigned long n, uintptr_t *pc)
{
	unsigned long r = inline_mid(n, pc);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

int main(int argc, char **argv)
{
	double seconds = 5;
	uintptr_t pc = 0;
	unsigned long sink = 0;
	Dl_info info = {0};

	if (argc > 1 && !strcmp(argv[1], "wait"))
		waiting = 1;
	else if (argc > 1)
		seconds = atof(argv[1]);
	sink += inline_outer(1, &pc);
	dladdr((void *)pc, &info);
	printf("inline_hot %d outer=%p hot_pc=%#lx hot_vaddr=%#lx\n", (int)getpid(),
	       (void *)inline_outer, (unsigned long)pc,
	       (unsigned long)(pc - (uintptr_t)info.dli_fbase));
	fflush(stdout);
	if (waiting) {
		for (;;)
			pause();
	}
	deadline = now_s() + seconds;
	while (now_s() < deadline)
		sink += inline_outer(sink, &pc);
	return (int)(sink & 1);
}
