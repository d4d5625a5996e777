/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inlined functions at an address, from a file's DWARF (.debug_info) read
 * with libdw: for an address in outer() where the compiler inlined mid()
 * and, inside it, inner(), the chain is [mid, inner], outermost first
 * (outer itself is the ELF symbol the caller already has). One handle per
 * file with debug info, opened in the background from the moment the file
 * is met; answers are cached per address, so a hot address costs one hash
 * look-up.
 *
 * The file is untrusted: libdw checks the DWARF, the chain's depth and
 * name lengths are capped, and a malformed file yields no chain.
 */
#ifndef THREADTOP_DWARF_INLINE_H
#define THREADTOP_DWARF_INLINE_H

#include <stddef.h>
#include <stdint.h>

#define DWARF_INLINE_DEPTH_MAX 16u /* inlined levels kept (the outermost ones) */

struct dwarf_inline;

struct bg_jobs;

/*
 * Takes fd (an ELF file with .debug_info): the file is mapped and fd closed
 * at once (else by dwarf_inline__free), so a cached file holds no fd. The
 * opening (the costly part: libdw inflates compressed
 * sections) is queued on jobs at once, to be done before the first look-up
 * needs it; jobs NULL: at the first look-up. Never NULL; a file libdw
 * cannot read just has no chains.
 */
struct dwarf_inline *dwarf_inline__from_fd(int fd, struct bg_jobs *jobs);
/* Same for the file at path. */
struct dwarf_inline *dwarf_inline__from_path(const char *path, struct bg_jobs *jobs);
void dwarf_inline__free(struct dwarf_inline *di);

/*
 * The functions inlined at ELF virtual address vaddr, outermost first, into
 * *ret (names live as long as di). Returns their count: 0 when the code
 * there is not inlined or the file has no answer.
 */
size_t dwarf_inline__find(struct dwarf_inline *di, uint64_t vaddr, const char *const **ret);

/*
 * The source line of the code at vaddr (the innermost function's, inlined
 * or not), from the unit's line table: its number, and the file's path in
 * *ret_file (lives as long as di). 0 and NULL when the file has none.
 */
unsigned dwarf_inline__line(struct dwarf_inline *di, uint64_t vaddr, const char **ret_file);

#endif /* THREADTOP_DWARF_INLINE_H */
