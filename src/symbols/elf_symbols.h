/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The function symbols and load layout of one ELF file, read with libelf:
 * .symtab if present, else .dynsym; the PT_LOAD segments (to turn a file
 * offset into an ELF virtual address, so PIE and non-PIE files work the
 * same); the GNU build-id and the .gnu_debuglink name. Everything is copied
 * out, so no file descriptor or libelf handle stays open.
 *
 * The file is untrusted: every section is checked against the file size,
 * counts and string lengths are capped, and a malformed file is an error
 * (-EINVAL, -E2BIG), never a crash.
 */
#ifndef THREADTOP_ELF_SYMBOLS_H
#define THREADTOP_ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_SYMS_MAX 4000000u  /* symbols kept from one file */
#define ELF_SYM_NAME_MAX 1024u /* longer names are cut */
#define ELF_BUILD_ID_MAX 64u   /* bytes */
#define ELF_SYMS_STRTAB_MAX (512u << 20)

struct elf_syms;

struct elf_sym {
	uint64_t addr;	  /* ELF virtual address (st_value) */
	uint64_t size;	  /* 0 when the symbol table did not say */
	const char *name; /* owned by the elf_syms */
};

/* Which table the symbols came from. */
enum elf_syms_table {
	ELF_TABLE_NONE = 0,
	ELF_TABLE_DYNSYM,
	ELF_TABLE_SYMTAB,
};

/*
 * Reads the ELF file open on fd (the caller keeps and closes fd), or at path,
 * or in memory (buf, len; copied as needed, e.g. the vdso). NULL with errno
 * set: EINVAL (not ELF or malformed), E2BIG (past a limit), or the open's.
 */
struct elf_syms *elf_syms__from_fd(int fd);
struct elf_syms *elf_syms__from_path(const char *path);
/* Layout, build-id and debuglink only, no symbols: cheap, to find a file's
 * cache key before deciding to read its symbols. */
struct elf_syms *elf_syms__layout_from_fd(int fd);
/* Layout and the functions the file exports (.dynsym, none when it has no
 * dynamic symbols): what it offers to the code it loads, e.g. a program
 * with a language runtime linked in. */
struct elf_syms *elf_syms__exports_from_fd(int fd);
struct elf_syms *elf_syms__from_mem(const void *buf, size_t len);
void elf_syms__free(struct elf_syms *es);

/* The function symbol covering vaddr (or the nearest one below it when its
 * size is unknown), or NULL. Lives as long as es. */
const struct elf_sym *elf_syms__find(const struct elf_syms *es, uint64_t vaddr);
/* The function symbol named name, or NULL (a linear search: for a file's
 * exports, not for a full .symtab on a hot path). */
const struct elf_sym *elf_syms__by_name(const struct elf_syms *es, const char *name);
size_t elf_syms__count(const struct elf_syms *es);
enum elf_syms_table elf_syms__table(const struct elf_syms *es);

/* Turns a file offset into an ELF virtual address via the PT_LOAD segments.
 * Returns 0, or -ENOENT when no segment maps that offset. */
int elf_syms__offset_to_vaddr(const struct elf_syms *es, uint64_t offset, uint64_t *ret_vaddr);

/* The build-id bytes (NULL, 0 when none); lives as long as es. */
const uint8_t *elf_syms__build_id(const struct elf_syms *es, size_t *ret_len);
/* The build-id as lowercase hex into buf (at least 2 * ELF_BUILD_ID_MAX + 1
 * bytes). Returns the string length, 0 when none. */
size_t elf_syms__build_id_hex(const struct elf_syms *es, char *buf, size_t len);
/* Whether the file has DWARF debug info (a non-empty .debug_info). */
bool elf_syms__has_dwarf(const struct elf_syms *es);
/* The file name in .gnu_debuglink, or NULL. */
const char *elf_syms__debuglink(const struct elf_syms *es);

#endif /* THREADTOP_ELF_SYMBOLS_H */
