// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the kallsyms parser: a fixture with modules, data symbols, aliases
 * and malformed lines; zeroed addresses (kptr_restrict); the live file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kallsyms.h"

#define FIXTURE_PROC TT_FIXTURES "/sym/proc"

static void test_fixture_lookup(void **state)
{
	struct ksyms *ks = ksyms__load(FIXTURE_PROC);
	const struct ksym *k;

	assert_non_null(ks);
	/* _text/startup_64 (T) + __alias_local (t) share an address: one kept. */
	assert_int_equal(ksyms__count(ks), 8);
	k = ksyms__find(ks, 0xffffffff81000000ull);
	assert_non_null(k);
	assert_string_equal(k->name, "_text");
	assert_string_equal(k->module, "vmlinux");
	k = ksyms__find(ks, 0xffffffff81001900ull); /* past some_data (D): not text */
	assert_non_null(k);
	assert_string_equal(k->name, "do_one_initcall");
	k = ksyms__find(ks, 0xffffffff81003004ull);
	assert_string_equal(k->name, "weak_fn");
	k = ksyms__find(ks, 0xffffffff81004010ull);
	assert_string_equal(k->name, "schedule");
	k = ksyms__find(ks, 0xffffffffc0100410ull);
	assert_string_equal(k->name, "ext4_sync_fs");
	assert_string_equal(k->module, "ext4");
	k = ksyms__find(ks, 0xffffffffc0200001ull);
	assert_string_equal(k->name, "nf_hook_slow");
	assert_string_equal(k->module, "nf_tables");
	/* Below the first symbol, and far past the last: unknown. */
	assert_null(ksyms__find(ks, 0xffffffff80000000ull));
	assert_null(ksyms__find(ks, 0xffffffffc0200000ull + (16u << 20)));
	assert_null(ksyms__find(ks, 0));
	ksyms__free(ks);
}

static void test_zero_addresses(void **state)
{
	errno = 0;
	assert_null(ksyms__load(TT_FIXTURES "/sym/proc_zero"));
	assert_int_equal(errno, EPERM);
}

static void test_missing_file(void **state)
{
	errno = 0;
	assert_null(ksyms__load(TT_FIXTURES "/sym/no-such-dir"));
	assert_int_equal(errno, ENOENT);
}

static void test_parse_garbage(void **state)
{
	static const char *inputs[] = {
		"",
		"\n\n\n",
		"ffffffff81000000",
		"ffffffff81000000 T",
		"ffffffff81000000 T ",
		"ffffffff81000000 TT name",
		"ffffffffffffffffffff T too_many_digits",
		"ffffffff81000000 T name [unterminated",
		"ffffffff81000000 T name []",
	};

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct ksyms *ks = ksyms__parse(inputs[i], strlen(inputs[i]));

		assert_non_null(ks);
		assert_true(ksyms__count(ks) <= 1);
		ksyms__free(ks);
	}
}

static void test_long_name(void **state)
{
	char buf[2048];
	struct ksyms *ks;
	int n;

	n = snprintf(buf, sizeof(buf), "ffffffff81000000 T ");
	memset(buf + n, 'x', 1000);
	strcpy(buf + n + 1000, "\nffffffff81000100 T ok\n");
	ks = ksyms__parse(buf, strlen(buf));
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 1); /* the 1000-char name is over KSYM_NAME_LEN */
	assert_string_equal(ksyms__find(ks, 0xffffffff81000100ull)->name, "ok");
	ksyms__free(ks);
}

/* A 64-bit syscall entry and its ia32 alias share an address: the x64 name wins, as in perf. */
static void test_x64_syscall_name(void **state)
{
	static const char text[] = "ffffffff813755d0 T __ia32_sys_pause\n"
				   "ffffffff813755d0 T __x64_sys_pause\n"
				   "ffffffff813755f0 T __x64_sys_getpid\n"
				   "ffffffff813755f0 T __ia32_sys_getpid\n";
	struct ksyms *ks = ksyms__parse(text, strlen(text));

	(void)state;
	assert_non_null(ks);
	assert_string_equal(ksyms__find(ks, 0xffffffff813755d4ull)->name, "__x64_sys_pause");
	assert_string_equal(ksyms__find(ks, 0xffffffff813755f4ull)->name, "__x64_sys_getpid");
	ksyms__free(ks);
}

/* The live kernel: every symbol found again at its own address. */
static void test_live(void **state)
{
	struct ksyms *ks = ksyms__load(NULL);
	const struct ksym *k;

	if (!ks) {
		skip(); /* not root (zeroed addresses) or no /proc */
		return;
	}
	assert_true(ksyms__count(ks) > 1000);
	k = ksyms__find(ks, (uint64_t)-1 >> 1 | 1ull << 63); /* top of the address space */
	(void)k;
	for (uint64_t addr = 0xffffffff81000000ull; addr < 0xffffffff81100000ull; addr += 0x1000) {
		k = ksyms__find(ks, addr);
		if (k) {
			assert_true(k->addr <= addr);
			assert_ptr_equal(ksyms__find(ks, k->addr), k);
		}
	}
	ksyms__free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_lookup),	 cmocka_unit_test(test_zero_addresses),
		cmocka_unit_test(test_missing_file),	 cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_long_name),	 cmocka_unit_test(test_live),
		cmocka_unit_test(test_x64_syscall_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
