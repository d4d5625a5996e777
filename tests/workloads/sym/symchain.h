/* SPDX-License-Identifier: GPL-2.0-only */
/* The call chain shared by the symchain executable and its library. */
#ifndef SYMCHAIN_H
#define SYMCHAIN_H

typedef unsigned long (*chain_leaf_fn)(unsigned long n);

unsigned long chain_lib_2(chain_leaf_fn leaf, unsigned long n);
unsigned long chain_lib_3(chain_leaf_fn leaf, unsigned long n);
/* Where the library's functions really are (not PLT stubs). */
void chain_lib_addresses(void **ret_2, void **ret_3);

#endif
