// SPDX-License-Identifier: GPL-2.0-only
/*
 * DWARF unwind cost per sample: a stack captured in this process through
 * glibc code without frame pointers (qsort calling back into a noinline
 * chain), unwound cold (a fresh unwinder: maps read, files mapped) and warm
 * (tables and libunwind's per-process CFI cache loaded: the steady state of
 * a live run). Usage: bench_unwind [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_maps.h"
#include "unwind_dwarf.h"
#include "util.h"

#define COPY 8192

static uint64_t regs[TT_UREG_NR];
static uint8_t stack_copy[COPY];
static size_t stack_len;

__attribute__((noinline, no_sanitize("address"))) static void
copy_raw(uint8_t *dst, const volatile uint8_t *src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = src[i];
}

__attribute__((noinline, noipa)) static void capture(void)
{
	struct proc_maps *maps;
	const struct proc_map *m;

	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 0(%0)\n\t"
			 "mov %%rsp, 8(%0)\n\t"
			 "mov %%rbp, 16(%0)\n\t"
			 "mov %%rbx, 24(%0)\n\t"
			 "mov %%r12, 32(%0)\n\t"
			 "mov %%r13, 40(%0)\n\t"
			 "mov %%r14, 48(%0)\n\t"
			 "mov %%r15, 56(%0)\n\t"
			 :
			 : "r"(regs)
			 : "rax", "memory");
	maps = proc_maps__read(NULL, (uint32_t)getpid());
	m = maps ? proc_maps__find(maps, regs[TT_UREG_SP]) : NULL;
	stack_len = m && m->end - regs[TT_UREG_SP] < COPY ? m->end - regs[TT_UREG_SP] : COPY;
	copy_raw(stack_copy, (const volatile uint8_t *)(uintptr_t)regs[TT_UREG_SP], stack_len);
	proc_maps__free(maps);
}

static int captured;

__attribute__((noinline, noipa)) static int compare(const void *a, const void *b)
{
	if (!captured++)
		capture();
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline, noipa)) static void chain(int depth)
{
	int v[4] = {4, 3, 2, 1};

	if (depth)
		chain(depth - 1);
	else
		qsort(v, 4, sizeof(v[0]), compare);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	uint64_t ips[TT_MAX_STACK_DEPTH], t0, cold, warm;
	struct unwinder *u;
	enum unwind_result r;
	size_t nr = 0;

	chain(10);
	u = unwinder__new(NULL);
	t0 = monotonic_ns();
	r = unwinder__unwind(u, (uint32_t)getpid(), regs, stack_copy, stack_len, ips,
			     TT_MAX_STACK_DEPTH, &nr);
	cold = monotonic_ns() - t0;
	t0 = monotonic_ns();
	for (long i = 0; i < rounds; i++)
		unwinder__unwind(u, (uint32_t)getpid(), regs, stack_copy, stack_len, ips,
				 TT_MAX_STACK_DEPTH, &nr);
	warm = (monotonic_ns() - t0) / (uint64_t)(rounds > 0 ? rounds : 1);
	printf("DWARF unwind of a %zu-frame stack (%zu bytes, outcome %s): cold %.1f us, "
	       "warm %.2f us per sample (%.0f ns per frame)\n",
	       nr, stack_len, unwind_result_name(r), (double)cold / 1e3, (double)warm / 1e3,
	       nr ? (double)warm / (double)nr : 0.0);
	unwinder__free(u);
	return r == UNWIND_OK || r == UNWIND_STACK_END ? 0 : 1;
}
