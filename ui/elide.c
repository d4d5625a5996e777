// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shortening text to a width, visibly (see elide.h for the rule): names in
 * the middle at word boundaries, prose at the end after a whole word.
 */
#include "elide.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

/* Characters looked at: a longer name keeps its first ones (and is marked). */
#define ELIDE_MAX_CHARS 1024

size_t elide_char(const char *s, size_t left, mbstate_t *st, wchar_t *ret_wc, int *ret_w)
{
	size_t k = mbrtowc(ret_wc, s, left, st);

	if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
		memset(st, 0, sizeof(*st));
		*ret_wc = L'?';
		k = 1;
	}
	*ret_w = wcwidth(*ret_wc);
	if (*ret_w < 0) {
		*ret_wc = L'?';
		*ret_w = 1;
	}
	return k;
}

/* s decoded: each character's byte offset (off[n] is the end), width, separator-ness. */
struct chars {
	int off[ELIDE_MAX_CHARS + 1];
	int w[ELIDE_MAX_CHARS + 1];
	bool sep[ELIDE_MAX_CHARS + 1];
	int n;
};

static bool is_sep(uint32_t c)
{
	return c < 128 && c && strchr("_:./@-()<>, ", (int)c);
}

static void decode(const char *s, size_t bytes, struct chars *c)
{
	mbstate_t st;
	size_t o = 0;

	memset(&st, 0, sizeof(st));
	c->n = 0;
	while (o < bytes && c->n < ELIDE_MAX_CHARS) {
		wchar_t wc;
		int w;
		size_t k = elide_char(s + o, bytes - o, &st, &wc, &w);

		c->off[c->n] = (int)o;
		c->w[c->n] = w;
		c->sep[c->n] = is_sep((uint32_t)wc);
		c->n++;
		o += k;
	}
	c->off[c->n] = (int)o;
}

const char *elide_marker(bool utf8)
{
	return utf8 ? "\u2026" : "~";
}

int elide_width(const char *s)
{
	mbstate_t st;
	size_t left = strlen(s);
	int width = 0;

	memset(&st, 0, sizeof(st));
	while (left) {
		wchar_t wc;
		int w;
		size_t k = elide_char(s, left, &st, &wc, &w);

		width += w;
		s += k;
		left -= k;
	}
	return width;
}

static char *copy(const char *s, char *buf, size_t len)
{
	if (len)
		snprintf(buf, len, "%s", s);
	return buf;
}

/* buf = the first head bytes of a, the marker, tail bytes of b, then c. */
static char *join(const char *a, int head, const char *m, const char *b, int tail, const char *c,
		  char *buf, size_t len)
{
	if (len)
		snprintf(buf, len, "%.*s%s%.*s%s", head, a, m, tail, b, c);
	return buf;
}

/* Where the name's tag (" [k]": one bracketed word at its end) starts, or strlen(s). */
static size_t tag_start(const char *s)
{
	size_t n = strlen(s);
	const char *open;

	if (n < 4 || s[n - 1] != ']')
		return n;
	open = strrchr(s, '[');
	if (!open || open == s || open[-1] != ' ' || memchr(open, ' ', (size_t)(s + n - open)))
		return n;
	return (size_t)(open - 1 - s);
}

char *elide_name(const char *s, int width, bool utf8, char *buf, size_t len)
{
	static _Thread_local struct chars c;
	const char *m = elide_marker(utf8), *tag;
	int mw = elide_width(m), budget, total, best = -1, best_h = 0, best_t = 0, min_tail = 0,
	    min_head = 0;
	int best_kept = 0;
	int prefix[ELIDE_MAX_CHARS + 1];
	size_t name_bytes;

	if (elide_width(s) <= width)
		return copy(s, buf, len);
	if (width < mw)
		return copy("", buf, len);
	name_bytes = tag_start(s);
	tag = s + name_bytes;
	budget = width - mw - elide_width(tag);
	if (budget < 2) { /* no room for the tag beside two characters of name: only the name */
		name_bytes = strlen(s);
		tag = "";
		budget = width - mw;
	}
	decode(s, name_bytes, &c);
	prefix[0] = 0;
	for (int i = 0; i < c.n; i++)
		prefix[i + 1] = prefix[i] + c.w[i];
	total = prefix[c.n];
	/* Each side keeps at least its longest boundary part within a third of the
	 * budget: no side shrinks to a fragment to let the other keep a word more. */
	for (int t = c.n; t > 0; t--)
		if (c.sep[t - 1] && t < c.n && !c.sep[t]) {
			if (total - prefix[t] > budget / 3)
				break;
			min_tail = total - prefix[t];
		}
	for (int h = 1; h < c.n; h++)
		if (c.sep[h] && !c.sep[h - 1]) {
			if (prefix[h] > budget / 3)
				break;
			min_head = prefix[h];
		}
	/* Heads end where a run of separators starts, tails start where one ends. */
	for (int h = 0; h <= c.n; h++) {
		if (h && !(h < c.n && c.sep[h] && !c.sep[h - 1]))
			continue;
		if (prefix[h] > budget)
			break;
		if (prefix[h] < min_head)
			continue;
		for (int t = c.n; t >= h; t--) {
			int kept, score;

			if (t < c.n && !(t > 0 && c.sep[t - 1] && !c.sep[t]))
				continue;
			kept = prefix[h] + total - prefix[t];
			if (kept > budget)
				break;
			if (total - prefix[t] < min_tail)
				continue;
			/* An empty side costs two columns' worth (the name's start or end is
			 * lost); ties go to the longer tail: it holds the innermost part. */
			score = kept - (h ? 0 : 2) - (t < c.n ? 0 : 2);
			if (score > best ||
			    (score == best && total - prefix[t] > total - prefix[best_t])) {
				best = score;
				best_kept = kept;
				best_h = h;
				best_t = t;
			}
		}
	}
	if (best_kept * 4 < budget * 3) {
		/* Words too long to keep whole: cut in the middle, the head the larger half. */
		int h = 0, t = c.n;

		while (h < c.n && prefix[h + 1] <= (budget + 1) / 2)
			h++;
		while (t > h && prefix[h] + total - prefix[t - 1] <= budget)
			t--;
		best_h = h;
		best_t = t;
	}
	return join(s, c.off[best_h], m, s + c.off[best_t], c.off[c.n] - c.off[best_t], tag, buf,
		    len);
}

char *elide_path(const char *s, int width, bool utf8, char *buf, size_t len)
{
	static _Thread_local struct chars c;
	const char *m = elide_marker(utf8), *last = s[0] == '/' ? strrchr(s, '/') : NULL;
	int budget, used = 0, head = 0;

	if (elide_width(s) <= width)
		return copy(s, buf, len);
	/* The file's own name is what tells one target from another: keep it. */
	budget = last ? width - elide_width(m) - elide_width(last) : -1;
	if (!last || last == s || budget < 1)
		return elide_name(s, width, utf8, buf, len);
	decode(s, (size_t)(last - s), &c);
	while (head < c.n && used + c.w[head] <= budget)
		used += c.w[head++];
	return join(s, c.off[head], m, last, (int)strlen(last), "", buf, len);
}

char *elide_end(const char *s, int width, bool utf8, char *buf, size_t len)
{
	static _Thread_local struct chars c;
	const char *m = elide_marker(utf8);
	int budget = width - elide_width(m), used = 0, cut = 0, word = 0;

	if (elide_width(s) <= width)
		return copy(s, buf, len);
	if (budget < 0)
		return copy("", buf, len);
	decode(s, strlen(s), &c);
	for (int i = 0; i < c.n && used + c.w[i] <= budget; i++) {
		/* A word ends before a space that follows something else. */
		if (i && c.off[i] < c.off[i + 1] && s[c.off[i]] == ' ' && s[c.off[i - 1]] != ' ')
			word = i;
		used += c.w[i];
		cut = i + 1;
	}
	/* Whole words, unless the first one alone is wider than half the line. */
	if (word && 2 * word >= cut)
		cut = word;
	return join(s, c.off[cut], m, "", 0, "", buf, len);
}
