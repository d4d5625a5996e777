// SPDX-License-Identifier: GPL-2.0-only
/*
 * The --serve listener and its connections (see serve.h): all non-blocking
 * in the one event loop, so a slow or hostile client costs a few buffers
 * and never a sampling tick. Bounds: SERVE_MAX_CONNS connections (an idle
 * keep-alive one is closed to make room), HTTP_MAX_HEAD bytes of request
 * head, HEAD_TIMEOUT to send it whole (slowloris), WRITE_TIMEOUT to read
 * the response, IDLE_TIMEOUT between requests. A sweep timer enforces the
 * times and answers the profiles that are due.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve_internal.h"
#include "user_file.h"
#include "util.h"

#define HEAD_TIMEOUT_NS (5 * NSEC_PER_SEC)
#define WRITE_TIMEOUT_NS (30 * NSEC_PER_SEC)
#define IDLE_TIMEOUT_NS (120 * NSEC_PER_SEC)
#define SWEEP_NS (NSEC_PER_SEC / 5)

void serve_conn_close(struct serve *s, struct conn *c)
{
	for (size_t i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i] == c)
			s->conns[i] = NULL;
	loop__remove_fd(s->loop, c->fd);
	close(c->fd);
	free(c->out);
	free(c);
}

/* Sends what the socket takes; a sent response makes room for the next request. */
static void conn_flush(struct serve *s, struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			loop__watch_write(s->loop, c->fd, true);
			return;
		}
		if (n <= 0) {
			serve_conn_close(s, c);
			return;
		}
		c->out_off += (size_t)n;
	}
	loop__watch_write(s->loop, c->fd, false);
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	c->served++;
	if (!c->keep_alive) {
		serve_conn_close(s, c);
		return;
	}
	c->state = CONN_READ;
	c->deadline_ns = monotonic_ns() + (c->in_len ? HEAD_TIMEOUT_NS : IDLE_TIMEOUT_NS);
}

void serve_respond(struct serve *s, struct conn *c, int status, const char *type, const char *body,
		   size_t len, const char *extra)
{
	char head[512];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
			 "Connection: %s\r\n%s\r\n",
			 status, http_status_text(status), type, len,
			 c->keep_alive ? "keep-alive" : "close", extra ? extra : "");
	size_t body_len = c->head ? 0 : len;

	if (n < 0 || (size_t)n >= sizeof(head))
		n = 0;
	free(c->out);
	c->out = xmalloc((size_t)n + body_len + 1);
	memcpy(c->out, head, (size_t)n);
	if (body_len)
		memcpy(c->out + n, body, body_len);
	c->out_len = (size_t)n + body_len;
	c->out_off = 0;
	c->state = CONN_WRITE;
	c->deadline_ns = monotonic_ns() + WRITE_TIMEOUT_NS;
	s->requests++;
	conn_flush(s, c);
}

void serve_error(struct serve *s, struct conn *c, int status, const char *why)
{
	char body[512];
	int n = snprintf(body, sizeof(body), "threadtop: %s\n", why);

	if (status >= 400 && status != 404 && status != 401)
		c->keep_alive = false; /* after a bad request, the stream cannot be trusted */
	serve_respond(s, c, status, "text/plain; charset=utf-8", body,
		      n > 0 && (size_t)n < sizeof(body) ? (size_t)n : 0,
		      status == 401 ? "WWW-Authenticate: Bearer realm=\"threadtop\"\r\n" : NULL);
}

/* Compares the whole of both, so the time taken says nothing of where they differ. */
static bool token_ok(const struct serve *s, const char *auth)
{
	const char *given = auth;
	size_t n, diff;

	if (strncasecmp(given, "Bearer ", 7))
		return false;
	given += 7;
	n = strlen(given);
	diff = n ^ s->token_len;
	for (size_t i = 0; i < s->token_len; i++)
		diff |= (unsigned char)s->token[i] ^ (unsigned char)(i < n ? given[i] : 0);
	return diff == 0;
}

/* Parses what c received; answers or starts what the request asks. */
static void conn_parse(struct serve *s, struct conn *c, uint64_t now)
{
	struct http_request *r = xmalloc(sizeof(*r));
	int n = http_parse_request(c->in, c->in_len, r);

	if (n == 0) {
		free(r);
		return;
	}
	if (n < 0) {
		c->keep_alive = false;
		serve_error(s, c, -n, "malformed or oversized request");
		free(r);
		return;
	}
	c->keep_alive = r->keep_alive;
	c->head = r->head;
	memmove(c->in, c->in + n, c->in_len - (size_t)n);
	c->in_len -= (size_t)n;
	if (s->token && !token_ok(s, r->auth))
		serve_error(s, c, 401, "this server needs the bearer token of --serve-token");
	else
		serve_route(s, c, r, now);
	free(r);
}

static int conn_event(struct serve *s, int fd, uint32_t events)
{
	struct conn *c = NULL;
	uint64_t now = monotonic_ns();

	for (size_t i = 0; i < SERVE_MAX_CONNS && !c; i++)
		if (s->conns[i] && s->conns[i]->fd == fd)
			c = s->conns[i];
	if (!c)
		return 0;
	if (c->state == CONN_WRITE && (events & EPOLLOUT)) {
		conn_flush(s, c);
		return 0;
	}
	if (!(events & ~EPOLLOUT))
		return 0;
	if (c->in_len == sizeof(c->in)) { /* pipelined past the bound while busy */
		serve_conn_close(s, c);
		return 0;
	}
	ssize_t n = recv(fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (n <= 0) {
		serve_conn_close(s, c);
		return 0;
	}
	if (c->state == CONN_READ && !c->in_len)
		c->deadline_ns = now + HEAD_TIMEOUT_NS; /* the whole head within it */
	c->in_len += (size_t)n;
	if (c->state == CONN_READ)
		conn_parse(s, c, now);
	return 0;
}

/* What a handler cost the loop: /metrics shows it (the server must not hold up ticks). */
static void account(struct serve *s, uint64_t since)
{
	uint64_t took = monotonic_ns() - since;

	s->busy_ns += took;
	if (took > s->longest_ns)
		s->longest_ns = took;
}

static int on_conn(void *ctx, int fd, uint32_t events)
{
	struct serve *s = ctx;
	uint64_t t0 = monotonic_ns();

	conn_event(s, fd, events);
	account(s, t0);
	return 0;
}

/* A slot for a new connection: a free one, else an idle keep-alive one's. */
static int free_slot(struct serve *s)
{
	int idle = -1;

	for (int i = 0; i < SERVE_MAX_CONNS; i++) {
		struct conn *c = s->conns[i];

		if (!c)
			return i;
		if (c->state == CONN_READ && !c->in_len &&
		    (idle < 0 || c->deadline_ns < s->conns[idle]->deadline_ns))
			idle = i;
	}
	if (idle >= 0)
		serve_conn_close(s, s->conns[idle]);
	return idle;
}

static void accept_all(struct serve *s, int fd)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
				   "Retry-After: 1\r\nConnection: close\r\n\r\n";
	for (int k = 0; k < SERVE_MAX_CONNS; k++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), slot;
		struct conn *c;

		if (cfd < 0)
			return; /* EAGAIN, or a connection that went away: nothing to do */
		slot = free_slot(s);
		if (slot < 0 || loop__add_fd(s->loop, cfd, on_conn, s) < 0) {
			/* Best effort: a client that cannot take 90 bytes gets nothing. */
			ssize_t sent =
				send(cfd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);

			(void)sent;
			s->refused++;
			close(cfd);
			continue;
		}
		c = xcalloc(1, sizeof(*c));
		c->fd = cfd;
		c->keep_alive = true;
		c->deadline_ns = monotonic_ns() + IDLE_TIMEOUT_NS;
		s->conns[slot] = c;
	}
}

static int on_accept(void *ctx, int fd, uint32_t events)
{
	struct serve *s = ctx;
	uint64_t t0 = monotonic_ns();

	accept_all(s, fd);
	account(s, t0);
	return 0;
}

static int on_sweep(void *ctx, uint64_t now, uint64_t expirations)
{
	struct serve *s = ctx;

	for (size_t i = 0; i < SERVE_MAX_CONNS; i++) {
		struct conn *c = s->conns[i];

		if (!c)
			continue;
		if (c->state == CONN_READ && c->in_len && now < c->deadline_ns) {
			conn_parse(s, c, now); /* a pipelined request that arrived with the last */
		} else if (now >= c->deadline_ns) {
			if (c->state == CONN_READ && c->in_len) {
				c->keep_alive = false;
				serve_error(s, c, 408, "the request head took too long");
			} else {
				serve_conn_close(s, c);
			}
		}
	}
	serve_workers_sweep(s, now);
	account(s, now);
	return 0;
}

/* "HOST:PORT", "[V6]:PORT", ":PORT", "PORT" into ss; loopback unless HOST says otherwise. */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *ret_len)
{
	char host[64] = "127.0.0.1";
	const char *colon = strrchr(addr, ':'), *port_s = colon ? colon + 1 : addr;
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	char *end;
	long port;

	if (colon && colon > addr) {
		size_t n = (size_t)(colon - addr);

		if (addr[0] == '[' && colon[-1] == ']')
			addr++, n -= 2;
		if (n >= sizeof(host))
			return -EINVAL;
		memcpy(host, addr, n);
		host[n] = '\0';
	}
	errno = 0;
	port = strtol(port_s, &end, 10);
	if (!*port_s || *end || errno || port < 0 || port > 65535)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*ret_len = sizeof(*v4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*ret_len = sizeof(*v6);
		return 0;
	}
	return -EINVAL;
}

static int read_token(struct serve *s, const char *path)
{
	char buf[SERVE_MAX_TOKEN + 2];
	struct stat st;
	int fd = user_file_open(path, USER_FILE_READ, false, 0);
	ssize_t n;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || st.st_size > SERVE_MAX_TOKEN + 1) {
		close(fd);
		return -EFBIG;
	}
	n = read_fd(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		n--;
	if (n == 0 || n > SERVE_MAX_TOKEN)
		return n ? -EFBIG : -ENODATA;
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] <= 0x20 || (unsigned char)buf[i] >= 0x7f)
			return -EINVAL;
	s->token = xstrndup(buf, (size_t)n);
	s->token_len = (size_t)n;
	return 0;
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

static int start_listener(struct serve *s, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, e;
	char host[INET6_ADDRSTRLEN] = "?";

	if (parse_addr(s->o.addr, &ss, &len) < 0) {
		snprintf(err, errlen,
			 "--serve %s: not an address: give PORT, :PORT, HOST:PORT or [V6]:PORT "
			 "with a numeric host (127.0.0.1:9464)",
			 s->o.addr);
		return -EINVAL;
	}
	s->loopback = is_loopback(&ss);
	s->listen_fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0 ||
	    setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s->listen_fd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(s->listen_fd, SERVE_MAX_CONNS) < 0 ||
	    getsockname(s->listen_fd, (struct sockaddr *)&ss, &len) < 0) {
		e = -errno;
		snprintf(err, errlen, "--serve %s: cannot listen: %s%s", s->o.addr, strerror(-e),
			 e == -EADDRINUSE      ? "; another program has that port: choose another"
			 : e == -EADDRNOTAVAIL ? "; no interface has that address"
					       : "");
		return e;
	}
	if (ss.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
		snprintf(s->address, sizeof(s->address), "%s:%u", host,
			 ntohs(((struct sockaddr_in *)&ss)->sin_port));
	} else {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
		snprintf(s->address, sizeof(s->address), "[%s]:%u", host,
			 ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	}
	return 0;
}

struct serve *serve__new(struct loop *loop, const struct serve_opts *o, const struct serve_host *h,
			 char *err, size_t errlen)
{
	struct serve *s = xcalloc(1, sizeof(*s));
	int e;

	s->loop = loop;
	s->o = *o;
	s->h = *h;
	s->listen_fd = -1;
	s->timer = -1;
	if (!s->o.top)
		s->o.top = SERVE_DEFAULT_TOP;
	if (o->token_path && (e = read_token(s, o->token_path)) < 0) {
		snprintf(err, errlen, "--serve-token %s: %s", o->token_path,
			 e == -EFBIG	 ? "larger than 4 KiB: give a file holding just the token"
			 : e == -ENODATA ? "empty: put the token in it"
			 : e == -EINVAL	 ? "holds spaces or control bytes: a token is one word"
					 : user_file_reason(e, USER_FILE_READ));
		goto fail;
	}
	e = start_listener(s, err, errlen);
	if (e < 0)
		goto fail;
	e = loop__add_fd(loop, s->listen_fd, on_accept, s);
	if (e >= 0)
		e = s->timer = loop__add_timer(loop, SWEEP_NS, SWEEP_NS, on_sweep, s);
	if (e < 0) {
		snprintf(err, errlen, "--serve %s: cannot watch the socket: %s", o->addr,
			 strerror(-e));
		goto fail;
	}
	return s;
fail:
	serve__free(s);
	errno = e < 0 ? -e : EINVAL;
	return NULL;
}

void serve__free(struct serve *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i])
			serve_conn_close(s, s->conns[i]);
	serve_workers_stop(s);
	if (s->timer >= 0)
		loop__set_timer(s->loop, s->timer, 0, 0);
	if (s->listen_fd >= 0) {
		loop__remove_fd(s->loop, s->listen_fd);
		close(s->listen_fd);
	}
	free(s->token);
	free(s);
}

const char *serve__address(const struct serve *s)
{
	return s->address;
}

bool serve__loopback(const struct serve *s)
{
	return s->loopback;
}

void serve__interval(struct serve *s)
{
	if (s)
		serve_metrics_interval(s, s->h.model(s->h.ctx));
}
