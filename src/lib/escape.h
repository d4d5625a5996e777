/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Makes strings other processes control (comm, cmdline, frame names) safe
 * to put on a terminal: control characters, invalid UTF-8 and bidirectional
 * controls are shown as escapes (\e, \n, \x9b, \u202e ...) instead of being
 * obeyed, and length is bounded.
 */
#ifndef THREADTOP_ESCAPE_H
#define THREADTOP_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writes the escaped form of s (len bytes) into out (cap bytes, always
 * NUL-terminated unless cap is 0). Valid UTF-8 of printable characters is
 * kept; a bidirectional control (utf8_bidi_control) is written \uXXXX so
 * that it cannot reorder what follows on the line. Truncation never splits
 * an escape or a character. Returns out.
 */
char *escape_for_terminal(const char *s, size_t len, char *out, size_t cap);

/*
 * Length of the valid UTF-8 sequence at s (at most len bytes): 1 to 4, or
 * 0 when the bytes there are not valid UTF-8 (overlong, surrogate, > U+10FFFF).
 */
size_t utf8_valid_len(const unsigned char *s, size_t len);

/*
 * The code point of the bidirectional control (U+202A..U+202E embeddings and
 * overrides, U+2066..U+2069 isolates) that the n valid UTF-8 bytes at s
 * encode (n from utf8_valid_len), or 0 when they encode anything else. The
 * terminal and JSON writers escape these ("Trojan Source", CVE-2021-42574).
 */
unsigned utf8_bidi_control(const unsigned char *s, size_t n);

#endif /* THREADTOP_ESCAPE_H */
