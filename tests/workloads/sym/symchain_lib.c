// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared-library half of the symchain workload: two noinline frames in
 * the middle of a known call chain (exe -> lib -> lib -> exe callback), so
 * stack tests see frames from two files in a fixed order.
 */
#include "symchain.h"

__attribute__((noinline)) unsigned long chain_lib_3(chain_leaf_fn leaf, unsigned long n)
{
	unsigned long r = leaf(n);

	__asm__ volatile("" ::: "memory"); /* no tail call: keep this frame */
	return r + 1;
}

__attribute__((noinline)) unsigned long chain_lib_2(chain_leaf_fn leaf, unsigned long n)
{
	unsigned long r = chain_lib_3(leaf, n);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

/*
 * The real addresses of the two functions. Taken in the executable, a
 * non-PIE program gets its PLT stubs (the canonical function addresses);
 * hidden aliases are resolved PC-relative inside the library.
 */
extern __typeof(chain_lib_2) chain_lib_2_here
	__attribute__((visibility("hidden"), alias("chain_lib_2")));
extern __typeof(chain_lib_3) chain_lib_3_here
	__attribute__((visibility("hidden"), alias("chain_lib_3")));

void chain_lib_addresses(void **ret_2, void **ret_3)
{
	*ret_2 = (void *)chain_lib_2_here;
	*ret_3 = (void *)chain_lib_3_here;
}
