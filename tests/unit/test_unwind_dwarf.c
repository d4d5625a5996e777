// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the DWARF unwinder on a stack captured from this very process (a
 * known noinline chain, registers read in one asm block, the stack copied
 * from sp up), then on malformed captures: no stack, a cut copy, garbage
 * bytes, zero registers, a process that is gone; and of the ELF reader on
 * truncated and hostile headers. Each must give an outcome, never a crash.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "maps_cache.h"
#include "proc_maps.h"
#include "symbolizer.h"
#include "unwind_dwarf.h"
#include "unwind_files.h"

#define COPY 8192

struct capture {
	uint64_t regs[TT_UREG_NR];
	uint8_t *stack;
	size_t len;
};

static struct capture cap;

/* The stack holds other frames' redzones: copy it as the kernel would, unchecked. */
__attribute__((noinline, no_sanitize("address"))) static void
copy_raw(uint8_t *dst, const volatile uint8_t *src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = src[i];
}

/* Registers of this point in one go, then the stack above them. */
__attribute__((noinline, noipa)) static void uw_capture(void)
{
	uint64_t *r = cap.regs;
	const struct proc_map *m;
	struct proc_maps *maps;
	uint64_t top;

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
			 : "r"(r)
			 : "rax", "memory");
	/* As the kernel does: no further than the stack mapping goes. */
	maps = proc_maps__read(NULL, (uint32_t)getpid());
	m = maps ? proc_maps__find(maps, r[TT_UREG_SP]) : NULL;
	top = m ? m->end : r[TT_UREG_SP] + COPY;
	cap.len = top - r[TT_UREG_SP] < COPY ? top - r[TT_UREG_SP] : COPY;
	copy_raw(cap.stack, (const volatile uint8_t *)(uintptr_t)r[TT_UREG_SP], cap.len);
	proc_maps__free(maps);
}

/* Frames with some stack of their own, so that a short copy cuts them. */
__attribute__((noinline, noipa)) static void uw_chain_2(void)
{
	volatile char pad[256];

	pad[0] = 1;
	uw_capture();
	__asm__ volatile("" ::: "memory");
	pad[1] = pad[0];
}

__attribute__((noinline, noipa)) static void uw_chain_1(void)
{
	volatile char pad[256];

	pad[0] = 1;
	uw_chain_2();
	__asm__ volatile("" ::: "memory");
	pad[1] = pad[0];
}

static int setup(void **state)
{
	cap.stack = calloc(1, COPY);
	uw_chain_1();
	return cap.stack && cap.len >= 512 ? 0 : -1;
}

static int teardown(void **state)
{
	free(cap.stack);
	return 0;
}

static const char *name_of(struct symbolizer *s, uint64_t ip)
{
	const struct sym_frame *f;

	/* A return address names its call: look one byte back. */
	assert_int_equal(symbolizer__resolve(s, (uint32_t)getpid(), ip - 1, false, &f), 0);
	return f->name;
}

static void test_own_stack(void **state)
{
	struct unwinder *u = unwinder__new(NULL);
	struct symbolizer *s = symbolizer__new(NULL);
	struct unwinder_stats st;
	uint64_t ips[TT_MAX_STACK_DEPTH];
	enum unwind_result r;
	size_t nr;

	r = unwinder__unwind(u, (uint32_t)getpid(), cap.regs, cap.stack, cap.len, ips,
			     TT_MAX_STACK_DEPTH, &nr);
	assert_true(r == UNWIND_OK || r == UNWIND_STACK_END);
	assert_true(nr >= 4);
	assert_int_equal(ips[0], cap.regs[TT_UREG_IP]);
	assert_string_equal(name_of(s, ips[0] + 1), "uw_capture");
	assert_string_equal(name_of(s, ips[1]), "uw_chain_2");
	assert_string_equal(name_of(s, ips[2]), "uw_chain_1");
	assert_string_equal(name_of(s, ips[3]), "setup");
	unwinder__stats(u, &st);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.frames, nr);
	assert_true(st.files >= 1);
	/* Twice: the cached tables give the same frames. */
	uint64_t again[TT_MAX_STACK_DEPTH];
	size_t nr2;

	unwinder__unwind(u, (uint32_t)getpid(), cap.regs, cap.stack, cap.len, again,
			 TT_MAX_STACK_DEPTH, &nr2);
	assert_int_equal(nr2, nr);
	assert_memory_equal(again, ips, nr * sizeof(*ips));
	/* A frame limit is an outcome of its own. */
	assert_int_equal(
		unwinder__unwind(u, (uint32_t)getpid(), cap.regs, cap.stack, cap.len, ips, 2, &nr),
		UNWIND_DEPTH);
	assert_int_equal(nr, 2);
	/* The process goes once unused for more than the idle rounds; its files stay. */
	assert_int_equal(unwinder__expire(u, 1), 0);
	assert_int_equal(unwinder__expire(u, 1), 1);
	unwinder__stats(u, &st);
	assert_true(st.files >= 1);
	symbolizer__free(s);
	unwinder__free(u);
}

static void test_malformed(void **state)
{
	struct unwinder *u = unwinder__new(NULL);
	uint64_t ips[TT_MAX_STACK_DEPTH], zero[TT_UREG_NR] = {0};
	uint8_t *junk = malloc(COPY);
	struct unwinder_stats st;
	size_t nr;

	/* No stack at all: the sampled ip alone. */
	assert_int_equal(unwinder__unwind(u, (uint32_t)getpid(), cap.regs, cap.stack, 0, ips,
					  TT_MAX_STACK_DEPTH, &nr),
			 UNWIND_SHORT_COPY);
	assert_int_equal(nr, 1);
	/* Zero registers: nothing. */
	assert_int_equal(unwinder__unwind(u, (uint32_t)getpid(), zero, cap.stack, cap.len, ips,
					  TT_MAX_STACK_DEPTH, &nr),
			 UNWIND_SHORT_COPY);
	assert_int_equal(nr, 0);
	/* A copy cut inside the first frame: the stack ends too soon. */
	assert_int_equal(unwinder__unwind(u, (uint32_t)getpid(), cap.regs, cap.stack, 64, ips,
					  TT_MAX_STACK_DEPTH, &nr),
			 UNWIND_STACK_END);
	assert_true(nr >= 1 && nr < 4);
	/* Garbage bytes: some outcome, at least the ip, no crash. */
	srand(42);
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < COPY; i++)
			junk[i] = (uint8_t)rand();
		unwinder__unwind(u, (uint32_t)getpid(), cap.regs, junk, COPY, ips,
				 TT_MAX_STACK_DEPTH, &nr);
		assert_true(nr >= 1);
	}
	/* A process that is not there. */
	struct maps_cache *no_proc = maps_cache__new(&(struct maps_cache_opts){
		.proc_root = "/nonexistent-proc",
	});
	struct unwinder *gone = unwinder__new(no_proc);

	assert_int_equal(unwinder__unwind(gone, 4242, cap.regs, cap.stack, cap.len, ips,
					  TT_MAX_STACK_DEPTH, &nr),
			 UNWIND_NO_PROCESS);
	assert_int_equal(nr, 1);
	unwinder__stats(u, &st);
	assert_int_equal(st.samples, 53);
	assert_int_equal(st.result[UNWIND_SHORT_COPY], 2);
	assert_string_equal(unwind_result_name(UNWIND_STACK_END), "stack_end");
	unwinder__free(gone);
	maps_cache__free(no_proc);
	unwinder__free(u);
	free(junk);
}

static void test_elf_reader(void **state)
{
	uint8_t buf[4096] = {0};
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	struct unwind_file *f;
	struct unwind_table t;
	uint64_t v;

	assert_null(unwind_file__parse(buf, 10));	   /* truncated */
	assert_null(unwind_file__parse(buf, sizeof(buf))); /* not ELF */
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phoff = sizeof(*eh);
	eh->e_phnum = 60000; /* far past the end of the file */
	assert_null(unwind_file__parse(buf, sizeof(buf)));
	eh->e_phnum = 2;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));

	ph[0] = (Elf64_Phdr){
		.p_type = PT_LOAD, .p_offset = 0, .p_vaddr = 0x400000, .p_filesz = sizeof(buf)};
	/* An .eh_frame_hdr that claims more FDEs than it holds: no table. */
	ph[1] = (Elf64_Phdr){
		.p_type = PT_GNU_EH_FRAME, .p_offset = 512, .p_vaddr = 0x400200, .p_filesz = 20};
	buf[512] = 1;
	buf[513] = 0x1b;
	buf[514] = 0x03;
	buf[515] = 0x3b;
	buf[520] = 200;
	f = unwind_file__parse(buf, sizeof(buf));
	assert_non_null(f);
	assert_int_equal(unwind_file__table(f, &t), -ENOENT);
	assert_int_equal(unwind_file__offset_to_vaddr(f, 0x100, &v), 0);
	assert_int_equal(v, 0x400100);
	assert_int_equal(unwind_file__read(f, sizeof(buf) - 4, &v, 8), -EFAULT);
	assert_int_equal(unwind_file__read(f, UINT64_MAX - 2, &v, 8), -EFAULT);
	unwind_file__free(f);
	/* One that fits. */
	buf[520] = 1;
	f = unwind_file__parse(buf, sizeof(buf));
	assert_non_null(f);
	assert_int_equal(unwind_file__table(f, &t), 0);
	assert_int_equal(t.fde_count, 1);
	assert_int_equal(t.hdr_vaddr, 0x400200);
	assert_int_equal(t.table_vaddr, 0x400200 + 12);
	unwind_file__free(f);
}

/* A mapped file reads the same after its pages went back. */
static void test_drop_pages(void **state)
{
	struct unwind_files *c = unwind_files__new();
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct unwind_file *f;
	uint8_t before[64], after[64];
	struct stat st;

	(void)state;
	assert_true(fd >= 0 && fstat(fd, &st) == 0);
	f = unwind_files__get_fd(c, fd, st.st_dev, st.st_ino);
	close(fd);
	assert_non_null(f);
	assert_int_equal(unwind_file__read(f, 0, before, sizeof(before)), 0);
	assert_memory_equal(before, ELFMAG, SELFMAG);
	unwind_files__drop_pages(c);
	assert_int_equal(unwind_file__read(f, 0, after, sizeof(after)), 0);
	assert_memory_equal(before, after, sizeof(before));
	unwind_files__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_stack),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_elf_reader),
		cmocka_unit_test(test_drop_pages),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
