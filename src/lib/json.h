/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small streaming JSON writer for batch output and exports. Strings are
 * escaped (control characters as \u00XX) and invalid UTF-8 becomes U+FFFD,
 * so whatever another process put in its comm cannot break the document.
 */
#ifndef THREADTOP_JSON_H
#define THREADTOP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* no member written yet at that depth */
};

void json_init(struct json *j, FILE *f);
/* key is the member name inside an object, NULL inside an array or at top. */
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_string(struct json *j, const char *key, const char *s);
void json_stringn(struct json *j, const char *key, const char *s, size_t len);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
/* Finite numbers with the given digits after the point; NaN/inf become null. */
void json_double(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

/* Writes s (len bytes) as a quoted, escaped JSON string. */
void json_write_escaped(FILE *f, const char *s, size_t len);

#endif /* THREADTOP_JSON_H */
