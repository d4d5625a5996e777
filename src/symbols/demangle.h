/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * C++ symbol names made readable: "_ZN2tt5chainEm" -> "tt::chain(unsigned
 * long)", through libstdc++'s __cxa_demangle (the Itanium C++ ABI, what GCC
 * and clang emit on Linux). A symbol version suffix ("@@GLIBCXX_3.4") is
 * kept after the demangled name.
 */
#ifndef THREADTOP_DEMANGLE_H
#define THREADTOP_DEMANGLE_H

#include <stddef.h>

#define DEMANGLE_MAX 1024 /* longer results are cut */

/*
 * Writes the demangled form of name into buf (len bytes, NUL-terminated,
 * cut to fit) and returns buf, or returns NULL (buf untouched) when name is
 * not a mangled C++ name or does not demangle.
 */
const char *demangle(const char *name, char *buf, size_t len);

#endif /* THREADTOP_DEMANGLE_H */
