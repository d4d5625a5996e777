/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cache of mapped files ("DSOs": executables, shared libraries, the vdso)
 * keyed by (device, inode, build-id): a file's symbols are read once and
 * shared by every process that maps it, and a file replaced in place (same
 * inode, new build-id) is not confused with the old one. Finds separate
 * debuginfo by build-id (<debug_root>/.build-id/xx/yyyy.debug) or by
 * .gnu_debuglink (next to the file, in .debug/, under <debug_root>), inside
 * the process's root directory first, then on the host.
 */
#ifndef THREADTOP_DSO_CACHE_H
#define THREADTOP_DSO_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_symbols.h"

struct dso_cache;
struct dso;

/* debug_root: NULL = "/usr/lib/debug", "" = do not look for debuginfo. */
struct dso_cache *dso_cache__new(const char *debug_root);
void dso_cache__free(struct dso_cache *c);

/*
 * The DSO of the file open on fd (the caller closes fd), which a process maps
 * from path (as /proc/PID/maps names it). root is the process's root
 * directory ("/proc/PID/root") for debuglink look-ups, or NULL. dev/ino are
 * from the maps line. Returns a pointer that lives as long as c (or until a
 * sweep frees it: see below), or NULL with errno set (EINVAL: not a usable
 * ELF file).
 */
struct dso *dso_cache__get_fd(struct dso_cache *c, int fd, uint64_t dev, uint64_t ino,
			      const char *path, const char *root);
/*
 * The file of device dev and inode ino read before (for this process or
 * another), when it can no longer be opened (the process mapping it has
 * exited, with its /proc/PID/map_files): NULL when none is cached, or when
 * two are (the file was rewritten in place: which one was mapped is not
 * known). A walk over the cache: for the failure path only.
 */
struct dso *dso_cache__find_file(const struct dso_cache *c, uint64_t dev, uint64_t ino);
/* Same for an ELF image in memory (the vdso), named name. */
struct dso *dso_cache__get_mem(struct dso_cache *c, const void *buf, size_t len, const char *name);

/*
 * Looks up the code at file offset off of d. Returns 0 and the symbol (NULL
 * when none covers it) plus the ELF virtual address of off, or -ENOENT when
 * no segment maps off (then *ret_vaddr is off itself).
 */
int dso__lookup(const struct dso *d, uint64_t off, const struct elf_sym **ret_sym,
		uint64_t *ret_vaddr);
/*
 * The functions inlined at ELF virtual address vaddr of d, outermost first
 * (dwarf_inline.h), from the DWARF of the file or of its debug file; names
 * live as long as d. Returns the count, 0 when d has no DWARF.
 */
size_t dso__inlined(struct dso *d, uint64_t vaddr, const char *const **ret);
/* The source line at vaddr, and its file in *ret_file (DWARF); 0 and NULL when unknown. */
unsigned dso__line(struct dso *d, uint64_t vaddr, const char **ret_file);
const char *dso__name(const struct dso *d);	/* basename */
bool dso__debuginfo(const struct dso *d);	/* symbols from a separate debug file */
const char *dso__build_id(const struct dso *d); /* GNU build-id in hex, "" when none */

/*
 * Ageing, for a box whose binaries come and go (rebuilt, upgraded, run once):
 * a holder marks every file it still names frames with (dso__mark) with a
 * new sweep number, then dso_cache__sweep frees each file not marked with
 * it: its symbols, DWARF and names, so every pointer into them dies. The
 * holder must have dropped whatever points into the files it did not mark.
 * Returns how many files went.
 */
void dso__mark(struct dso *d, uint64_t sweep);
size_t dso_cache__sweep(struct dso_cache *c, uint64_t sweep);

struct dso_cache_stats {
	uint64_t files, debug_files; /* loaded now */
	uint64_t dwarf_files;	     /* with DWARF for inline chains (own or debug file's) */
	uint64_t files_freed;	     /* by dso_cache__sweep, so far */
};
void dso_cache__stats(const struct dso_cache *c, struct dso_cache_stats *ret);

#endif /* THREADTOP_DSO_CACHE_H */
