// SPDX-License-Identifier: GPL-2.0-only
/* Terminal-safe escaping and UTF-8 validation (see escape.h). */
#include <stdio.h>
#include <string.h>

#include "escape.h"

size_t utf8_valid_len(const unsigned char *s, size_t len)
{
	unsigned c = s[0], cp;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* C1 controls (U+0080..U+009F) act like ESC on some terminals. */
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;
	return n;
}

unsigned utf8_bidi_control(const unsigned char *s, size_t n)
{
	unsigned cp;

	if (n != 3 || s[0] != 0xe2)
		return 0;
	cp = 0x2000 | ((unsigned)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ? cp : 0;
}

char *escape_for_terminal(const char *s, size_t len, char *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (cap == 0)
		return out;
	for (size_t i = 0; i < len;) {
		char esc[8];
		const char *piece;
		size_t n = utf8_valid_len(p + i, len - i), plen;

		if (n == 1 && (p[i] < 0x20 || p[i] == 0x7f)) {
			switch (p[i]) {
			case '\n':
				piece = "\\n";
				break;
			case '\t':
				piece = "\\t";
				break;
			case 0x1b:
				piece = "\\e";
				break;
			default:
				snprintf(esc, sizeof(esc), "\\x%02x", p[i]);
				piece = esc;
			}
			plen = strlen(piece);
			n = 1;
		} else if (n == 0) {
			snprintf(esc, sizeof(esc), "\\x%02x", p[i]);
			piece = esc;
			plen = 4;
			n = 1;
		} else if (n == 1 && p[i] == '\\') {
			piece = "\\\\";
			plen = 2;
		} else if (utf8_bidi_control(p + i, n)) {
			snprintf(esc, sizeof(esc), "\\u%04x", utf8_bidi_control(p + i, n));
			piece = esc;
			plen = 6;
		} else {
			piece = (const char *)p + i;
			plen = n;
		}
		if (o + plen >= cap)
			break;
		memcpy(out + o, piece, plen);
		o += plen;
		i += n;
	}
	out[o] = '\0';
	return out;
}
