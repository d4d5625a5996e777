// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mapped ELF files for the DWARF unwinder (see unwind_files.h): a read-only
 * mmap of each file, its PT_LOAD segments and its .eh_frame_hdr table.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "u64map.h"
#include "unwind_files.h"
#include "util.h"

#define MAX_LOADS 16
#define FAILED ((struct unwind_file *)1)

/* .eh_frame_hdr pointer encodings (DW_EH_PE_*) this reader accepts. */
#define PE_UDATA4 0x03
#define PE_SDATA4 0x0b
#define PE_PCREL 0x10
#define PE_DATAREL 0x30
#define PE_OMIT 0xff

struct load {
	uint64_t vaddr, offset, filesz;
};

struct unwind_file {
	struct unwind_file *next; /* same key */
	uint64_t dev, ino;
	const uint8_t *data;
	size_t size;
	bool mapped; /* data is an mmap (else malloc'd or borrowed) */
	bool owned;
	struct load loads[MAX_LOADS];
	int nr_loads;
	bool has_table;
	struct unwind_table table;
};

struct unwind_files {
	struct u64map *by_key; /* hash(dev, ino) -> chain of struct unwind_file */
	size_t count;
};

static uint64_t key_of(uint64_t dev, uint64_t ino)
{
	uint64_t h = dev * 0x9e3779b97f4a7c15ull ^ ino;

	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

/* Reads the .eh_frame_hdr at file offset off (len bytes) into f->table. */
static void parse_hdr(struct unwind_file *f, uint64_t off, uint64_t len, uint64_t vaddr)
{
	const uint8_t *h;
	uint32_t count;

	if (len < 12 || off > f->size || f->size - off < len)
		return;
	h = f->data + off;
	/* version 1; eh_frame_ptr any 4-byte form; count udata4; table datarel sdata4 */
	if (h[0] != 1 || (h[1] & 0x0f) == 0x0f ||
	    ((h[1] & 0x0f) != PE_UDATA4 && (h[1] & 0x0f) != PE_SDATA4) ||
	    (h[2] != PE_UDATA4 && h[2] != PE_SDATA4) || h[3] != (PE_DATAREL | PE_SDATA4))
		return;
	memcpy(&count, h + 8, 4);
	if (!count || (uint64_t)count * 8 > len - 12)
		return;
	f->table.hdr_vaddr = vaddr;
	f->table.table_vaddr = vaddr + 12;
	f->table.fde_count = count;
	f->has_table = true;
}

static int parse(struct unwind_file *f)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->data;
	uint64_t hdr_off = 0, hdr_len = 0, hdr_vaddr = 0;

	if (f->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > f->size ||
	    (f->size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return -EINVAL;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, f->data + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && f->nr_loads < MAX_LOADS) {
			f->loads[f->nr_loads++] =
				(struct load){ph.p_vaddr, ph.p_offset, ph.p_filesz};
		} else if (ph.p_type == PT_GNU_EH_FRAME) {
			hdr_off = ph.p_offset;
			hdr_len = ph.p_filesz;
			hdr_vaddr = ph.p_vaddr;
		}
	}
	if (!f->nr_loads)
		return -EINVAL;
	if (hdr_len)
		parse_hdr(f, hdr_off, hdr_len, hdr_vaddr);
	return 0;
}

struct unwind_file *unwind_file__parse(const void *buf, size_t len)
{
	struct unwind_file *f = xcalloc(1, sizeof(*f));

	f->data = buf;
	f->size = len;
	if (parse(f) < 0) {
		free(f);
		errno = EINVAL;
		return NULL;
	}
	return f;
}

void unwind_file__free(struct unwind_file *f)
{
	if (!f || f == FAILED)
		return;
	if (f->mapped)
		munmap((void *)f->data, f->size);
	else if (f->owned)
		free((void *)f->data);
	free(f);
}

struct unwind_files *unwind_files__new(void)
{
	struct unwind_files *c = xcalloc(1, sizeof(*c));

	c->by_key = u64map__new();
	return c;
}

/* Frees one key's chain of files. */
static void chain_free(void *head)
{
	for (struct unwind_file *f = head, *next; f; f = next) {
		next = f->next;
		unwind_file__free(f);
	}
}

void unwind_files__free(struct unwind_files *c)
{
	if (!c)
		return;
	u64map__free_all(c->by_key, chain_free);
	free(c);
}

static struct unwind_file *lookup(struct unwind_files *c, uint64_t dev, uint64_t ino)
{
	for (struct unwind_file *f = u64map__get(c->by_key, key_of(dev, ino)); f; f = f->next)
		if (f->dev == dev && f->ino == ino)
			return f;
	return NULL;
}

static void insert(struct unwind_files *c, struct unwind_file *f)
{
	uint64_t k = key_of(f->dev, f->ino);

	f->next = u64map__get(c->by_key, k);
	u64map__put(c->by_key, k, f);
	c->count++;
}

/* A remembered failure: a file that is not usable is not mapped again. */
static struct unwind_file *failed(struct unwind_files *c, uint64_t dev, uint64_t ino, int err)
{
	struct unwind_file *f = xcalloc(1, sizeof(*f));

	f->dev = dev;
	f->ino = ino;
	insert(c, f);
	errno = err;
	return NULL;
}

struct unwind_file *unwind_files__find(struct unwind_files *c, uint64_t dev, uint64_t ino)
{
	struct unwind_file *f = dev || ino ? lookup(c, dev, ino) : NULL;

	return f && f->data ? f : NULL;
}

struct unwind_file *unwind_files__get_fd(struct unwind_files *c, int fd, uint64_t dev, uint64_t ino)
{
	struct unwind_file *f = lookup(c, dev, ino);
	struct stat st;
	void *p;

	if (f) {
		if (f->data)
			return f;
		errno = EINVAL;
		return NULL;
	}
	if (fstat(fd, &st) < 0)
		return NULL; /* not remembered: may work next time */
	if ((uint64_t)st.st_size > UNWIND_FILE_MAX)
		return failed(c, dev, ino, EFBIG);
	if (st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return failed(c, dev, ino, EINVAL);
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return failed(c, dev, ino, errno);
	f = xcalloc(1, sizeof(*f));
	f->data = p;
	f->size = (size_t)st.st_size;
	f->mapped = true;
	f->dev = dev;
	f->ino = ino;
	if (parse(f) < 0) {
		munmap(p, f->size);
		free(f);
		return failed(c, dev, ino, EINVAL);
	}
	insert(c, f);
	return f;
}

struct unwind_file *unwind_files__get_mem(struct unwind_files *c, const void *buf, size_t len,
					  const char *name)
{
	uint64_t dev = 0, ino = len;
	struct unwind_file *f;
	void *copy;

	/* "[vdso]": one image per kernel, the same in every process. */
	for (const char *s = name; *s; s++)
		dev = dev * 31 + (unsigned char)*s;
	f = lookup(c, dev, ino);
	if (f) {
		if (f->data)
			return f;
		errno = EINVAL;
		return NULL;
	}
	copy = xmalloc(len);
	memcpy(copy, buf, len);
	f = xcalloc(1, sizeof(*f));
	f->data = copy;
	f->size = len;
	f->owned = true;
	f->dev = dev;
	f->ino = ino;
	if (parse(f) < 0) {
		free(copy);
		free(f);
		return failed(c, dev, ino, EINVAL);
	}
	insert(c, f);
	return f;
}

size_t unwind_files__count(const struct unwind_files *c)
{
	return c->count;
}

void unwind_files__drop_pages(struct unwind_files *c)
{
	const struct unwind_file *f;
	size_t pos = 0;
	uint64_t key;

	while (u64map__next(c->by_key, &pos, &key, (void **)&f))
		for (; f; f = f->next)
			if (f->mapped && f->data)
				madvise((void *)f->data, f->size, MADV_DONTNEED);
}

int unwind_file__read(const struct unwind_file *f, uint64_t off, void *buf, size_t len)
{
	if (off > f->size || f->size - off < len)
		return -EFAULT;
	memcpy(buf, f->data + off, len);
	return 0;
}

int unwind_file__offset_to_vaddr(const struct unwind_file *f, uint64_t off, uint64_t *ret_vaddr)
{
	for (int i = 0; i < f->nr_loads; i++) {
		const struct load *l = &f->loads[i];

		/* A mapping starts page-aligned, at or below its segment's offset. */
		if (off >= (l->offset & ~0xfffull) && off < l->offset + l->filesz) {
			*ret_vaddr = off - l->offset + l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int unwind_file__table(const struct unwind_file *f, struct unwind_table *ret)
{
	if (!f->has_table)
		return -ENOENT;
	*ret = f->table;
	return 0;
}
