// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-PID.map reader (see perfmap.h). Entries are sorted by start address;
 * among overlapping entries the later line wins, as perf does, because a JIT
 * appends a new line when it reuses code memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "line_reader.h"
#include "perfmap.h"
#include "util.h"

#define PERFMAP_LINE_MAX 4095 /* bytes, without the newline */
#define PERFMAP_FILE_MAX (256u << 20)

struct pm_entry {
	uint64_t start, size;
	size_t name_off;
	size_t seq;
};

struct perfmap {
	struct perfmap_sym *syms;
	size_t nr;
	char *pool;
};

struct pm_builder {
	struct pm_entry *ents;
	size_t nr, cap;
	char *pool;
	size_t pool_len, pool_cap;
};

/* Hex with an optional "0x", as JITs write it. */
static bool parse_hex(const char **p, const char *end, uint64_t *ret)
{
	if (end - *p > 2 && (*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X'))
		*p += 2;
	return scan_hex_u64(p, end, ret);
}

static bool parse_line(struct pm_builder *b, const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	uint64_t start, size;
	size_t name_len;

	if (!parse_hex(&p, end, &start) || p >= end || *p != ' ')
		return false;
	p++;
	if (!parse_hex(&p, end, &size) || p >= end || *p != ' ')
		return false;
	p++;
	while (end > p && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	name_len = (size_t)(end - p);
	if (!name_len || !size || start + size < start || b->nr >= PERFMAP_MAX_ENTRIES)
		return false;
	xgrow((void **)&b->ents, &b->cap, b->nr + 1, sizeof(*b->ents));
	xgrow((void **)&b->pool, &b->pool_cap, b->pool_len + name_len + 1, 1);
	memcpy(b->pool + b->pool_len, p, name_len);
	b->pool[b->pool_len + name_len] = '\0';
	b->ents[b->nr] = (struct pm_entry){start, size, b->pool_len, b->nr};
	b->pool_len += name_len + 1;
	b->nr++;
	return true;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq > y->seq ? -1 : (x->seq < y->seq); /* later first */
}

static struct perfmap *finish(struct pm_builder *b)
{
	struct perfmap *pm = xcalloc(1, sizeof(*pm));

	if (b->nr)
		qsort(b->ents, b->nr, sizeof(*b->ents), cmp_entry);
	pm->pool = b->pool ? b->pool : xstrdup("");
	pm->syms = xcalloc(b->nr ? b->nr : 1, sizeof(*pm->syms));
	for (size_t i = 0; i < b->nr; i++) {
		if (pm->nr && pm->syms[pm->nr - 1].start == b->ents[i].start)
			continue;
		pm->syms[pm->nr].start = b->ents[i].start;
		pm->syms[pm->nr].size = b->ents[i].size;
		pm->syms[pm->nr].name = pm->pool + b->ents[i].name_off;
		pm->nr++;
	}
	free(b->ents);
	return pm;
}

/* A read error ends the file early: what was read is used. */
static struct perfmap *parse_lines(struct line_reader *lr)
{
	struct pm_builder b = {0};
	const char *line;
	size_t len;

	while (line_reader__next(lr, &line, &len) > 0)
		parse_line(&b, line, len);
	return finish(&b);
}

struct perfmap *perfmap__parse(const char *buf, size_t len)
{
	struct line_reader lr;

	line_reader__init_mem(&lr, buf, len, PERFMAP_LINE_MAX);
	return parse_lines(&lr);
}

/*
 * perf's rule: a map names the frames of a process only when that process's
 * user or root wrote it and nobody else can rewrite it; a link is never
 * followed (anyone can plant /tmp/perf-PID.map for a root process).
 */
static int open_trusted(const char *path, unsigned owner_uid)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != owner_uid) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

struct perfmap *perfmap__read(const char *path, unsigned owner_uid)
{
	struct line_reader lr;
	struct perfmap *pm = NULL;
	int fd = open_trusted(path, owner_uid), err;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	err = line_reader__open_fd(&lr, fd, PERFMAP_LINE_MAX, PERFMAP_FILE_MAX);
	if (!err)
		pm = parse_lines(&lr);
	line_reader__close(&lr);
	if (err)
		errno = -err;
	return pm;
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->syms);
	free(pm->pool);
	free(pm);
}

const struct perfmap_sym *perfmap__find(const struct perfmap *pm, uint64_t addr)
{
	size_t lo;

	if (!pm || !pm->nr)
		return NULL;
	lo = upper_bound_u64(pm->syms, pm->nr, sizeof(*pm->syms),
			     offsetof(struct perfmap_sym, start), addr);
	/* Look back a little for a longer entry that still covers addr. */
	for (size_t i = lo, n = 0; i > 0 && n < 8; i--, n++) {
		const struct perfmap_sym *s = &pm->syms[i - 1];

		if (addr - s->start < s->size)
			return s;
	}
	return NULL;
}

size_t perfmap__count(const struct perfmap *pm)
{
	return pm ? pm->nr : 0;
}
