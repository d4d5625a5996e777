// SPDX-License-Identifier: GPL-2.0-only
/* Lines of source files (see source_file.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source_file.h"
#include "user_file.h"
#include "util.h"

struct source {
	char *path;   /* as asked */
	uint32_t pid; /* whose root it was looked for under */
	int err;      /* why it could not be read; 0 = read */
	char *text;
	size_t len;
	size_t *starts; /* offset of each line */
	size_t nr_lines;
	uint64_t used; /* the look-up count at its last use */
};

struct source_files {
	char *proc_root;
	struct source files[SOURCE_FILES];
	uint64_t uses;
};

struct source_files *source_files__new(const char *proc_root)
{
	struct source_files *sf = xcalloc(1, sizeof(*sf));

	sf->proc_root = xstrdup(proc_root ? proc_root : "/proc");
	return sf;
}

static void source_clear(struct source *s)
{
	free(s->path);
	free(s->text);
	free(s->starts);
	memset(s, 0, sizeof(*s));
}

void source_files__free(struct source_files *sf)
{
	if (!sf)
		return;
	for (size_t i = 0; i < SOURCE_FILES; i++)
		source_clear(&sf->files[i]);
	free(sf->proc_root);
	free(sf);
}

/* Reads the open file fd whole (SOURCE_FILE_MAX at most) into s. */
static int read_all(struct source *s, int fd)
{
	struct stat st;
	size_t n = 0, cap;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size > SOURCE_FILE_MAX)
		return -EFBIG;
	cap = (size_t)st.st_size + 1;
	s->text = xmalloc(cap);
	while (n + 1 < cap) { /* a file that grows: what it had at the fstat */
		ssize_t r = read(fd, s->text + n, cap - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			break;
		n += (size_t)r;
	}
	s->text[n] = '\0';
	s->len = n;
	for (size_t i = 0, cap_lines = 0; i < n; i++) {
		if (i && s->text[i - 1] != '\n')
			continue;
		xgrow((void **)&s->starts, &cap_lines, s->nr_lines + 1, sizeof(*s->starts));
		s->starts[s->nr_lines++] = i;
	}
	return 0;
}

/* Opens path as pid sees it, then as is; the fd or a negative errno. */
static int open_source(const struct source_files *sf, uint32_t pid, const char *path)
{
	char under[PATH_MAX];
	int fd = -ENOENT;

	if (pid && snprintf(under, sizeof(under), "%s/%u/root%s", sf->proc_root, pid, path) <
			   (int)sizeof(under))
		fd = user_file_open(under, USER_FILE_READ, false, 0);
	if (fd == -ENOENT || fd == -EACCES || fd == -ENOTDIR)
		fd = user_file_open(path, USER_FILE_READ, false, 0);
	return fd;
}

static struct source *lookup(struct source_files *sf, uint32_t pid, const char *path)
{
	struct source *s, *lru = &sf->files[0];
	int fd;

	for (size_t i = 0; i < SOURCE_FILES; i++) {
		s = &sf->files[i];
		if (s->path && s->pid == pid && !strcmp(s->path, path)) {
			s->used = ++sf->uses;
			return s;
		}
		if (s->used < lru->used)
			lru = s;
	}
	s = lru;
	source_clear(s);
	s->path = xstrdup(path);
	s->pid = pid;
	s->used = ++sf->uses;
	fd = open_source(sf, pid, path);
	if (fd < 0) {
		s->err = fd;
		return s;
	}
	s->err = read_all(s, fd);
	close(fd);
	return s;
}

int source_files__line(struct source_files *sf, uint32_t pid, const char *path, unsigned line,
		       char *buf, size_t len)
{
	const struct source *s;
	size_t from, to, o = 0;

	if (len)
		buf[0] = '\0';
	if (!path || path[0] != '/')
		return -EINVAL;
	s = lookup(sf, pid, path);
	if (s->err)
		return s->err;
	if (!line || line > s->nr_lines)
		return -ERANGE;
	from = s->starts[line - 1];
	to = line < s->nr_lines ? s->starts[line] : s->len;
	if (to > from && s->text[to - 1] == '\n')
		to--;
	for (size_t i = from; i < to && o + 1 < len; i++)
		buf[o++] =
			s->text[i] == '\t' || s->text[i] == '\r' || !s->text[i] ? ' ' : s->text[i];
	if (len)
		buf[o] = '\0';
	return 0;
}
