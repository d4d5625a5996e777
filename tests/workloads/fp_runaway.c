// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload for the unwinder's choice between a frame-pointer walk and a
 * DWARF stack (src/sources/bpf_unwind.c): spins in fake_chain_spin(), an
 * assembly leaf that uses rbp for data, as code built without frame
 * pointers does (fio: its frame-pointer walks went 120 "frames" into the
 * heap). rbp points at a chain of fake frames in the heap, each holding the
 * next one and a "return address" in the heap, longer than any walk: a
 * frame-pointer walk follows it to its depth limit. The leaf's CFI keeps
 * the CFA on rsp, so DWARF unwinding finds the real callers:
 * fp_runaway_outer (recursing) -> fp_runaway_mid -> fake_chain_spin.
 * Runs argv[1] seconds (default 30).
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CHAIN 300

struct fake_frame {
	struct fake_frame *next;
	uintptr_t ret;
};

/* fake_chain_spin(chain, n): n rounds of arithmetic with rbp = chain. */
unsigned long fake_chain_spin(struct fake_frame *chain, unsigned long n);
__asm__(".text\n"
	".globl fake_chain_spin\n"
	".type fake_chain_spin, @function\n"
	"fake_chain_spin:\n"
	".cfi_startproc\n"
	"	push %rbp\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_rel_offset %rbp, 0\n"
	"	mov %rdi, %rbp\n"
	"	mov %rsi, %rax\n"
	"1:	imul $1103515245, %rax, %rax\n"
	"	add $12345, %rax\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	"	pop %rbp\n"
	".cfi_adjust_cfa_offset -8\n"
	".cfi_restore %rbp\n"
	"	ret\n"
	".cfi_endproc\n"
	".size fake_chain_spin, .-fake_chain_spin\n");

__attribute__((noinline)) static unsigned long fp_runaway_mid(struct fake_frame *chain)
{
	volatile void *frame = __builtin_frame_address(0); /* keeps a frame (see named_spinner.c) */

	(void)frame;
	return fake_chain_spin(chain, 1000000) + 1; /* not a tail call: a frame */
}

/*
 * Recursion DEPTH deep above the leaf: deeper than any stack threadtop
 * keeps (127 frames), so the DWARF unwind ends at that limit too, not at
 * _start, and has as many frames as the frame-pointer walk.
 */
#define DEPTH 200

__attribute__((noinline)) static unsigned long fp_runaway_outer(struct fake_frame *chain, int depth)
{
	/* Read back through a volatile: GCC turns "f(n - 1) + 1" into a loop. */
	volatile unsigned long r =
		depth > 0 ? fp_runaway_outer(chain, depth - 1) : fp_runaway_mid(chain);

	return r + 1;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 30);
	struct fake_frame *chain = calloc(CHAIN, sizeof(*chain));
	volatile unsigned long sink = 0;

	if (!chain)
		return 1;
	for (int i = 0; i < CHAIN; i++) {
		chain[i].next = &chain[(i + 1) % CHAIN];
		chain[i].ret = (uintptr_t)&chain[i] + 1; /* in the heap: no code there */
	}
	while (time(NULL) < end)
		sink += fp_runaway_outer(chain, DEPTH);
	free(chain);
	return 0;
}
