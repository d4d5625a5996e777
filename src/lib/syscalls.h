/* SPDX-License-Identifier: GPL-2.0-only */
/* x86-64 syscall numbers to names and back (table generated from the UAPI). */
#ifndef THREADTOP_SYSCALLS_H
#define THREADTOP_SYSCALLS_H

#include <stddef.h>

/* Name of syscall nr ("read"), or NULL when nr is not a known syscall. */
const char *syscall_name(int nr);
/* Name of nr into buf, or "syscall_NR" when unknown; returns buf. */
const char *syscall_label(int nr, char *buf, size_t len);

#endif /* THREADTOP_SYSCALLS_H */
