/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A bounded line iterator over a buffer or a file other processes control
 * (/proc/kallsyms, /proc/PID/maps, perf-PID.map, ...): lines of at most
 * max_line bytes, a longer one passed over whole; a file read up to
 * max_bytes, never further; NUL bytes are line content like any other; the
 * last line needs no '\n'. The struct is the caller's (on its stack); its
 * fields are private to line_reader.c.
 */
#ifndef THREADTOP_LINE_READER_H
#define THREADTOP_LINE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINE_READER_NO_LIMIT SIZE_MAX

struct line_reader {
	const char *data;  /* the buffer read (file: buf) */
	size_t start, end; /* unread bytes of data */
	size_t max_line;
	char *buf; /* file: the read buffer, NULL over memory */
	size_t cap;
	int fd; /* -1 over memory */
	uint64_t read, max_bytes;
	bool eof, truncated, skipping;
	size_t skipped;
};

/* Over buf[0, len) (not copied: it must outlive lr). Never fails. */
void line_reader__init_mem(struct line_reader *lr, const char *buf, size_t len, size_t max_line);

/*
 * Over the file at path, read at most max_bytes of it. Returns 0, or a
 * negative errno (the file cannot be opened); close lr either way.
 */
int line_reader__open(struct line_reader *lr, const char *path, size_t max_line,
		      uint64_t max_bytes);

/* The same over fd, which lr owns from now on (closed by line_reader__close, even on failure). */
int line_reader__open_fd(struct line_reader *lr, int fd, size_t max_line, uint64_t max_bytes);

/*
 * The next line, without its '\n', in [*ret_line, *ret_line + *ret_len);
 * valid until the next call. Returns 1, 0 at the end, or a negative errno
 * (a read failed).
 */
int line_reader__next(struct line_reader *lr, const char **ret_line, size_t *ret_len);

/* Whether the file went on past max_bytes (the end came early, the last partial line dropped). */
bool line_reader__truncated(const struct line_reader *lr);

/* Lines longer than max_line passed over so far. */
size_t line_reader__skipped(const struct line_reader *lr);

/* Frees what open took (also after a failed open, or over memory). */
void line_reader__close(struct line_reader *lr);

#endif
