// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared cache of mapped files and their symbols (see dso_cache.h). A look-up
 * reads only the file's layout and build-id (cheap) to form the key; the
 * symbol tables are read once per key.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bg_jobs.h"
#include "dso_cache.h"
#include "dwarf_inline.h"
#include "u64map.h"
#include "util.h"

struct dso {
	struct dso *next; /* same hash */
	uint64_t dev, ino;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	struct elf_syms *layout; /* the mapped file: segments, build-id */
	struct elf_syms *syms;	 /* symbols: the mapped file's or its debug file's */
	bool debuginfo;
	struct dwarf_inline *dwarf; /* NULL when the file has no DWARF */
	uint64_t sweep;		    /* the last dso__mark's */
	char build_id_hex[2 * ELF_BUILD_ID_MAX + 1];
	char name[];
};

struct dso_cache {
	struct u64map *by_key;
	char *debug_root;
	struct bg_jobs *jobs; /* DWARF opened ahead of the first look-up */
	struct dso_cache_stats stats;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static uint64_t key_hash(uint64_t dev, uint64_t ino, const uint8_t *bid, size_t bid_len)
{
	uint64_t h = mix(mix(0, dev), ino);

	for (size_t i = 0; i < bid_len; i++)
		h = mix(h, bid[i]);
	return h;
}

struct dso_cache *dso_cache__new(const char *debug_root)
{
	struct dso_cache *c = xcalloc(1, sizeof(*c));

	c->by_key = u64map__new();
	c->debug_root = xstrdup(debug_root ? debug_root : "/usr/lib/debug");
	c->jobs = bg_jobs__new();
	return c;
}

static void dso_free(struct dso *d)
{
	if (d->syms != d->layout)
		elf_syms__free(d->syms);
	elf_syms__free(d->layout);
	dwarf_inline__free(d->dwarf); /* cancels its DWARF's open job */
	free(d);
}

/* Frees one key's chain of files. */
static void chain_free(void *head)
{
	for (struct dso *d = head, *next; d; d = next) {
		next = d->next;
		dso_free(d);
	}
}

void dso_cache__free(struct dso_cache *c)
{
	if (!c)
		return;
	u64map__free_all(c->by_key, chain_free);
	bg_jobs__free(c->jobs);
	free(c->debug_root);
	free(c);
}

static struct dso *find(struct dso_cache *c, uint64_t h, uint64_t dev, uint64_t ino,
			const uint8_t *bid, size_t bid_len)
{
	for (struct dso *d = u64map__get(c->by_key, h); d; d = d->next)
		if (d->dev == dev && d->ino == ino && d->build_id_len == bid_len &&
		    (!bid_len || !memcmp(d->build_id, bid, bid_len))) /* no build-id: bid NULL */
			return d;
	return NULL;
}

/* A debug file at path is usable if it has a .symtab and the same build-id. */
static struct elf_syms *try_debug(const char *path, const struct elf_syms *layout)
{
	const uint8_t *want, *got;
	size_t want_len, got_len;
	struct elf_syms *es;

	es = elf_syms__from_path(path);
	if (!es)
		return NULL;
	want = elf_syms__build_id(layout, &want_len);
	got = elf_syms__build_id(es, &got_len);
	if (elf_syms__table(es) != ELF_TABLE_SYMTAB || !elf_syms__count(es) ||
	    (want && (got_len != want_len || memcmp(want, got, want_len)))) {
		elf_syms__free(es);
		return NULL;
	}
	return es;
}

/* The debug file of the file at path (its name into p, PATH_MAX bytes), or NULL. */
static struct elf_syms *find_debug(struct dso_cache *c, const struct elf_syms *layout,
				   const char *path, const char *root, char *p)
{
	char bid[2 * ELF_BUILD_ID_MAX + 1], dir[PATH_MAX];
	const char *link, *slash;
	struct elf_syms *es = NULL;

	if (!*c->debug_root)
		return NULL;
	if (elf_syms__build_id_hex(layout, bid, sizeof(bid)) > 2) {
		if (root) {
			snprintf(p, PATH_MAX, "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, bid,
				 bid + 2);
			es = try_debug(p, layout);
		}
		if (!es) {
			snprintf(p, PATH_MAX, "%s/.build-id/%.2s/%s.debug", c->debug_root, bid,
				 bid + 2);
			es = try_debug(p, layout);
		}
		if (es)
			return es;
	}
	link = elf_syms__debuglink(layout);
	slash = strrchr(path, '/');
	if (!link || strchr(link, '/') || !strcmp(link, "..") || !slash || path[0] != '/')
		return NULL;
	if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path) >= (int)sizeof(dir))
		return NULL;
	if (root) {
		if (snprintf(p, PATH_MAX, "%s%s/%s", root, dir, link) < (int)PATH_MAX &&
		    strcmp(p + strlen(root), path)) /* never the file itself */
			es = try_debug(p, layout);
		if (!es && snprintf(p, PATH_MAX, "%s%s/.debug/%s", root, dir, link) < (int)PATH_MAX)
			es = try_debug(p, layout);
	}
	if (!es && snprintf(p, PATH_MAX, "%s%s/%s", c->debug_root, dir, link) < (int)PATH_MAX)
		es = try_debug(p, layout);
	return es;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static struct dso *insert(struct dso_cache *c, uint64_t h, uint64_t dev, uint64_t ino,
			  struct elf_syms *layout, struct elf_syms *syms, const char *name)
{
	size_t name_len = strlen(name);
	const uint8_t *bid;
	struct dso *d;

	d = xcalloc(1, sizeof(*d) + name_len + 1);
	memcpy(d->name, name, name_len + 1);
	d->dev = dev;
	d->ino = ino;
	bid = elf_syms__build_id(layout, &d->build_id_len);
	if (bid)
		memcpy(d->build_id, bid, d->build_id_len);
	elf_syms__build_id_hex(layout, d->build_id_hex, sizeof(d->build_id_hex));
	d->layout = layout;
	d->syms = syms;
	d->debuginfo = syms != layout;
	d->next = u64map__get(c->by_key, h);
	u64map__put(c->by_key, h, d);
	c->stats.files++;
	if (d->debuginfo)
		c->stats.debug_files++;
	return d;
}

struct dso *dso_cache__get_fd(struct dso_cache *c, int fd, uint64_t dev, uint64_t ino,
			      const char *path, const char *root)
{
	struct elf_syms *layout, *full, *debug = NULL;
	char debug_path[PATH_MAX];
	const uint8_t *bid;
	size_t bid_len;
	struct dso *d;
	uint64_t h;

	layout = elf_syms__layout_from_fd(fd);
	if (!layout)
		return NULL;
	bid = elf_syms__build_id(layout, &bid_len);
	h = key_hash(dev, ino, bid, bid_len);
	d = find(c, h, dev, ino, bid, bid_len);
	if (d) {
		elf_syms__free(layout);
		return d;
	}
	elf_syms__free(layout);
	full = elf_syms__from_fd(fd);
	if (!full)
		return NULL;
	if (elf_syms__table(full) != ELF_TABLE_SYMTAB)
		debug = find_debug(c, full, path, root, debug_path);
	d = insert(c, h, dev, ino, full, debug ? debug : full, base_name(path));
	/* Inline chains need DWARF: nothing is opened for a file without it. */
	if (debug && elf_syms__has_dwarf(debug)) {
		d->dwarf = dwarf_inline__from_path(debug_path, c->jobs);
	} else if (!debug && elf_syms__has_dwarf(full)) {
		int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);

		if (dup_fd >= 0)
			d->dwarf = dwarf_inline__from_fd(dup_fd, c->jobs);
	}
	if (d->dwarf)
		c->stats.dwarf_files++;
	return d;
}

struct dso *dso_cache__find_file(const struct dso_cache *c, uint64_t dev, uint64_t ino)
{
	struct dso *found = NULL;
	size_t pos = 0;
	uint64_t key;
	void *head;

	if (!dev) /* no file: images in memory (the vdso) have device 0 */
		return NULL;
	while (u64map__next(c->by_key, &pos, &key, &head))
		for (struct dso *d = head; d; d = d->next) {
			if (d->dev != dev || d->ino != ino)
				continue;
			if (found)
				return NULL; /* rewritten in place: which one was mapped? */
			found = d;
		}
	return found;
}

struct dso *dso_cache__get_mem(struct dso_cache *c, const void *buf, size_t len, const char *name)
{
	struct elf_syms *es;
	const uint8_t *bid;
	size_t bid_len;
	struct dso *d;
	uint64_t h;

	es = elf_syms__from_mem(buf, len);
	if (!es)
		return NULL;
	bid = elf_syms__build_id(es, &bid_len);
	h = key_hash(0, len, bid, bid_len);
	d = find(c, h, 0, len, bid, bid_len);
	if (d) {
		elf_syms__free(es);
		return d;
	}
	return insert(c, h, 0, len, es, es, name);
}

int dso__lookup(const struct dso *d, uint64_t off, const struct elf_sym **ret_sym,
		uint64_t *ret_vaddr)
{
	uint64_t vaddr;

	*ret_sym = NULL;
	if (elf_syms__offset_to_vaddr(d->layout, off, &vaddr)) {
		*ret_vaddr = off;
		return -ENOENT;
	}
	*ret_sym = elf_syms__find(d->syms, vaddr);
	*ret_vaddr = vaddr;
	return 0;
}

size_t dso__inlined(struct dso *d, uint64_t vaddr, const char *const **ret)
{
	*ret = NULL;
	return d->dwarf ? dwarf_inline__find(d->dwarf, vaddr, ret) : 0;
}

unsigned dso__line(struct dso *d, uint64_t vaddr, const char **ret_file)
{
	*ret_file = NULL;
	return d->dwarf ? dwarf_inline__line(d->dwarf, vaddr, ret_file) : 0;
}

const char *dso__name(const struct dso *d)
{
	return d->name;
}

bool dso__debuginfo(const struct dso *d)
{
	return d->debuginfo;
}

const char *dso__build_id(const struct dso *d)
{
	return d->build_id_hex;
}

void dso__mark(struct dso *d, uint64_t sweep)
{
	d->sweep = sweep;
}

size_t dso_cache__sweep(struct dso_cache *c, uint64_t sweep)
{
	size_t pos = 0, freed = 0;
	struct dso *head;
	uint64_t key;

	while (u64map__next(c->by_key, &pos, &key, (void **)&head)) {
		struct dso *keep = NULL, **tail = &keep;

		for (struct dso *d = head, *next; d; d = next) {
			next = d->next;
			if (d->sweep == sweep) {
				*tail = d;
				tail = &d->next;
				continue;
			}
			c->stats.files--;
			c->stats.debug_files -= d->debuginfo;
			c->stats.dwarf_files -= d->dwarf != NULL;
			dso_free(d);
			freed++;
		}
		*tail = NULL;
		if (!keep)
			u64map__remove_at(c->by_key, &pos);
		else if (keep != head)
			u64map__put(c->by_key, key, keep); /* the key is there: no rehash */
	}
	c->stats.files_freed += freed;
	return freed;
}

void dso_cache__stats(const struct dso_cache *c, struct dso_cache_stats *ret)
{
	*ret = c->stats;
}
