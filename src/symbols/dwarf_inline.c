// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inline chains from DWARF (see dwarf_inline.h): the compile unit covering
 * the address (.debug_aranges, or a scan of the units when a file has
 * none), then one walk down its DIE tree through the scopes whose code
 * covers the address, keeping the DW_TAG_inlined_subroutine ones below the
 * function (dwarf_getscopes would read the unit twice: ~4x slower).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bg_jobs.h"
#include "demangle.h"
#include "dwarf_inline.h"
#include "u64map.h"
#include "util.h"

#define NAME_MAX_LEN 1024u
#define SCAN_UNITS_MAX 65536u	/* units scanned for a file without .debug_aranges */
#define WALK_STEPS_MAX 1000000u /* DIEs read for one address: a bound on hostile files */
#define WALK_DEPTH_MAX 256u

/* A cached answer: nr names, their strings after the array. */
struct chain {
	size_t nr;
	const char *names[];
};

static struct chain no_chain; /* the cached "nothing inlined here" */

struct dwarf_inline {
	/* Set by the open job (open_job), read once it has run. */
	int fd;	    /* -1 until opened, and again once the file is mapped */
	char *path; /* to open; NULL when given an fd */
	bool scan;  /* no .debug_aranges: find units by scanning */
	Elf *elf;   /* the whole file, mapped */
	Dwarf *dw;
	struct bg_jobs *jobs; /* where the open runs ahead of the first look-up */
	struct bg_job open;
	struct u64map *cache; /* vaddr -> struct chain (or &no_chain) */
	struct u64map *lines; /* vaddr -> struct src_line */
};

/* A cached source line: file lives as long as dw (libdw's line table). */
struct src_line {
	const char *file; /* NULL: no line there */
	unsigned line;
};

static void open_job(struct bg_job *job);

static struct dwarf_inline *alloc(int fd, const char *path)
{
	struct dwarf_inline *di = xcalloc(1, sizeof(*di));

	elf_version(EV_CURRENT); /* libelf's global: set here, on the loop, not by the job */
	di->fd = fd;
	di->path = path ? xstrdup(path) : NULL;
	di->cache = u64map__new();
	di->lines = u64map__new();
	return di;
}

/* The loop is done with the handle's file fields: the job has them now. */
static void queue_open(struct dwarf_inline *di, struct bg_jobs *jobs)
{
	di->jobs = jobs;
	di->open.run = open_job;
	bg_jobs__submit(jobs, &di->open);
}

/*
 * Maps the file whole and lets its fd go: a cached file must not hold an fd
 * for the whole session (one per binary with DWARF met, looked up or not).
 */
static void map_file(struct dwarf_inline *di)
{
	di->elf = elf_begin(di->fd, ELF_C_READ_MMAP, NULL);
	if (di->elf && elf_cntl(di->elf, ELF_C_FDDONE) == 0) {
		close(di->fd);
		di->fd = -1;
	}
}

struct dwarf_inline *dwarf_inline__from_fd(int fd, struct bg_jobs *jobs)
{
	struct dwarf_inline *di = alloc(fd, NULL);

	if (fd >= 0) /* mapped here (headers only: cheap), so that fd goes at once */
		map_file(di);
	queue_open(di, jobs);
	return di;
}

struct dwarf_inline *dwarf_inline__from_path(const char *path, struct bg_jobs *jobs)
{
	struct dwarf_inline *di = alloc(-1, path);

	queue_open(di, jobs);
	return di;
}

void dwarf_inline__free(struct dwarf_inline *di)
{
	size_t pos = 0;
	uint64_t key;
	void *val;

	if (!di)
		return;
	bg_jobs__cancel(di->jobs, &di->open);
	while (u64map__next(di->cache, &pos, &key, &val))
		if (val != &no_chain)
			free(val);
	u64map__free(di->cache);
	u64map__free_all(di->lines, free);
	if (di->dw)
		dwarf_end(di->dw);
	if (di->elf)
		elf_end(di->elf);
	if (di->fd >= 0)
		close(di->fd);
	free(di->path);
	free(di);
}

/*
 * Maps the file and reads its DWARF: libdw inflates every compressed debug
 * section here (libc's debug file: ~40 ms, a big C++ binary's: seconds),
 * so it runs on the jobs' worker from the moment the file is met, not on
 * the loop at its first look-up.
 */
static void open_job(struct bg_job *job)
{
	struct dwarf_inline *di =
		(struct dwarf_inline *)((char *)job - offsetof(struct dwarf_inline, open));
	Dwarf_Aranges *ar;
	size_t nr = 0;

	if (!di->elf && di->fd < 0 && di->path) {
		di->fd = open(di->path, O_RDONLY | O_CLOEXEC);
		if (di->fd >= 0)
			map_file(di);
	}
	if (di->elf)
		di->dw = dwarf_begin_elf(di->elf, DWARF_C_READ, NULL);
	if (di->dw)
		di->scan = dwarf_getaranges(di->dw, &ar, &nr) != 0 || nr == 0;
}

static bool open_dwarf(struct dwarf_inline *di)
{
	bg_jobs__wait(di->jobs, &di->open);
	return di->dw != NULL;
}

/* The compile unit whose code covers vaddr. */
static bool unit_of(struct dwarf_inline *di, uint64_t vaddr, Dwarf_Die *ret)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	unsigned n = 0;

	if (!di->scan)
		return dwarf_addrdie(di->dw, vaddr, ret) != NULL;
	while (n++ < SCAN_UNITS_MAX &&
	       !dwarf_nextcu(di->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(di->dw, off + hsize, ret) && dwarf_haspc(ret, vaddr) == 1)
			return true;
		off = next;
	}
	return false;
}

/* The name to show for a function DIE: the demangled linkage name, else its name. */
static const char *die_name(Dwarf_Die *die, char *buf, size_t len)
{
	Dwarf_Attribute attr;
	const char *name = NULL, *pretty;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (name && (pretty = demangle(name, buf, len)))
		return pretty;
	name = dwarf_diename(die);
	return name ? name : "[inlined]";
}

/* A chain of the names of DIEs dies[0..nr), outermost first. */
static struct chain *new_chain(Dwarf_Die **dies, size_t nr)
{
	char bufs[DWARF_INLINE_DEPTH_MAX][NAME_MAX_LEN];
	const char *names[DWARF_INLINE_DEPTH_MAX];
	size_t total = 0;
	struct chain *c;
	char *at;

	for (size_t i = 0; i < nr; i++) {
		names[i] = die_name(dies[i], bufs[i], sizeof(bufs[i]));
		total += strnlen(names[i], NAME_MAX_LEN) + 1;
	}
	c = xmalloc(sizeof(*c) + nr * sizeof(c->names[0]) + total);
	c->nr = nr;
	at = (char *)&c->names[nr];
	for (size_t i = 0; i < nr; i++) {
		size_t len = strnlen(names[i], NAME_MAX_LEN);

		memcpy(at, names[i], len);
		at[len] = '\0';
		c->names[i] = at;
		at += len + 1;
	}
	return c;
}

struct walk {
	uint64_t vaddr;
	Dwarf_Die *inlined; /* outermost first */
	size_t nr, cap;
	unsigned steps; /* DIEs read: bounded, against hostile files */
};

/*
 * Looks among parent's children for the scope whose code covers the
 * address and goes down into it, noting the inlined subroutines below the
 * function; namespaces (no ranges of their own) are searched and left if
 * the code is not in them. Each level's siblings are read once, so the cost
 * is the path's width, not the unit's size (dwarf_getscopes then
 * dwarf_getscopes_die read the unit twice: ~4x slower on libc).
 */
static bool walk(struct walk *w, Dwarf_Die *parent, bool in_function, unsigned depth)
{
	Dwarf_Die child;

	if (depth > WALK_DEPTH_MAX || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (++w->steps > WALK_STEPS_MAX)
			return false;
		if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			if (!in_function && walk(w, &child, false, depth + 1))
				return true;
			continue;
		}
		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_lexical_block)
			continue;
		if ((tag == DW_TAG_subprogram) == in_function || dwarf_haspc(&child, w->vaddr) != 1)
			continue; /* nested subprograms are declarations, not this code */
		if (tag == DW_TAG_inlined_subroutine) {
			if (w->nr == w->cap) /* the cap: the outermost levels stay */
				return true;
			w->inlined[w->nr++] = child;
		}
		walk(w, &child, true, depth + 1);
		return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static const struct chain *lookup(struct dwarf_inline *di, uint64_t vaddr)
{
	Dwarf_Die cu, inlined[DWARF_INLINE_DEPTH_MAX];
	Dwarf_Die *ptrs[DWARF_INLINE_DEPTH_MAX];
	struct walk w = {0};
	size_t nr;

	if (!open_dwarf(di) || !unit_of(di, vaddr, &cu))
		return &no_chain;
	w.inlined = inlined;
	w.cap = DWARF_INLINE_DEPTH_MAX;
	w.vaddr = vaddr;
	walk(&w, &cu, false, 0);
	nr = w.nr;
	if (!nr)
		return &no_chain;
	for (size_t i = 0; i < nr; i++)
		ptrs[i] = &inlined[i];
	return new_chain(ptrs, nr);
}

size_t dwarf_inline__find(struct dwarf_inline *di, uint64_t vaddr, const char *const **ret)
{
	const struct chain *c;

	*ret = NULL;
	if (!di)
		return 0;
	c = u64map__get(di->cache, vaddr);
	if (!c) {
		c = lookup(di, vaddr);
		u64map__put(di->cache, vaddr, (void *)c);
	}
	*ret = c->nr ? c->names : NULL;
	return c->nr;
}

unsigned dwarf_inline__line(struct dwarf_inline *di, uint64_t vaddr, const char **ret_file)
{
	struct src_line *sl;
	Dwarf_Line *dl;
	Dwarf_Die cu;
	int n;

	*ret_file = NULL;
	if (!di)
		return 0;
	sl = u64map__get(di->lines, vaddr);
	if (!sl) {
		sl = xcalloc(1, sizeof(*sl));
		if (open_dwarf(di) && unit_of(di, vaddr, &cu) &&
		    (dl = dwarf_getsrc_die(&cu, vaddr)) && dwarf_lineno(dl, &n) == 0 && n > 0) {
			sl->file = dwarf_linesrc(dl, NULL, NULL);
			sl->line = sl->file ? (unsigned)n : 0;
		}
		u64map__put(di->lines, vaddr, sl);
	}
	*ret_file = sl->file;
	return sl->line;
}
