// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the ELF symbol reader: this test binary (.symtab, PIE), libc
 * (.dynsym, build-id, debuglink), and malformed copies of this binary
 * (truncated, huge or out-of-file section sizes, bad links, random damage):
 * each is an error or a usable result, never a crash (run under ASan).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "elf_symbols.h"
#include "proc_maps.h"

__attribute__((noinline)) int elf_test_target_fn(int x);
__attribute__((noinline)) int elf_test_target_fn(int x)
{
	return x * 3 + 1;
}

static char *self_buf;
static size_t self_len;
static char tmpdir[] = "/tmp/tt-elf-XXXXXX";

static int setup(void **state)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return -1;
	self_len = (size_t)st.st_size;
	self_buf = malloc(self_len);
	if (read(fd, self_buf, self_len) != (ssize_t)self_len)
		return -1;
	close(fd);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/f", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	free(self_buf);
	return 0;
}

static void exercise(struct elf_syms *es);

/* Reads path's exports too (the reader of the LuaJIT-linked-in check): the
 * same damage must not hurt it either. */
static void load_exports(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_syms *es;

	assert_true(fd >= 0);
	es = elf_syms__exports_from_fd(fd);
	close(fd);
	elf_syms__by_name(es, "main");
	exercise(es); /* and frees it */
}

/* Writes buf to the scratch file and reads it back with elf_syms. */
static struct elf_syms *load_bytes(const void *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/f", tmpdir);
	f = fopen(path, "we");
	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	load_exports(path);
	return elf_syms__from_path(path);
}

/* Uses a result the way the symbolizer does, so ASan sees every access. */
static void exercise(struct elf_syms *es)
{
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	uint64_t vaddr;
	size_t len;

	if (!es)
		return;
	for (size_t i = 0; i < 64; i++) {
		const struct elf_sym *s = elf_syms__find(es, i * 0x1000 + 0x123);

		if (s)
			assert_non_null(s->name);
	}
	elf_syms__offset_to_vaddr(es, 0x1000, &vaddr);
	elf_syms__build_id(es, &len);
	assert_true(len <= ELF_BUILD_ID_MAX);
	elf_syms__build_id_hex(es, hex, sizeof(hex));
	elf_syms__debuglink(es);
	elf_syms__free(es);
}

static void test_self(void **state)
{
	struct proc_maps *maps = proc_maps__read(NULL, (uint32_t)getpid());
	uint64_t addr = (uint64_t)(uintptr_t)elf_test_target_fn + 3, vaddr;
	const struct proc_map *m = proc_maps__find(maps, addr);
	struct elf_syms *es = elf_syms__from_path("/proc/self/exe");
	const struct elf_sym *s;
	size_t bid_len;

	assert_non_null(m);
	assert_non_null(es);
	assert_int_equal(elf_syms__table(es), ELF_TABLE_SYMTAB);
	assert_true(elf_syms__count(es) > 10);
	assert_non_null(elf_syms__build_id(es, &bid_len));
	assert_int_equal(bid_len, 20);
	assert_int_equal(elf_syms__offset_to_vaddr(es, addr - m->start + m->offset, &vaddr), 0);
	s = elf_syms__find(es, vaddr);
	assert_non_null(s);
	assert_string_equal(s->name, "elf_test_target_fn");
	assert_int_equal(vaddr - s->addr, 3);
	assert_int_equal(elf_syms__offset_to_vaddr(es, UINT64_MAX - 5, &vaddr), -ENOENT);
	elf_syms__free(es);
	proc_maps__free(maps);
}

static void test_libc(void **state)
{
	struct elf_syms *es = elf_syms__from_path("/lib/x86_64-linux-gnu/libc.so.6");
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	int found = 0;

	if (!es) {
		skip();
		return;
	}
	/* Debian strips libc: exported functions only, sizes known. */
	assert_int_equal(elf_syms__table(es), ELF_TABLE_DYNSYM);
	assert_true(elf_syms__count(es) > 1000);
	assert_int_equal(elf_syms__build_id_hex(es, hex, sizeof(hex)), 40);
	assert_non_null(elf_syms__debuglink(es));
	for (uint64_t a = 0x20000; a < 0x200000 && !found; a += 4) {
		const struct elf_sym *s = elf_syms__find(es, a);

		if (s && !strcmp(s->name, "qsort"))
			found = 1;
	}
	assert_true(found);
	elf_syms__free(es);
}

/* A file's exports are its dynamic symbols, found by name; .symtab's are not exports. */
static void test_exports(void **state)
{
	int fd = open("/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY | O_CLOEXEC);
	struct elf_syms *es, *self;

	if (fd < 0) {
		skip();
		return;
	}
	es = elf_syms__exports_from_fd(fd);
	close(fd);
	assert_non_null(es);
	assert_int_equal(elf_syms__table(es), ELF_TABLE_DYNSYM);
	assert_non_null(elf_syms__by_name(es, "qsort"));
	assert_string_equal(elf_syms__by_name(es, "qsort")->name, "qsort");
	assert_null(elf_syms__by_name(es, "luaJIT_setmode"));
	assert_null(elf_syms__by_name(es, ""));
	elf_syms__free(es);

	/* This test binary: elf_test_target_fn is in .symtab, not exported. */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	es = elf_syms__exports_from_fd(fd);
	close(fd);
	self = elf_syms__from_path("/proc/self/exe");
	assert_non_null(es);
	assert_non_null(self);
	assert_null(elf_syms__by_name(es, "elf_test_target_fn"));
	assert_non_null(elf_syms__by_name(self, "elf_test_target_fn"));
	assert_null(elf_syms__by_name(NULL, "qsort"));
	elf_syms__free(self);
	elf_syms__free(es);
}

static void test_not_elf(void **state)
{
	errno = 0;
	assert_null(load_bytes("", 0));
	assert_int_equal(errno, EINVAL);
	assert_null(load_bytes("#!/bin/sh\necho hi\n", 18));
	assert_null(load_bytes("\177ELF", 4));
	assert_null(elf_syms__from_path(TT_FIXTURES "/sym/no-such-file"));
	assert_null(elf_syms__from_path(TT_FIXTURES "/sym")); /* a directory */
	assert_null(elf_syms__from_mem("abc", 3));
}

static void test_truncated(void **state)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)self_buf;
	size_t cuts[] = {1,
			 16,
			 63,
			 64,
			 eh->e_phoff + 10,
			 self_len / 4,
			 self_len / 2,
			 (size_t)eh->e_shoff,
			 (size_t)eh->e_shoff + eh->e_shentsize * 3u + 7,
			 self_len - 1};

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct elf_syms *es = load_bytes(self_buf, cuts[i]);

		/* The section headers are at the end: any cut loses them. */
		assert_null(es);
		assert_true(errno != 0);
	}
}

/* A copy of this binary with field edits to the section header of type. */
static Elf64_Shdr *find_section(char *buf, uint32_t type)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;

	for (unsigned i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(buf + eh->e_shoff + (size_t)i * eh->e_shentsize);

		if (sh->sh_type == type)
			return sh;
	}
	return NULL;
}

static void test_hostile_headers(void **state)
{
	char *copy = malloc(self_len);
	Elf64_Shdr *sh;
	Elf64_Ehdr *eh;

	for (int variant = 0; variant < 12; variant++) {
		struct elf_syms *es;

		memcpy(copy, self_buf, self_len);
		eh = (Elf64_Ehdr *)copy;
		sh = find_section(copy, SHT_SYMTAB);
		assert_non_null(sh);
		switch (variant) {
		case 0:
			sh->sh_size = 1ull << 62;
			break;
		case 1:
			sh->sh_offset = 1ull << 62;
			break;
		case 2:
			sh->sh_size = self_len;
			break; /* runs past the end */
		case 3:
			sh->sh_link = 0xffff;
			break;
		case 4:
			sh->sh_entsize = 1;
			break;
		case 5:
			sh->sh_entsize = 0;
			break;
		case 6:
			find_section(copy, SHT_STRTAB)->sh_size = UINT64_MAX;
			break;
		case 7:
			eh->e_shoff = UINT64_MAX - 100;
			break;
		case 8:
			eh->e_shnum = 0xffff;
			break;
		case 9:
			eh->e_phoff = self_len - 8;
			eh->e_phnum = 0xfffe;
			break;
		case 10:
			eh->e_shentsize = 7;
			break;
		case 11:
			find_section(copy, SHT_NOTE)->sh_size = 1ull << 40;
			break;
		}
		es = load_bytes(copy, self_len);
		if (variant <= 2 || variant == 6 || variant == 7 || variant == 11)
			assert_null(es); /* an error, never a read of that size */
		exercise(es);
	}
	free(copy);
}

/* Random damage in the headers and tables (a fixed seed): no crash. */
static void test_random_damage(void **state)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)self_buf;
	char *copy = malloc(self_len);
	unsigned seed = 12345;

	for (int iter = 0; iter < 300; iter++) {
		memcpy(copy, self_buf, self_len);
		for (int k = 0; k < 8; k++) {
			size_t pos;

			seed = seed * 1103515245u + 12345u;
			if (k % 2)
				pos = (size_t)eh->e_shoff + (seed >> 8) % (self_len - eh->e_shoff);
			else
				pos = (seed >> 8) % 4096;
			seed = seed * 1103515245u + 12345u;
			copy[pos] = (char)(seed >> 16);
		}
		exercise(load_bytes(copy, self_len));
	}
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),	      cmocka_unit_test(test_libc),
		cmocka_unit_test(test_exports),	      cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated),     cmocka_unit_test(test_hostile_headers),
		cmocka_unit_test(test_random_damage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
