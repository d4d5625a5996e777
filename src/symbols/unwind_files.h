/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The files a DWARF unwinder reads: each mapped ELF file is mapped into
 * threadtop once (read-only, shared by every process that maps it, keyed by
 * device and inode like the symbol cache) with its PT_LOAD layout and the
 * location of its binary-search table of FDEs (.eh_frame_hdr,
 * PT_GNU_EH_FRAME). The unwinder reads a process's read-only data (the
 * .eh_frame_hdr and .eh_frame it needs) from these copies instead of from
 * the process.
 *
 * Files are untrusted: every header and table is checked against the file
 * size; a malformed file is an error (-EINVAL), never a crash.
 */
#ifndef THREADTOP_UNWIND_FILES_H
#define THREADTOP_UNWIND_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNWIND_FILE_MAX (4ull << 30) /* larger files are not mapped */

struct unwind_files;
struct unwind_file;

/* Where a file's FDE search table is, in ELF virtual addresses. */
struct unwind_table {
	uint64_t hdr_vaddr;   /* .eh_frame_hdr: the base of its datarel offsets */
	uint64_t table_vaddr; /* the sorted (initial location, FDE) pairs */
	uint64_t fde_count;
};

struct unwind_files *unwind_files__new(void);
void unwind_files__free(struct unwind_files *c);

/*
 * The file open on fd (the caller closes it), known as (dev, ino). Returns a
 * pointer that lives as long as c, or NULL with errno set (EINVAL: not a
 * 64-bit little-endian ELF file; EFBIG: too large). A failure is remembered.
 */
struct unwind_file *unwind_files__get_fd(struct unwind_files *c, int fd, uint64_t dev,
					 uint64_t ino);
/* The file already mapped as (dev, ino), or NULL: saves opening it again. */
struct unwind_file *unwind_files__find(struct unwind_files *c, uint64_t dev, uint64_t ino);
/* Same for an image in memory (the vdso), copied; key is its size and name. */
struct unwind_file *unwind_files__get_mem(struct unwind_files *c, const void *buf, size_t len,
					  const char *name);
size_t unwind_files__count(const struct unwind_files *c);
/*
 * Gives back the pages of the mapped files read so far (they are read-only
 * and private, never written: the next read finds them in the page cache).
 * Every binary a busy box ever ran stays mapped, and what was read of each
 * (its .eh_frame) counted in threadtop's RSS without end.
 */
void unwind_files__drop_pages(struct unwind_files *c);

/* Parses an ELF image (not copied: it must outlive the result). For tests. */
struct unwind_file *unwind_file__parse(const void *buf, size_t len);
void unwind_file__free(struct unwind_file *f);

/* Copies len bytes at file offset off into buf. Returns 0 or -EFAULT (outside the file). */
int unwind_file__read(const struct unwind_file *f, uint64_t off, void *buf, size_t len);
/* The ELF virtual address of file offset off (PT_LOAD segments), or -ENOENT. */
int unwind_file__offset_to_vaddr(const struct unwind_file *f, uint64_t off, uint64_t *ret_vaddr);
/* The FDE search table, or -ENOENT (no .eh_frame_hdr or an encoding not supported). */
int unwind_file__table(const struct unwind_file *f, struct unwind_table *ret);

#endif /* THREADTOP_UNWIND_FILES_H */
