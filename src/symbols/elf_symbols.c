// SPDX-License-Identifier: GPL-2.0-only
/*
 * ELF symbol and layout reader over libelf (see elf_symbols.h). libelf is
 * driven in ELF_C_READ mode so section data is read on demand with pread,
 * and only for sections whose offset and size we have checked against the
 * file size first.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_symbols.h"
#include "util.h"

#define ELF_MAX_SECTIONS 65536u
#define ELF_MAX_SEGMENTS 256u
#define ELF_SIZE_MAX_SPAN (64u << 10) /* reach of a symbol without a size */

struct elf_segment {
	uint64_t offset, filesz, vaddr;
	bool exec;
};

struct elf_syms {
	struct elf_sym *syms;
	size_t nr;
	char *pool;
	enum elf_syms_table table;
	struct elf_segment segs[ELF_MAX_SEGMENTS];
	size_t nr_segs;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	char *debuglink;
	bool has_dwarf; /* a non-empty .debug_info */
};

/* What a read keeps besides the layout (segments, build-id, debuglink). */
enum read_mode {
	READ_LAYOUT,  /* nothing more */
	READ_EXPORTS, /* .dynsym's functions: what the file exports */
	READ_ALL,     /* .symtab's functions, else .dynsym's */
};

/* A symbol while the table is built: the name as a pool offset. */
struct sym_tmp {
	uint64_t addr, size;
	size_t name_off;
	uint32_t name_len;
	uint8_t rank;	     /* 0 global, 1 weak, 2 local: lower wins at equal addresses */
	uint8_t underscores; /* leading ones: fewer wins, as perf chooses */
};

struct syms_builder {
	struct sym_tmp *syms;
	size_t nr, cap;
	char *pool;
	size_t pool_len, pool_cap;
};

static bool range_ok(uint64_t off, uint64_t size, uint64_t file_size)
{
	return off <= file_size && size <= file_size - off;
}

static int read_segments(Elf *elf, struct elf_syms *es)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n && i < 65535; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -EINVAL;
		if (ph.p_type != PT_LOAD)
			continue;
		if (es->nr_segs >= ELF_MAX_SEGMENTS)
			return -E2BIG;
		es->segs[es->nr_segs].offset = ph.p_offset;
		es->segs[es->nr_segs].filesz = ph.p_filesz;
		es->segs[es->nr_segs].vaddr = ph.p_vaddr;
		es->segs[es->nr_segs].exec = ph.p_flags & PF_X;
		es->nr_segs++;
	}
	return 0;
}

/*
 * The header and program header tables must lie inside the file: libelf
 * quietly shows no sections when they do not, which would hide a cut file.
 */
static int check_tables(Elf *elf, uint64_t file_size)
{
	size_t shnum, phnum;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) || elf_getphdrnum(elf, &phnum))
		return -EINVAL;
	if (shnum > ELF_MAX_SECTIONS || phnum > 65535)
		return -E2BIG;
	if (eh.e_shoff || shnum) {
		if (eh.e_shentsize != gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT) || !shnum ||
		    !range_ok(eh.e_shoff, (uint64_t)shnum * eh.e_shentsize, file_size))
			return -EINVAL;
	}
	if (eh.e_phoff || phnum) {
		if (eh.e_phentsize != gelf_fsize(elf, ELF_T_PHDR, 1, EV_CURRENT) ||
		    !range_ok(eh.e_phoff, (uint64_t)phnum * eh.e_phentsize, file_size))
			return -EINVAL;
	}
	return 0;
}

/* Looks for the GNU build-id in one block of notes. */
static bool scan_notes(Elf_Data *data, struct elf_syms *es)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < data->d_size && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz <= ELF_BUILD_ID_MAX) {
			memcpy(es->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
			es->build_id_len = nh.n_descsz;
			return true;
		}
	}
	return false;
}

static void builder_free(struct syms_builder *b)
{
	free(b->syms);
	free(b->pool);
}

/*
 * The reach of a symbol without a size (_init, some assembly): up to the end
 * of its section, so it does not swallow the PLT or the next section.
 */
static uint64_t section_rest(Elf *elf, const GElf_Sym *sym, size_t shnum)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (sym->st_shndx >= shnum || sym->st_shndx >= SHN_LORESERVE)
		return 0;
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || sym->st_value < sh.sh_addr ||
	    sym->st_value - sh.sh_addr >= sh.sh_size)
		return 0;
	return sh.sh_addr + sh.sh_size - sym->st_value;
}

static int add_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, size_t shnum,
		       uint64_t file_size, struct syms_builder *b)
{
	Elf_Scn *str_scn;
	GElf_Shdr str_sh;
	Elf_Data *data;
	size_t count;

	if (sh->sh_entsize != gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT) || !sh->sh_entsize)
		return -EINVAL;
	if (sh->sh_link == 0 || sh->sh_link >= shnum)
		return -EINVAL;
	str_scn = elf_getscn(elf, sh->sh_link);
	if (!str_scn || !gelf_getshdr(str_scn, &str_sh) || str_sh.sh_type != SHT_STRTAB)
		return -EINVAL;
	if (!range_ok(str_sh.sh_offset, str_sh.sh_size, file_size) ||
	    str_sh.sh_size > ELF_SYMS_STRTAB_MAX)
		return -EINVAL;
	count = sh->sh_size / sh->sh_entsize;
	data = elf_getdata(scn, NULL);
	if (!data || data->d_size / sh->sh_entsize < count)
		return -EINVAL;
	for (size_t i = 1; i < count; i++) {
		const char *name;
		GElf_Sym sym;
		size_t len;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &sym))
			return -EINVAL;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (b->nr >= ELF_SYMS_MAX)
			return -E2BIG;
		len = strnlen(name, ELF_SYM_NAME_MAX - 1);
		xgrow((void **)&b->syms, &b->cap, b->nr + 1, sizeof(*b->syms));
		xgrow((void **)&b->pool, &b->pool_cap, b->pool_len + len + 1, 1);
		memcpy(b->pool + b->pool_len, name, len);
		b->pool[b->pool_len + len] = '\0';
		b->syms[b->nr].addr = sym.st_value;
		b->syms[b->nr].size = sym.st_size ? sym.st_size : section_rest(elf, &sym, shnum);
		b->syms[b->nr].name_off = b->pool_len;
		b->syms[b->nr].rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
		b->syms[b->nr].name_len = (uint32_t)len;
		b->syms[b->nr].underscores = (uint8_t)strspn(name, "_");
		b->pool_len += len + 1;
		b->nr++;
	}
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym_tmp *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->underscores != y->underscores)
		return x->underscores < y->underscores ? -1 : 1;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return x->name_off < y->name_off ? -1 : (x->name_off > y->name_off);
}

static void finish_symbols(struct elf_syms *es, struct syms_builder *b)
{
	size_t n = 0;

	if (b->nr)
		qsort(b->syms, b->nr, sizeof(*b->syms), cmp_sym);
	es->pool = b->pool ? b->pool : xstrdup("");
	es->syms = xcalloc(b->nr ? b->nr : 1, sizeof(*es->syms));
	for (size_t i = 0; i < b->nr; i++) {
		if (n && es->syms[n - 1].addr == b->syms[i].addr)
			continue; /* an alias: the preferred name sorted first */
		es->syms[n].addr = b->syms[i].addr;
		es->syms[n].size = b->syms[i].size;
		es->syms[n].name = es->pool + b->syms[i].name_off;
		n++;
	}
	es->nr = n;
	free(b->syms);
	b->syms = NULL;
	b->pool = NULL;
}

static int read_elf(Elf *elf, uint64_t file_size, enum read_mode mode, struct elf_syms *es)
{
	struct syms_builder b = {0};
	Elf_Scn *symtab = NULL, *dynsym = NULL, *scn = NULL;
	GElf_Shdr symtab_sh = {0}, dynsym_sh = {0};
	size_t shnum, shstrndx;
	int err;

	if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) == ELFCLASSNONE)
		return -EINVAL;
	err = check_tables(elf, file_size);
	if (err)
		return err;
	err = read_segments(elf, es);
	if (err)
		return err;
	if (elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx))
		return -EINVAL;
	if (shnum > ELF_MAX_SECTIONS)
		return -E2BIG;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL)
			continue;
		if (!range_ok(sh.sh_offset, sh.sh_size, file_size))
			return -EINVAL; /* lies about its size: a malformed file */
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		} else if (sh.sh_type == SHT_NOTE && !es->build_id_len && sh.sh_size <= 65536) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d)
				scan_notes(d, es);
		} else if (sh.sh_type == SHT_PROGBITS && !es->has_dwarf && sh.sh_size &&
			   shstrndx < shnum && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			   !strcmp(name, ".debug_info")) {
			es->has_dwarf = true;
		} else if (sh.sh_type == SHT_PROGBITS && !es->debuglink && sh.sh_size >= 8 &&
			   sh.sh_size <= 4096 && shstrndx < shnum &&
			   (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			   !strcmp(name, ".gnu_debuglink")) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d && d->d_size >= 8 && memchr(d->d_buf, '\0', d->d_size - 4))
				es->debuglink = xstrdup(d->d_buf);
		}
	}
	/* No note sections (stripped headers): try PT_NOTE segments. */
	if (!es->build_id_len) {
		size_t n;

		if (!elf_getphdrnum(elf, &n)) {
			for (size_t i = 0; i < n && i < 65535 && !es->build_id_len; i++) {
				GElf_Phdr ph;
				Elf_Data *d;

				if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
				    !range_ok(ph.p_offset, ph.p_filesz, file_size) ||
				    ph.p_filesz > 65536)
					continue;
				d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
							 ELF_T_NHDR);
				if (d)
					scan_notes(d, es);
			}
		}
	}
	if (mode == READ_LAYOUT || (mode == READ_EXPORTS && !dynsym)) {
		es->pool = xstrdup("");
		es->syms = xcalloc(1, sizeof(*es->syms));
		return 0;
	}
	if (mode == READ_EXPORTS)
		symtab = NULL; /* a file's exports are its dynamic symbols */
	if (symtab) {
		err = add_symbols(elf, symtab, &symtab_sh, shnum, file_size, &b);
		es->table = ELF_TABLE_SYMTAB;
	}
	if ((!symtab || err) && dynsym) {
		builder_free(&b);
		memset(&b, 0, sizeof(b));
		err = add_symbols(elf, dynsym, &dynsym_sh, shnum, file_size, &b);
		es->table = ELF_TABLE_DYNSYM;
	}
	if (err) {
		builder_free(&b);
		return err;
	}
	if (!symtab && !dynsym)
		es->table = ELF_TABLE_NONE;
	finish_symbols(es, &b);
	return 0;
}

static struct elf_syms *from_elf(Elf *elf, uint64_t file_size, enum read_mode mode)
{
	struct elf_syms *es;
	int err;

	if (!elf) {
		errno = EINVAL;
		return NULL;
	}
	es = xcalloc(1, sizeof(*es));
	err = read_elf(elf, file_size, mode, es);
	elf_end(elf);
	if (err) {
		elf_syms__free(es);
		errno = -err;
		return NULL;
	}
	return es;
}

static struct elf_syms *from_fd(int fd, enum read_mode mode)
{
	struct stat st;

	if (fstat(fd, &st))
		return NULL;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return NULL;
	}
	elf_version(EV_CURRENT);
	return from_elf(elf_begin(fd, ELF_C_READ, NULL), (uint64_t)st.st_size, mode);
}

struct elf_syms *elf_syms__from_fd(int fd)
{
	return from_fd(fd, READ_ALL);
}

struct elf_syms *elf_syms__layout_from_fd(int fd)
{
	return from_fd(fd, READ_LAYOUT);
}

struct elf_syms *elf_syms__exports_from_fd(int fd)
{
	return from_fd(fd, READ_EXPORTS);
}

struct elf_syms *elf_syms__from_path(const char *path)
{
	struct elf_syms *es;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	es = elf_syms__from_fd(fd);
	err = errno;
	close(fd);
	errno = err;
	return es;
}

struct elf_syms *elf_syms__from_mem(const void *buf, size_t len)
{
	struct elf_syms *es;
	char *copy;
	int err;

	if (!len || len > (64u << 20)) {
		errno = len ? E2BIG : EINVAL;
		return NULL;
	}
	copy = xmalloc(len);
	memcpy(copy, buf, len);
	elf_version(EV_CURRENT);
	es = from_elf(elf_memory(copy, len), len, READ_ALL);
	err = errno;
	free(copy);
	errno = err;
	return es;
}

void elf_syms__free(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->syms);
	free(es->pool);
	free(es->debuglink);
	free(es);
}

const struct elf_sym *elf_syms__find(const struct elf_syms *es, uint64_t vaddr)
{
	const struct elf_sym *s;
	size_t lo;

	if (!es || !es->nr)
		return NULL;
	lo = upper_bound_u64(es->syms, es->nr, sizeof(*es->syms), offsetof(struct elf_sym, addr),
			     vaddr);
	if (!lo)
		return NULL;
	s = &es->syms[lo - 1];
	if (s->size ? vaddr - s->addr >= s->size : vaddr - s->addr >= ELF_SIZE_MAX_SPAN)
		return NULL;
	return s;
}

const struct elf_sym *elf_syms__by_name(const struct elf_syms *es, const char *name)
{
	for (size_t i = 0; es && i < es->nr; i++)
		if (!strcmp(es->syms[i].name, name))
			return &es->syms[i];
	return NULL;
}

size_t elf_syms__count(const struct elf_syms *es)
{
	return es ? es->nr : 0;
}

enum elf_syms_table elf_syms__table(const struct elf_syms *es)
{
	return es ? es->table : ELF_TABLE_NONE;
}

int elf_syms__offset_to_vaddr(const struct elf_syms *es, uint64_t offset, uint64_t *ret_vaddr)
{
	const struct elf_segment *best = NULL;

	/* Segments may share a page in the file: prefer the executable one. */
	for (size_t i = 0; i < es->nr_segs; i++) {
		const struct elf_segment *s = &es->segs[i];

		if (offset >= s->offset && offset - s->offset < s->filesz &&
		    (!best || (s->exec && !best->exec)))
			best = s;
	}
	if (!best)
		return -ENOENT;
	*ret_vaddr = best->vaddr + (offset - best->offset);
	return 0;
}

const uint8_t *elf_syms__build_id(const struct elf_syms *es, size_t *ret_len)
{
	*ret_len = es->build_id_len;
	return es->build_id_len ? es->build_id : NULL;
}

size_t elf_syms__build_id_hex(const struct elf_syms *es, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (!len)
		return 0;
	for (size_t i = 0; i < es->build_id_len && n + 2 < len; i++) {
		buf[n++] = hex[es->build_id[i] >> 4];
		buf[n++] = hex[es->build_id[i] & 15];
	}
	buf[n] = '\0';
	return n;
}

const char *elf_syms__debuglink(const struct elf_syms *es)
{
	return es->debuglink;
}

bool elf_syms__has_dwarf(const struct elf_syms *es)
{
	return es->has_dwarf;
}
