// SPDX-License-Identifier: GPL-2.0-only
/* The LuaJIT part of the BPF source (see bpf_luajit.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_luajit.h"
#include "luajit.skel.h"
#include "threadtop/luajit_probe.h"
#include "sysprof_lib.h"
#include "util.h"

struct bpf_luajit {
	struct luajit_bpf *skel;
	struct bpf_link *links[LJ_LIB_MAX_PATHS];
	size_t nr_links;
	char path[PATH_MAX];
};

/* Looks name up in one symbol table section; file offset or -ENOENT. */
static long find_in(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *s;
		Elf_Scn *target;
		GElf_Shdr tsh;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		s = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!s || strcmp(s, name) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE)
			continue;
		target = elf_getscn(elf, sym.st_shndx);
		if (!target || !gelf_getshdr(target, &tsh) || tsh.sh_type == SHT_NOBITS)
			return -ENOEXEC; /* .bss: not in the file, no reference counter possible */
		return (long)(sym.st_value - tsh.sh_addr + tsh.sh_offset);
	}
	return -ENOENT;
}

long elf_symbol_file_offset(const char *path, const char *name)
{
	Elf_Scn *scn = NULL;
	long off = -ENOENT;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		close(fd);
		return -ENOEXEC;
	}
	while (off == -ENOENT && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB))
			off = find_in(elf, scn, &sh, name);
	}
	elf_end(elf);
	close(fd);
	return off;
}

static int reuse(struct bpf_map *map, struct bpf_object *first)
{
	struct bpf_map *shared = bpf_object__find_map_by_name(first, bpf_map__name(map));

	return shared ? bpf_map__reuse_fd(map, bpf_map__fd(shared)) : -ENOENT;
}

struct bpf_luajit *bpf_luajit__new(struct bpf_object *first, int self_pid, bool filter_tgids,
				   char *err, size_t errlen)
{
	char paths[LJ_LIB_MAX_PATHS][PATH_MAX];
	struct bpf_luajit *lj;
	int n = lj_lib_paths(paths, LJ_LIB_MAX_PATHS), e;
	struct luajit_bpf *s;

	if (n < 1) {
		snprintf(err, errlen,
			 "LuaJIT: %s not found next to threadtop or in the install prefix (set "
			 "THREADTOP_SYSPROF_LIB): no LuaJIT samples",
			 LJ_LIB_NAME);
		errno = ENOENT;
		return NULL;
	}
	lj = xcalloc(1, sizeof(*lj));
	s = lj->skel = luajit_bpf__open();
	if (!s) {
		e = -errno;
		snprintf(err, errlen, "LuaJIT: cannot open bpf/luajit.bpf.c: %s", strerror(-e));
		goto fail;
	}
	s->rodata->tt_self_tgid = (__u32)self_pid;
	s->rodata->tt_filter_tgids = filter_tgids;
	s->rodata->tt_wakeup_bytes = 1 << 20;
	e = reuse(s->maps.tt_events, first) ?: reuse(s->maps.tt_drops, first) ?:
	    reuse(s->maps.tt_tgids, first) ?: reuse(s->maps.tt_stack_ids, first) ?:
	    reuse(s->maps.tt_counters, first);
	if (!e && luajit_bpf__load(s))
		e = -errno;
	if (e) {
		snprintf(err, errlen, "LuaJIT: cannot load bpf/luajit.bpf.c: %s", strerror(-e));
		goto fail;
	}
	e = -ENOENT;
	for (int i = 0; i < n; i++) {
		long ref = elf_symbol_file_offset(paths[i], TT_LJ_PROBE_SEMAPHORE_NAME);
		DECLARE_LIBBPF_OPTS(bpf_uprobe_opts, o);
		struct bpf_link *l;

		o.func_name = TT_LJ_PROBE_FUNC_NAME;
		if (ref < 0) {
			e = (int)ref;
			snprintf(err, errlen, "LuaJIT: %s has no %s: %s (an older library?)",
				 paths[i], TT_LJ_PROBE_SEMAPHORE_NAME, strerror(-e));
			continue;
		}
		o.ref_ctr_offset = (size_t)ref;
		l = bpf_program__attach_uprobe_opts(s->progs.tt_luajit_probe, -1, paths[i], 0, &o);
		if (!l) {
			e = -errno;
			snprintf(err, errlen, "LuaJIT: cannot attach a uprobe to %s in %s: %s",
				 TT_LJ_PROBE_FUNC_NAME, paths[i], strerror(-e));
			continue;
		}
		if (!lj->nr_links)
			snprintf(lj->path, sizeof(lj->path), "%s", paths[i]);
		lj->links[lj->nr_links++] = l;
	}
	if (!lj->nr_links)
		goto fail;
	return lj;
fail:
	bpf_luajit__free(lj);
	errno = -e;
	return NULL;
}

void bpf_luajit__free(struct bpf_luajit *lj)
{
	if (!lj)
		return;
	for (size_t i = 0; i < lj->nr_links; i++)
		bpf_link__destroy(lj->links[i]);
	luajit_bpf__destroy(lj->skel);
	free(lj);
}
