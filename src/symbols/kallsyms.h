/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel symbols from /proc/kallsyms (modules included), loaded once into one
 * sorted array and searched by binary search. Only text symbols are kept
 * (types t, T, w, W): stacks hold only code addresses. The proc root is a
 * parameter so tests read fixture files.
 */
#ifndef THREADTOP_KALLSYMS_H
#define THREADTOP_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

struct ksym {
	uint64_t addr;
	const char *name;   /* owned by the ksyms */
	const char *module; /* "vmlinux" or the module name without brackets */
};

/*
 * Loads <proc_root>/kallsyms (proc_root NULL = "/proc"). Returns NULL with
 * errno set: ENOENT/EACCES from the open, EPERM when every address reads as
 * zero (kptr_restrict: not root), E2BIG past the symbol limit, ENOMEM.
 */
struct ksyms *ksyms__load(const char *proc_root);
/* Same on text already read (len bytes); for tests and fuzzing. */
struct ksyms *ksyms__parse(const char *buf, size_t len);
void ksyms__free(struct ksyms *ks);

/*
 * The symbol covering addr: the last one at or below it, provided addr is
 * not past the end of the kernel text or its module (a bounded distance).
 * Returns NULL when none. The pointer lives as long as ks.
 */
const struct ksym *ksyms__find(const struct ksyms *ks, uint64_t addr);
size_t ksyms__count(const struct ksyms *ks);
/* The range of the kernel's own text (vmlinux symbols, modules not): [*ret_start, *ret_end). 0s when none. */
void ksyms__text_range(const struct ksyms *ks, uint64_t *ret_start, uint64_t *ret_end);

#endif /* THREADTOP_KALLSYMS_H */
