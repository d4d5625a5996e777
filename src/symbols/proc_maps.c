// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/PID/maps parser (see proc_maps.h). Every field is checked; a line
 * that does not fit the format is skipped and counted, never trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "line_reader.h"
#include "proc_maps.h"
#include "util.h"

#define MAPS_FILE_MAX (64u << 20)      /* bytes of a maps file we are willing to read */
#define MAPS_LINE_MAX (PATH_MAX + 256) /* the fields, then a path under PATH_MAX */

struct proc_maps {
	struct proc_map *ents;
	size_t nr;
	size_t bad;
	char *pool;
};

struct maps_builder {
	struct proc_map *ents;
	size_t nr, cap, bad;
	char *pool;
	size_t pool_len, pool_cap;
};

static uint64_t parse_dec(const char **p, const char *end, bool *ok)
{
	uint64_t v = 0;
	int n = 0;

	while (*p < end && **p >= '0' && **p <= '9' && n < 20) {
		v = v * 10 + (uint64_t)(**p - '0');
		n++;
		(*p)++;
	}
	*ok = n > 0 && n < 20;
	return v;
}

static bool expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

static bool parse_line(struct maps_builder *b, const char *line, size_t len)
{
	static const char deleted[] = " (deleted)";
	const char *p = line, *end = line + len;
	uint64_t start, end_addr, offset, major, minor, inode;
	struct proc_map m = {0};
	size_t path_len;
	bool ok;

	if (!scan_hex_u64(&p, end, &start) || !expect(&p, end, '-') ||
	    !scan_hex_u64(&p, end, &end_addr) || !expect(&p, end, ' '))
		return false;
	if (end_addr <= start || end - p < 5)
		return false;
	if (p[0] == 'r')
		m.flags |= PROC_MAP_READ;
	if (p[1] == 'w')
		m.flags |= PROC_MAP_WRITE;
	if (p[2] == 'x')
		m.flags |= PROC_MAP_EXEC;
	if (p[3] == 's')
		m.flags |= PROC_MAP_SHARED;
	p += 4;
	if (!expect(&p, end, ' ') || !scan_hex_u64(&p, end, &offset) || !expect(&p, end, ' ') ||
	    !scan_hex_u64(&p, end, &major) || !expect(&p, end, ':') ||
	    !scan_hex_u64(&p, end, &minor) || !expect(&p, end, ' '))
		return false;
	if (major > 0xfffff || minor > 0xfffff)
		return false;
	inode = parse_dec(&p, end, &ok);
	if (!ok)
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	path_len = (size_t)(end - p);
	if (path_len >= PATH_MAX)
		return false;
	if (path_len > sizeof(deleted) - 1 &&
	    !memcmp(p + path_len - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1)) {
		path_len -= sizeof(deleted) - 1;
		m.flags |= PROC_MAP_DELETED;
	}
	if (!path_len)
		m.flags |= PROC_MAP_ANON;
	else if (p[0] == '[')
		m.flags |= PROC_MAP_PSEUDO;
	if (b->nr >= PROC_MAPS_MAX_ENTRIES)
		return false;
	m.start = start;
	m.end = end_addr;
	m.offset = offset;
	m.dev = makedev((unsigned)major, (unsigned)minor);
	m.inode = inode;
	/* The path is stored as a pool offset until the pool stops moving. */
	xgrow((void **)&b->pool, &b->pool_cap, b->pool_len + path_len + 1, 1);
	memcpy(b->pool + b->pool_len, p, path_len);
	b->pool[b->pool_len + path_len] = '\0';
	m.path = (const char *)(uintptr_t)b->pool_len;
	b->pool_len += path_len + 1;
	xgrow((void **)&b->ents, &b->cap, b->nr + 1, sizeof(*b->ents));
	b->ents[b->nr++] = m;
	return true;
}

static int cmp_start(const void *a, const void *b)
{
	const struct proc_map *x = a, *y = b;

	return x->start < y->start ? -1 : (x->start > y->start);
}

/* NULL with errno set when reading failed. */
static struct proc_maps *parse_lines(struct line_reader *lr)
{
	struct maps_builder b = {0};
	struct proc_maps *maps;
	const char *line;
	bool sorted = true;
	size_t len;
	int n;

	while ((n = line_reader__next(lr, &line, &len)) > 0)
		if (len && !parse_line(&b, line, len))
			b.bad++;
	if (n < 0) {
		free(b.ents);
		free(b.pool);
		errno = -n;
		return NULL;
	}
	b.bad += line_reader__skipped(lr);
	maps = xcalloc(1, sizeof(*maps));
	maps->ents = b.ents;
	maps->nr = b.nr;
	maps->bad = b.bad;
	maps->pool = b.pool ? b.pool : xstrdup("");
	for (size_t i = 0; i < maps->nr; i++) {
		maps->ents[i].path = maps->pool + (uintptr_t)maps->ents[i].path;
		if (i && maps->ents[i].start < maps->ents[i - 1].start)
			sorted = false;
	}
	if (!sorted)
		qsort(maps->ents, maps->nr, sizeof(*maps->ents), cmp_start);
	return maps;
}

struct proc_maps *proc_maps__parse(const char *buf, size_t len)
{
	struct line_reader lr;

	line_reader__init_mem(&lr, buf, len, MAPS_LINE_MAX);
	return parse_lines(&lr);
}

/* A file longer than MAPS_FILE_MAX is read up to there: what we have is what we use. */
struct proc_maps *proc_maps__read(const char *proc_root, uint32_t pid)
{
	struct proc_maps *maps = NULL;
	struct line_reader lr;
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s/%u/maps", proc_root ? proc_root : "/proc", pid);
	err = line_reader__open(&lr, path, MAPS_LINE_MAX, MAPS_FILE_MAX);
	if (!err)
		maps = parse_lines(&lr);
	else
		errno = -err;
	err = errno;
	line_reader__close(&lr);
	errno = err;
	return maps;
}

void proc_maps__free(struct proc_maps *maps)
{
	if (!maps)
		return;
	free(maps->ents);
	free(maps->pool);
	free(maps);
}

const struct proc_map *proc_maps__find(const struct proc_maps *maps, uint64_t addr)
{
	size_t lo;

	if (!maps || !maps->nr)
		return NULL;
	lo = upper_bound_u64(maps->ents, maps->nr, sizeof(*maps->ents),
			     offsetof(struct proc_map, start), addr);
	if (!lo)
		return NULL;
	if (addr >= maps->ents[lo - 1].end)
		return NULL;
	return &maps->ents[lo - 1];
}

size_t proc_maps__count(const struct proc_maps *maps)
{
	return maps ? maps->nr : 0;
}

const struct proc_map *proc_maps__get(const struct proc_maps *maps, size_t i)
{
	return maps && i < maps->nr ? &maps->ents[i] : NULL;
}

size_t proc_maps__bad_lines(const struct proc_maps *maps)
{
	return maps ? maps->bad : 0;
}

int proc_map__open(const char *proc_root, uint32_t pid, const struct proc_map *m)
{
	char path[PATH_MAX * 2];
	struct stat st;
	int fd;

	if (!proc_root)
		proc_root = "/proc";
	snprintf(path, sizeof(path), "%s/%u/map_files/%" PRIx64 "-%" PRIx64, proc_root, pid,
		 m->start, m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (m->path[0] == '/') {
		snprintf(path, sizeof(path), "%s/%u/root%s", proc_root, pid, m->path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &st) && (!m->inode || st.st_ino == m->inode))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	/* A deleted executable is still reachable as /proc/PID/exe. */
	snprintf(path, sizeof(path), "%s/%u/exe", proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !fstat(fd, &st) && m->inode && st.st_ino == m->inode)
		return fd;
	if (fd >= 0)
		close(fd);
	/*
	 * The process has exited (its map_files and root went with it): the
	 * path as this process sees it, if it is still the very file mapped
	 * (device and inode; a container's path may name another file here).
	 * Checked before the open too, which cannot block then (a FIFO put
	 * there since) nor open a device.
	 */
	if (m->path[0] == '/' && m->inode && !(m->flags & PROC_MAP_DELETED) &&
	    !stat(m->path, &st) && S_ISREG(st.st_mode) && st.st_ino == m->inode &&
	    (uint64_t)st.st_dev == m->dev) {
		fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_ino == m->inode &&
		    (uint64_t)st.st_dev == m->dev)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return -ENOENT;
}

void *proc_map__copy_mem(const char *proc_root, uint32_t pid, const struct proc_map *m, size_t max)
{
	size_t len = m->end - m->start;
	char path[PATH_MAX];
	ssize_t n;
	void *buf;
	int fd, err;

	if (len > max) {
		errno = EFBIG;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%u/mem", proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = xmalloc(len);
	n = pread(fd, buf, len, (off_t)m->start);
	err = n < 0 ? errno : EIO;
	close(fd);
	if (n == (ssize_t)len)
		return buf;
	free(buf);
	errno = err;
	return NULL;
}
