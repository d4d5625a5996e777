/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysprof: the loaded objects of the process. At start it records the
 * executable ranges (the signal handler's unwinder stops at an IP outside
 * them, i.e. in JIT-compiled code that has no CFI) and writes the C part of
 * the stream's symbol table: every function symbol of every object (ELF
 * .symtab, else .dynsym), plus "[object]" markers where an object has code
 * no symbol covers (stripped internals), so that parsers do not credit it to
 * the nearest exported function.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysprof_internal.h"

#define SP_OBJS_MAX 256

struct sp_obj {
	char *path;
	uintptr_t bias;
	struct sp_range text;
};

struct sp_objlist {
	struct sp_obj *v;
	int n;
};

static int objs_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sp_objlist *list = data;
	struct sp_range r = {0, 0};
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo, hi;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		lo = info->dlpi_addr + ph->p_vaddr;
		hi = lo + ph->p_memsz;
		if (sp.ntext < SP_TEXT_MAX)
			sp.text[sp.ntext++] = (struct sp_range){lo, hi};
		if ((uintptr_t)&objs_cb >= lo && (uintptr_t)&objs_cb < hi)
			sp.self = (struct sp_range){lo, hi};
		if ((uintptr_t)&lua_pcall >= lo && (uintptr_t)&lua_pcall < hi)
			sp.vmobj = (struct sp_range){lo, hi};
		if (!r.lo || lo < r.lo)
			r.lo = lo;
		if (hi > r.hi)
			r.hi = hi;
	}
	if (list && r.lo && list->n < SP_OBJS_MAX) {
		const char *name = info->dlpi_name;
		struct sp_obj *o = &list->v[list->n];

		if (!name || !*name)
			name = list->n == 0 ? "/proc/self/exe" : "";
		o->path = strdup(name);
		if (!o->path)
			return 1;
		o->bias = info->dlpi_addr;
		o->text = r;
		list->n++;
	}
	return 0;
}

void sp_objs_scan(void)
{
	sp.ntext = 0;
	sp.self = (struct sp_range){0, 0};
	sp.vmobj = (struct sp_range){0, 0};
	sp.entry = (uintptr_t)getauxval(AT_ENTRY);
	dl_iterate_phdr(objs_cb, NULL);
}

int sp_ip_known(uintptr_t ip)
{
	int i;

	for (i = 0; i < sp.ntext; i++)
		if (ip >= sp.text[i].lo && ip < sp.text[i].hi)
			return 1;
	return 0;
}

int sp_ip_self(uintptr_t ip)
{
	return ip >= sp.self.lo && ip < sp.self.hi;
}

/* --- ELF symbols ----------------------------------------------------------- */

struct sp_sym {
	uintptr_t addr, size;
	const char *name;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct sp_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void emit_cfunc(uintptr_t addr, const char *name)
{
	sp_wb_byte(1); /* SYMTAB_CFUNC */
	sp_wb_uleb(addr);
	sp_wb_str(name, strlen(name));
}

/* Collects the function symbols of one mapped ELF image (bounds-checked). */
static int elf_collect(const uint8_t *m, size_t size, uintptr_t bias, struct sp_sym **ret_v,
		       size_t *ret_n)
{
	const Elf64_Ehdr *eh = (const void *)m;
	const Elf64_Shdr *sh, *symsh = NULL, *strsh;
	struct sp_sym *v;
	size_t i, n, cnt = 0;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > size || (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return -EINVAL;
	sh = (const void *)(m + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			symsh = &sh[i];
	if (!symsh)
		for (i = 0; i < eh->e_shnum; i++)
			if (sh[i].sh_type == SHT_DYNSYM)
				symsh = &sh[i];
	if (!symsh || symsh->sh_link >= eh->e_shnum || symsh->sh_offset > size ||
	    symsh->sh_size > size - symsh->sh_offset)
		return -EINVAL;
	strsh = &sh[symsh->sh_link];
	if (strsh->sh_offset > size || strsh->sh_size > size - strsh->sh_offset)
		return -EINVAL;
	n = symsh->sh_size / sizeof(Elf64_Sym);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(m + symsh->sh_offset) + i;
		int type = ELF64_ST_TYPE(s->st_info);
		const char *name;

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
		    !s->st_value || s->st_name >= strsh->sh_size)
			continue;
		name = (const char *)m + strsh->sh_offset + s->st_name;
		if (!*name || !memchr(name, '\0', strsh->sh_size - s->st_name))
			continue;
		v[cnt++] = (struct sp_sym){bias + s->st_value, s->st_size, name};
	}
	qsort(v, cnt, sizeof(*v), sym_cmp);
	*ret_v = v;
	*ret_n = cnt;
	return 0;
}

static void dump_object(const struct sp_obj *o)
{
	const char *base = strrchr(o->path, '/');
	char marker[600];
	struct sp_sym *v = NULL;
	size_t n = 0, i;
	uintptr_t end = 0;
	struct stat st;
	void *m = MAP_FAILED;
	int fd;

	base = base ? base + 1 : o->path;
	if (!strcmp(o->path, "/proc/self/exe")) {
		static char exe[512];
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (len > 0) {
			exe[len] = '\0';
			base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		}
	}
	snprintf(marker, sizeof(marker), "[%s]", *base ? base : "unknown");
	emit_cfunc(o->text.lo, marker);

	fd = *o->path ? open(o->path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	if (m == MAP_FAILED)
		return;
	if (elf_collect(m, (size_t)st.st_size, o->bias, &v, &n) == 0) {
		for (i = 0; i < n; i++) {
			if (i && v[i].addr == v[i - 1].addr)
				continue;
			if (end && end < v[i].addr)
				emit_cfunc(end, marker);
			emit_cfunc(v[i].addr, v[i].name);
			end = v[i].size ? v[i].addr + v[i].size : 0;
		}
		if (end && end < o->text.hi)
			emit_cfunc(end, marker);
		free(v);
	}
	munmap(m, (size_t)st.st_size);
}

int sp_symtab_dump_cfuncs(void)
{
	struct sp_objlist list;
	int i, j;

	list.v = calloc(SP_OBJS_MAX, sizeof(*list.v));
	if (!list.v)
		return -ENOMEM;
	list.n = 0;
	sp.ntext = 0;
	dl_iterate_phdr(objs_cb, &list);
	for (i = 0; i < list.n; i++)
		dump_object(&list.v[i]);
	/* Code past the end of an object (JIT machine code) is "[anon]". */
	for (i = 0; i < list.n; i++) {
		int adjacent = 0;

		for (j = 0; j < list.n; j++)
			if (list.v[j].text.lo == list.v[i].text.hi)
				adjacent = 1;
		if (!adjacent)
			emit_cfunc(list.v[i].text.hi, "[anon]");
	}
	for (i = 0; i < list.n; i++)
		free(list.v[i].path);
	free(list.v);
	return 0;
}
