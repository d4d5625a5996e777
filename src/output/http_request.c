// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP request head parser (see http_request.h). Strict where leniency
 * would be a smuggling or confusion risk (bare CR, obsolete line folding, a
 * body on a GET, a header name with spaces), lenient where clients differ
 * harmlessly (bare LF line ends, any case in header names).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "http_request.h"
#include "util.h"

const char *http_status_text(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 413:
		return "Content Too Large";
	case 414:
		return "URI Too Long";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 503:
		return "Service Unavailable";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Error";
	}
}

/* RFC 9110 tchar: the bytes of a method or a header name. */
static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The end of the line at p (before end): the byte after its LF, or NULL. */
static const char *line_end(const char *p, const char *end, const char **ret_content_end)
{
	const char *lf = memchr(p, '\n', (size_t)(end - p));

	if (!lf)
		return NULL;
	*ret_content_end = lf > p && lf[-1] == '\r' ? lf - 1 : lf;
	return lf + 1;
}

static int parse_request_line(const char *p, const char *e, struct http_request *ret)
{
	const char *sp1, *sp2, *q;
	size_t n;

	for (sp1 = p; sp1 < e && is_tchar((unsigned char)*sp1); sp1++)
		;
	if (sp1 == p || sp1 >= e || *sp1 != ' ')
		return -400;
	if (sp1 - p == 3 && !memcmp(p, "GET", 3))
		ret->head = false;
	else if (sp1 - p == 4 && !memcmp(p, "HEAD", 4))
		ret->head = true;
	else
		return -405;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(e - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1 || sp1[1] != '/')
		return -400;
	n = (size_t)(sp2 - sp1 - 1);
	if (n >= HTTP_MAX_TARGET)
		return -414;
	for (const char *c = sp1 + 1; c < sp2; c++)
		if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f)
			return -400;
	q = memchr(sp1 + 1, '?', n);
	if (q) {
		memcpy(ret->path, sp1 + 1, (size_t)(q - sp1 - 1));
		ret->path[q - sp1 - 1] = '\0';
		memcpy(ret->query, q + 1, (size_t)(sp2 - q - 1));
		ret->query[sp2 - q - 1] = '\0';
	} else {
		memcpy(ret->path, sp1 + 1, n);
		ret->path[n] = '\0';
	}
	if (e - sp2 - 1 != 8 || memcmp(sp2 + 1, "HTTP/1.", 7))
		return e - sp2 - 1 >= 5 && !memcmp(sp2 + 1, "HTTP/", 5) ? -505 : -400;
	if (sp2[8] == '1')
		ret->keep_alive = true;
	else if (sp2[8] != '0')
		return -505;
	return 0;
}

/* Whether the comma-separated list value (len bytes) holds token, any case. */
static bool list_has(const char *v, size_t len, const char *token)
{
	size_t k = strlen(token);

	for (size_t i = 0; i + k <= len; i++)
		if (!strncasecmp(v + i, token, k))
			return true;
	return false;
}

static int parse_header(const char *p, const char *e, struct http_request *ret)
{
	const char *colon, *v;
	size_t name_len, vlen;

	if (*p == ' ' || *p == '\t')
		return -400; /* obsolete line folding */
	for (colon = p; colon < e && is_tchar((unsigned char)*colon); colon++)
		;
	if (colon == p || colon >= e || *colon != ':')
		return -400;
	name_len = (size_t)(colon - p);
	for (v = colon + 1; v < e && (*v == ' ' || *v == '\t'); v++)
		;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	vlen = (size_t)(e - v);
	for (const char *c = v; c < e; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
			return -400;
#define IS(name) (name_len == sizeof(name) - 1 && !strncasecmp(p, name, name_len))
	if (IS("Content-Length")) {
		for (const char *c = v; c < e; c++)
			if (*c != '0')
				return *c >= '1' && *c <= '9' ? -413 : -400;
		if (!vlen)
			return -400;
	} else if (IS("Transfer-Encoding")) {
		return -413;
	} else if (IS("Authorization")) {
		if (vlen >= HTTP_MAX_AUTH)
			return -431;
		memcpy(ret->auth, v, vlen);
		ret->auth[vlen] = '\0';
	} else if (IS("Connection")) {
		if (list_has(v, vlen, "close"))
			ret->keep_alive = false;
		else if (list_has(v, vlen, "keep-alive"))
			ret->keep_alive = true;
	} else if (IS("Accept")) {
		ret->accept_openmetrics = list_has(v, vlen, "application/openmetrics-text");
	}
#undef IS
	return 0;
}

int http_parse_request(const char *buf, size_t len, struct http_request *ret)
{
	const char *p = buf, *end = buf + (len > HTTP_MAX_HEAD ? HTTP_MAX_HEAD : len), *e, *next;
	unsigned nr = 0;
	int err;

	memset(ret, 0, sizeof(*ret));
	/* Robustness (RFC 9112 2.2): empty lines before the request line are skipped. */
	while (p < end && (*p == '\r' || *p == '\n'))
		p++;
	next = line_end(p, end, &e);
	if (!next) {
		if ((size_t)(end - p) > HTTP_MAX_TARGET + 32)
			return -414;
		return len >= HTTP_MAX_HEAD ? -431 : 0;
	}
	if (memchr(p, '\r', (size_t)(e - p)) || memchr(p, '\0', (size_t)(e - p)))
		return -400;
	err = parse_request_line(p, e, ret);
	if (err)
		return err;
	for (p = next;; p = next) {
		next = line_end(p, end, &e);
		if (!next)
			return len >= HTTP_MAX_HEAD ? -431 : 0;
		if (e == p)
			return (int)(next - buf); /* the blank line: the head is whole */
		if (memchr(p, '\r', (size_t)(e - p)) || memchr(p, '\0', (size_t)(e - p)))
			return -400;
		if (++nr > HTTP_MAX_HEADERS)
			return -431;
		err = parse_header(p, e, ret);
		if (err)
			return err;
	}
}

int http_query_param(const char *query, const char *name, char *out, size_t cap)
{
	size_t k = strlen(name);

	for (const char *p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
		const char *v, *stop;
		size_t o = 0;

		if (strncmp(p, name, k) || (p[k] != '=' && p[k] != '&' && p[k]))
			continue;
		v = p[k] == '=' ? p + k + 1 : p + k;
		stop = strchr(v, '&');
		if (!stop)
			stop = v + strlen(v);
		for (const char *c = v; c < stop; c++) {
			int ch = (unsigned char)*c;

			if (ch == '+') {
				ch = ' ';
			} else if (ch == '%') {
				if (stop - c < 3 || hex_digit(c[1]) < 0 || hex_digit(c[2]) < 0)
					return -EINVAL;
				ch = hex_digit(c[1]) * 16 + hex_digit(c[2]);
				c += 2;
			}
			if (ch < 0x20 || ch == 0x7f)
				return -EINVAL;
			if (o + 1 >= cap)
				return -E2BIG;
			out[o++] = (char)ch;
		}
		if (cap)
			out[o] = '\0';
		return (int)o;
	}
	return -ENOENT;
}
