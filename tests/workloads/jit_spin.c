// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: a JIT's shape. Copies a counting loop into anonymous executable
 * memory, prints "code ADDR SIZE" (hex address, bytes) once it runs there,
 * and spends argv[1] seconds (default 30) in it: a perf-PID.map line over
 * that range names the frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* x86-64: mov rax, rdi; 1: dec rax; jnz 1b; ret */
static const unsigned char loop_code[] = {0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3};

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 30;
	time_t end = time(NULL) + secs;
	unsigned long (*fn)(unsigned long);
	void *code;

#ifndef __x86_64__
	puts("unsupported: x86-64 only");
	return 77;
#endif
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, loop_code, sizeof(loop_code));
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC) < 0)
		return 1;
	fn = (unsigned long (*)(unsigned long))(uintptr_t)code;
	fn(1);
	printf("code %llx %zx\n", (unsigned long long)(uintptr_t)code, sizeof(loop_code));
	fflush(stdout);
	while (time(NULL) < end)
		fn(100000000ul);
	return 0;
}
