// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel symbol table from /proc/kallsyms (see kallsyms.h): one bounded pass
 * over the text, names in one string pool, entries sorted by address.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"
#include "line_reader.h"
#include "util.h"

#define KSYMS_MAX (8u << 20)	    /* symbols; a distro kernel has ~200k */
#define KSYM_NAME_MAX 512	    /* KSYM_NAME_LEN of the kernel */
#define KSYM_MAX_SPAN (1u << 20)    /* an address further past its symbol is unknown */
#define KSYMS_FILE_MAX (256u << 20) /* bytes of kallsyms we are willing to read */
#define KSYMS_LINE_MAX 1200	    /* address, type, name, module: longer is not kallsyms */

struct ksym_entry {
	uint64_t addr;
	uint32_t name_off;
	uint32_t module_off;
	uint32_t seq; /* input order, for a stable sort */
	uint8_t global;
	uint8_t compat; /* an x86 compat alias (__ia32_sys_*) of a 64-bit entry point */
};

struct ksyms {
	struct ksym *syms;
	size_t nr;
	char *pool;
};

struct ksyms_builder {
	struct ksym_entry *ents;
	size_t nr, cap;
	char *pool;
	size_t pool_len, pool_cap;
	uint32_t last_module; /* pool offset of the last module name seen */
	bool any_nonzero;
};

static uint32_t pool_add(struct ksyms_builder *b, const char *s, size_t len)
{
	uint32_t off = (uint32_t)b->pool_len;

	xgrow((void **)&b->pool, &b->pool_cap, b->pool_len + len + 1, 1);
	memcpy(b->pool + b->pool_len, s, len);
	b->pool[b->pool_len + len] = '\0';
	b->pool_len += len + 1;
	return off;
}

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* One line "ADDR TYPE NAME [MODULE]"; lines of other shapes are skipped. */
static int parse_line(struct ksyms_builder *b, const char *line, size_t len)
{
	const char *p = line, *end = line + len, *name, *mod = NULL;
	size_t name_len, mod_len = 0;
	uint64_t addr;
	char type;

	if (!scan_hex_u64(&p, end, &addr) || p + 3 > end || *p != ' ' || p[2] != ' ')
		return 0;
	type = p[1];
	p += 3;
	if (addr)
		b->any_nonzero = true;
	if (!is_text_type(type))
		return 0;
	name = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	name_len = (size_t)(p - name);
	if (!name_len || name_len >= KSYM_NAME_MAX || memchr(name, '\0', name_len))
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close && close - p - 1 > 0 && close - p - 1 < KSYM_NAME_MAX) {
			mod = p + 1;
			mod_len = (size_t)(close - mod);
		}
	}
	if (b->nr >= KSYMS_MAX)
		return -E2BIG;
	xgrow((void **)&b->ents, &b->cap, b->nr + 1, sizeof(*b->ents));
	struct ksym_entry *e = &b->ents[b->nr];

	e->addr = addr;
	e->seq = (uint32_t)b->nr;
	e->global = type == 'T' || type == 'W';
	/* __ia32_sys_pause and __x64_sys_pause share one address; a 64-bit
	 * process is in the latter, which is what perf shows. */
	e->compat = name_len > 7 && !memcmp(name, "__ia32_", 7);
	e->name_off = pool_add(b, name, name_len);
	if (!mod) {
		e->module_off = 0; /* "vmlinux", added first */
	} else {
		const char *last = b->pool + b->last_module;

		if (!(strlen(last) == mod_len && !memcmp(last, mod, mod_len)))
			b->last_module = pool_add(b, mod, mod_len);
		e->module_off = b->last_module;
	}
	b->nr++;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct ksym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	if (x->compat != y->compat)
		return x->compat ? 1 : -1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static struct ksyms *builder_finish(struct ksyms_builder *b)
{
	struct ksyms *ks;
	size_t n = 0;

	if (b->nr && !b->any_nonzero) {
		free(b->ents);
		free(b->pool);
		errno = EPERM;
		return NULL;
	}
	if (b->nr)
		qsort(b->ents, b->nr, sizeof(*b->ents), cmp_entry);
	ks = xcalloc(1, sizeof(*ks));
	ks->pool = b->pool;
	ks->syms = xcalloc(b->nr ? b->nr : 1, sizeof(*ks->syms));
	for (size_t i = 0; i < b->nr; i++) {
		/* Keep one symbol per address: the preferred one sorts first. */
		if (n && ks->syms[n - 1].addr == b->ents[i].addr)
			continue;
		ks->syms[n].addr = b->ents[i].addr;
		ks->syms[n].name = ks->pool + b->ents[i].name_off;
		ks->syms[n].module = ks->pool + b->ents[i].module_off;
		n++;
	}
	ks->nr = n;
	free(b->ents);
	return ks;
}

static void builder_init(struct ksyms_builder *b)
{
	memset(b, 0, sizeof(*b));
	b->last_module = pool_add(b, "vmlinux", 7);
}

/* Too many symbols, or more text than KSYMS_FILE_MAX, fail with E2BIG. */
static struct ksyms *parse_lines(struct line_reader *lr)
{
	struct ksyms_builder b;
	const char *line;
	size_t len;
	int err = 0;

	builder_init(&b);
	while (!err && line_reader__next(lr, &line, &len) > 0)
		err = parse_line(&b, line, len);
	if (!err && line_reader__truncated(lr))
		err = -E2BIG;
	if (err) {
		free(b.ents);
		free(b.pool);
		errno = -err;
		return NULL;
	}
	return builder_finish(&b);
}

struct ksyms *ksyms__parse(const char *buf, size_t len)
{
	struct line_reader lr;

	line_reader__init_mem(&lr, buf, len, KSYMS_LINE_MAX);
	return parse_lines(&lr);
}

struct ksyms *ksyms__load(const char *proc_root)
{
	struct line_reader lr;
	struct ksyms *ks = NULL;
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/kallsyms", proc_root ? proc_root : "/proc");
	err = line_reader__open(&lr, path, KSYMS_LINE_MAX, KSYMS_FILE_MAX);
	if (!err)
		ks = parse_lines(&lr);
	else
		errno = -err;
	err = errno;
	line_reader__close(&lr);
	errno = err;
	return ks;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->pool);
	free(ks);
}

const struct ksym *ksyms__find(const struct ksyms *ks, uint64_t addr)
{
	size_t lo;

	if (!ks || !ks->nr || addr < ks->syms[0].addr)
		return NULL;
	/* The last symbol at or below addr (there is one: syms[0]). */
	lo = upper_bound_u64(ks->syms, ks->nr, sizeof(*ks->syms), offsetof(struct ksym, addr),
			     addr) -
	     1;
	if (addr - ks->syms[lo].addr > KSYM_MAX_SPAN)
		return NULL;
	return &ks->syms[lo];
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

void ksyms__text_range(const struct ksyms *ks, uint64_t *ret_start, uint64_t *ret_end)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; ks && i < ks->nr; i++) {
		if (strcmp(ks->syms[i].module, "vmlinux"))
			continue;
		if (ks->syms[i].addr < lo)
			lo = ks->syms[i].addr;
		if (ks->syms[i].addr > hi)
			hi = ks->syms[i].addr;
	}
	*ret_start = hi ? lo : 0;
	*ret_end = hi ? hi + KSYM_MAX_SPAN : 0; /* the last symbol's code, at most this long */
}
