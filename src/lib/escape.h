/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Makes strings other processes control (comm, cmdline, frame names) safe
 * to put on a terminal: control characters and invalid UTF-8 are shown as
 * escapes (\e, \n, \x9b ...) instead of being obeyed, and length is bounded.
 */
#ifndef THREADTOP_ESCAPE_H
#define THREADTOP_ESCAPE_H

#include <stddef.h>

/*
 * Writes the escaped form of s (len bytes) into out (cap bytes, always
 * NUL-terminated unless cap is 0). Valid UTF-8 of printable characters is
 * kept. Truncation never splits an escape or a character. Returns out.
 */
char *escape_for_terminal(const char *s, size_t len, char *out, size_t cap);

/*
 * Length of the valid UTF-8 sequence at s (at most len bytes): 1 to 4, or
 * 0 when the bytes there are not valid UTF-8 (overlong, surrogate, > U+10FFFF).
 */
size_t utf8_valid_len(const unsigned char *s, size_t len);

#endif /* THREADTOP_ESCAPE_H */
