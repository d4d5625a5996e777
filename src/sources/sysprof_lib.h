/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where libthreadtop-sysprof.so is: the BPF source attaches its probe to each
 * copy, threadtop run preloads the first.
 */
#ifndef THREADTOP_SYSPROF_LIB_H
#define THREADTOP_SYSPROF_LIB_H

#include <limits.h>

#define LJ_LIB_NAME "libthreadtop-sysprof.so"
#define LJ_LIB_MAX_PATHS 4

/*
 * The library's paths that exist, best first: $THREADTOP_SYSPROF_LIB, next to
 * the threadtop binary (lib/ and ../lib/), the install prefix's lib/; each
 * file once. Returns how many were written to paths.
 */
int lj_lib_paths(char (*paths)[PATH_MAX], int max);

#endif /* THREADTOP_SYSPROF_LIB_H */
