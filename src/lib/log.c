// SPDX-License-Identifier: GPL-2.0-only
/* Message ring, log file and stderr echo (see log.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "user_file.h"
#include "util.h"

static char ring[LOG_RING][LOG_LINE];
static size_t head, count;
static uint64_t total; /* messages ever logged */
static FILE *file;
static bool echo = true;

int log_open(const char *path)
{
	int fd;

	if (!path)
		return 0;
	fd = user_file_open(path, USER_FILE_APPEND, false, 0640);
	if (fd < 0)
		return fd;
	file = fdopen(fd, "a");
	if (!file) {
		close(fd);
		return -errno;
	}
	setvbuf(file, NULL, _IOLBF, 0);
	return 0;
}

void log_close(void)
{
	if (file)
		fclose(file);
	file = NULL;
}

void log_set_stderr(bool on)
{
	echo = on;
}

__attribute__((format(printf, 2, 0))) static void log_line_v(bool to_stderr, const char *fmt,
							     va_list ap)
{
	char *line = ring[head], raw[LOG_LINE];

	/* Messages carry what other users control (paths, names): escaped once
	 * here for stderr, the log file and the ring the TUI shows. */
	vsnprintf(raw, sizeof(raw), fmt, ap);
	escape_for_terminal(raw, strlen(raw), line, LOG_LINE);
	head = (head + 1) % LOG_RING;
	total++;
	if (count < LOG_RING)
		count++;
	if (to_stderr && echo)
		fprintf(stderr, "threadtop: %s\n", line);
	if (file) {
		char when[40];

		fprintf(file, "%s %s\n", format_rfc3339(realtime_ns(), when, sizeof(when)), line);
	}
}

void log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line_v(true, fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line_v(false, fmt, ap);
	va_end(ap);
}

int log_file_text(const char *text)
{
	size_t len = strlen(text);

	if (!file)
		return -ENOENT;
	fputs(text, file);
	if (len && text[len - 1] != '\n')
		fputc('\n', file);
	return 0;
}

const char *log_line(size_t i)
{
	if (i >= count)
		return NULL;
	return ring[(head + LOG_RING - 1 - i) % LOG_RING];
}

size_t log_count(void)
{
	return count;
}

uint64_t log_total(void)
{
	return total;
}
