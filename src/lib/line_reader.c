// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bounded line iterator (see line_reader.h). Over a file it reads into
 * one buffer a little larger than the longest line accepted, so memory is
 * bounded whatever the file holds; a longer line is passed over in the
 * same buffer, up to its '\n'.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "line_reader.h"
#include "util.h"

#define READ_CHUNK (64u << 10) /* the least a file read asks for, for few syscalls */

void line_reader__init_mem(struct line_reader *lr, const char *buf, size_t len, size_t max_line)
{
	*lr = (struct line_reader){
		.data = buf ? buf : "", .end = buf ? len : 0, .max_line = max_line, .fd = -1};
	lr->eof = true;
}

int line_reader__open_fd(struct line_reader *lr, int fd, size_t max_line, uint64_t max_bytes)
{
	*lr = (struct line_reader){.max_line = max_line, .max_bytes = max_bytes, .fd = fd};
	if (max_line >= SIZE_MAX - READ_CHUNK)
		return -EINVAL; /* a file is only read with a bound on its lines */
	lr->cap = max_line + 1 + READ_CHUNK;
	lr->buf = xmalloc(lr->cap);
	lr->data = lr->buf;
	return 0;
}

int line_reader__open(struct line_reader *lr, const char *path, size_t max_line, uint64_t max_bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*lr = (struct line_reader){.max_line = max_line, .max_bytes = max_bytes, .fd = -1};
		return -errno;
	}
	return line_reader__open_fd(lr, fd, max_line, max_bytes);
}

/* Reads more after the unread bytes (moved to the front); 0, or -errno. */
static int fill(struct line_reader *lr)
{
	size_t want;
	ssize_t n;

	if (lr->start) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	want = lr->cap - lr->end;
	if (lr->read + want > lr->max_bytes)
		want = (size_t)(lr->max_bytes - lr->read);
	if (!want) {
		/* Stop at max_bytes, unless the file ends right there. */
		char c;

		do
			n = read(lr->fd, &c, 1);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		lr->truncated = n > 0;
		lr->eof = true;
		return 0;
	}
	do
		n = read(lr->fd, lr->buf + lr->end, want);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		lr->eof = true;
	lr->end += (size_t)n;
	lr->read += (uint64_t)n;
	return 0;
}

int line_reader__next(struct line_reader *lr, const char **ret_line, size_t *ret_len)
{
	for (;;) {
		const char *line = lr->data + lr->start;
		size_t avail = lr->end - lr->start;
		const char *nl = avail ? memchr(line, '\n', avail) : NULL;
		size_t len = nl ? (size_t)(nl - line) : avail;
		bool whole = nl || (lr->eof && !lr->truncated);
		int err;

		if (whole && (avail || nl)) {
			lr->start += nl ? len + 1 : len;
			if (lr->skipping || len > lr->max_line) {
				lr->skipping = false;
				lr->skipped++;
				continue;
			}
			*ret_line = line;
			*ret_len = len;
			return 1;
		}
		if (lr->eof) {
			if (lr->skipping && !lr->truncated)
				lr->skipped++; /* it ended the file */
			lr->skipping = false;
			lr->start = lr->end; /* drops a partial line at max_bytes */
			return 0;
		}
		if (len > lr->max_line) {
			/* Too long already: drop what we have, skip up to its '\n'. */
			lr->skipping = true;
			lr->start = lr->end;
		}
		err = fill(lr);
		if (err < 0)
			return err;
	}
}

bool line_reader__truncated(const struct line_reader *lr)
{
	return lr->truncated;
}

size_t line_reader__skipped(const struct line_reader *lr)
{
	return lr->skipped;
}

void line_reader__close(struct line_reader *lr)
{
	if (lr->fd >= 0)
		close(lr->fd);
	free(lr->buf);
	lr->fd = -1;
	lr->buf = NULL;
	lr->data = NULL;
	lr->start = lr->end = 0;
}
