/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The HTTP/1.x request head parser of --serve: the request line and headers
 * of a GET from whoever reaches the port, taken apart with a bound on every
 * size (head, target, header count, header line) so that a hostile client
 * gets a 4xx, never a crash or an unbounded buffer. No I/O: it reads the
 * bytes received so far (fuzzed by tests/fuzz/fuzz_http_request.c).
 */
#ifndef THREADTOP_HTTP_REQUEST_H
#define THREADTOP_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_MAX_HEAD 8192   /* request line + headers + blank line */
#define HTTP_MAX_TARGET 2048 /* path + query */
#define HTTP_MAX_HEADERS 32
#define HTTP_MAX_AUTH 512 /* the Authorization header's value */

struct http_request {
	bool head;		     /* HEAD, else GET */
	bool keep_alive;	     /* the connection stays open after the response */
	char path[HTTP_MAX_TARGET];  /* before '?', as sent (not decoded) */
	char query[HTTP_MAX_TARGET]; /* after '?', "" when none */
	char auth[HTTP_MAX_AUTH];    /* Authorization value, "" when none */
	bool accept_openmetrics;     /* Accept names application/openmetrics-text */
};

/*
 * Parses the request head at buf (len bytes received so far). Returns 0
 * while the head is incomplete and within bounds (read more), its length in
 * bytes (through the blank line) when whole, filling *ret, or a negative
 * HTTP status for the response: -400 malformed, -405 not GET or HEAD, -413
 * a body, -414 target too long, -431 head or a header too large, too many
 * headers, -505 not HTTP/1.0 or 1.1.
 */
int http_parse_request(const char *buf, size_t len, struct http_request *ret);

/*
 * The value of parameter name in query ("a=1&b=x%20y"), percent-decoded
 * ('+' is a space) into out (cap bytes, NUL-terminated). Returns its length,
 * -ENOENT when absent, -EINVAL when malformed or with a NUL or control byte,
 * -E2BIG when longer than cap - 1.
 */
int http_query_param(const char *query, const char *name, char *out, size_t cap);

/* "Not Found" and so on: the reason phrase of status, "Error" when unknown. */
const char *http_status_text(int status);

#endif /* THREADTOP_HTTP_REQUEST_H */
