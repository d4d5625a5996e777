/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * threadtop's own messages. Only the top level logs (library code returns
 * errors). Messages go to a ring the TUI's log pane reads, to --log FILE, and
 * to stderr unless curses owns the terminal.
 */
#ifndef THREADTOP_LOG_H
#define THREADTOP_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOG_RING 256
#define LOG_LINE 512

/* Opens path for appending (NULL: no file). Returns 0 or negative errno. */
int log_open(const char *path);
void log_close(void);
/* Whether messages are echoed to stderr (off while curses is up). */
void log_set_stderr(bool on);
/* Logs one line, "threadtop: " prefixed on stderr. */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Logs one line to the ring and the file only: details nobody must read. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Writes a block of text (many lines, such as a verifier log) to the log file
 * only. Returns 0, or -ENOENT when there is no log file.
 */
int log_file_text(const char *text);
/* The i-th most recent message (0 = newest), or NULL. Owned by the log. */
const char *log_line(size_t i);
size_t log_count(void);
/* Messages logged since the start: grows by one a message, also once the ring is full. */
uint64_t log_total(void);

#endif /* THREADTOP_LOG_H */
