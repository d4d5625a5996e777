// SPDX-License-Identifier: GPL-2.0-only
/* Streaming JSON writer (see json.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "escape.h"
#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

void json_write_escaped(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (size_t i = 0; i < len;) {
		size_t n = 0;

		/* A run of printable ASCII that needs no escape goes out in one write. */
		while (i + n < len && p[i + n] >= 0x20 && p[i + n] < 0x7f && p[i + n] != '"' &&
		       p[i + n] != '\\')
			n++;
		if (n) {
			fwrite(p + i, 1, n, f);
			i += n;
			continue;
		}
		n = utf8_valid_len(p + i, len - i);

		if (n == 0) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (n > 1 && utf8_bidi_control(p + i, n)) {
			/* Valid JSON either way; escaped so no viewer reorders the text. */
			fprintf(f, "\\u%04x", utf8_bidi_control(p + i, n));
			i += n;
			continue;
		}
		if (n > 1) {
			fwrite(p + i, 1, n, f);
			i += n;
			continue;
		}
		switch (p[i]) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (p[i] < 0x20 || p[i] == 0x7f)
				fprintf(f, "\\u%04x", p[i]);
			else
				fputc(p[i], f);
		}
		i++;
	}
	fputc('"', f);
}

static void member(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		json_write_escaped(j->f, key, strlen(key));
		fputc(':', j->f);
	}
}

static void open_scope(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_scope(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_begin_object(struct json *j, const char *key)
{
	open_scope(j, key, '{');
}

void json_end_object(struct json *j)
{
	close_scope(j, '}');
}

void json_begin_array(struct json *j, const char *key)
{
	open_scope(j, key, '[');
}

void json_end_array(struct json *j)
{
	close_scope(j, ']');
}

void json_string(struct json *j, const char *key, const char *s)
{
	if (!s) {
		json_null(j, key);
		return;
	}
	json_stringn(j, key, s, strlen(s));
}

void json_stringn(struct json *j, const char *key, const char *s, size_t len)
{
	member(j, key);
	json_write_escaped(j->f, s, len);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, const char *key, double v, int decimals)
{
	member(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}
