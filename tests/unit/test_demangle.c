// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of C++ demangling: names, a version suffix, plain C names and junk
 * left alone, a cut buffer; and a frame of this program whose symbol is a
 * mangled name (an asm label) named readably by the symbolizer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "demangle.h"
#include "symbolizer.h"

/* A C function under the symbol a C++ compiler gives tt::probe::run(unsigned long). */
__attribute__((noinline, noipa, used)) unsigned long
cxx_like(unsigned long n) __asm__("_ZN2tt5probe3runEm");
unsigned long cxx_like(unsigned long n)
{
	return n * 3 + 1;
}

static void test_names(void **state)
{
	char buf[DEMANGLE_MAX];

	assert_string_equal(demangle("_ZN2tt5probe3runEm", buf, sizeof(buf)),
			    "tt::probe::run(unsigned long)");
	assert_string_equal(demangle("_ZNSt6vectorIiSaIiEE9push_backERKi", buf, sizeof(buf)),
			    "std::vector<int, std::allocator<int> >::push_back(int const&)");
	assert_string_equal(demangle("_ZNKSt9bad_alloc4whatEv@@GLIBCXX_3.4", buf, sizeof(buf)),
			    "std::bad_alloc::what() const@@GLIBCXX_3.4");
	strcpy(buf, "untouched");
	assert_null(demangle("main", buf, sizeof(buf)));
	assert_null(demangle("_Zjunk!!", buf, sizeof(buf)));
	assert_null(demangle("_Z", buf, sizeof(buf)));
	assert_null(demangle(NULL, buf, sizeof(buf)));
	assert_string_equal(buf, "untouched");
	/* Cut to the buffer, still terminated. */
	assert_string_equal(demangle("_ZN2tt5probe3runEm", buf, 8), "tt::pro");
}

static void test_symbolizer(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	const struct sym_frame *f;

	assert_int_equal(cxx_like(1), 4);
	assert_int_equal(symbolizer__resolve(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)cxx_like,
					     false, &f),
			 0);
	assert_string_equal(f->name, "tt::probe::run(unsigned long)");
	symbolizer__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_symbolizer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
