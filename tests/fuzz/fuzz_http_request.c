// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes --serve's HTTP request head parser and query parameters: the input
 * is what a client sent, fed as it may arrive (the whole, and every prefix
 * split at the first byte's value, as a slow client sends it). The head is
 * copied to a buffer of its exact size so ASan sees any read past it, and
 * what the parser fills in must be NUL-terminated and free of control bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			abort();
}

static void parse_all(const char *buf, size_t len)
{
	struct http_request *r = malloc(sizeof(*r));
	int n = http_parse_request(buf, len, r);
	char v[64];

	if (n > (int)len || (n < 0 && (n < -505 || n > -400)))
		abort();
	if (n > 0) {
		check(r->path, sizeof(r->path));
		check(r->query, sizeof(r->query));
		check(r->auth, sizeof(r->auth));
		if (r->path[0] != '/')
			abort();
		for (int k = 0; k < 3; k++) {
			int m = http_query_param(r->query,
						 k == 0	  ? "seconds"
						 : k == 1 ? "comm"
							  : "pid",
						 v, sizeof(v));

			if (m >= (int)sizeof(v) || (m >= 0 && strlen(v) != (size_t)m))
				abort();
			if (m >= 0)
				check(v, sizeof(v));
		}
	}
	free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	size_t cut;

	if (size == 0 || size > 2 * HTTP_MAX_HEAD)
		return 0;
	buf = malloc(size);
	memcpy(buf, data, size);
	parse_all(buf, size);
	/* A prefix, as it stands after the first reads of a slow client. */
	cut = data[0] % size;
	parse_all(buf, cut);
	free(buf);
	return 0;
}
