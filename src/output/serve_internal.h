/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What serve.c (sockets, connections, time limits), serve_routes.c (what
 * each path answers, pending profiles) and serve_metrics.c (/metrics)
 * share.
 */
#ifndef THREADTOP_SERVE_INTERNAL_H
#define THREADTOP_SERVE_INTERNAL_H

#include <stdio.h>

#include "http_request.h"
#include "profile.h"
#include "serve.h"

#define SERVE_MAX_CONNS 16
#define SERVE_MAX_PENDING 4 /* profiles being taken at once */
#define SERVE_MAX_TOKEN 4096
#define SERVE_MAX_SYSCALLS 1024 /* syscall numbers counted (x86-64 has < 512) */

enum conn_state {
	CONN_READ,  /* reading a request head */
	CONN_WAIT,  /* a profile is being taken: answered when due */
	CONN_WRITE, /* sending a response */
};

struct conn {
	int fd;
	enum conn_state state;
	bool keep_alive;
	bool head; /* a HEAD request: the response has no body */
	char in[HTTP_MAX_HEAD];
	size_t in_len;
	uint64_t deadline_ns; /* closed past it (a 408 when a request was begun) */
	uint64_t served;      /* responses sent on this connection */
	char *out;	      /* the response being sent */
	size_t out_len, out_off;
	/* CONN_WAIT: the profile of kind between before's build and due_ns. */
	struct profile *before;
	enum profile_kind kind;
	struct model_filter filter;
	char comm[TT_COMM_LEN];
	uint64_t due_ns;
};

/* Counters /metrics keeps itself: sums over the intervals seen (serve__interval). */
struct serve_counters {
	uint64_t syscall_count[SERVE_MAX_SYSCALLS];
	uint64_t syscall_ns[SERVE_MAX_SYSCALLS];
	uint64_t offcpu_ns, offcpu_switches;
	uint64_t intervals;
};

struct serve {
	struct loop *loop;
	struct serve_opts o;
	struct serve_host h;
	int listen_fd;
	int timer;
	char address[64];
	bool loopback;
	char *token; /* NULL: no token asked for */
	size_t token_len;
	struct conn *conns[SERVE_MAX_CONNS];
	unsigned nr_pending;
	struct serve_counters c;
	uint64_t requests, refused;   /* for /metrics: threadtop_serve_* */
	uint64_t busy_ns, longest_ns; /* time the loop spent in the server's handlers */
};

/*
 * serve.c: queues a response on c (status, content type, body of len
 * bytes, copied; extra: more header lines, each ending in CRLF, or NULL).
 */
void serve_respond(struct serve *s, struct conn *c, int status, const char *type, const char *body,
		   size_t len, const char *extra);
/* A one-line text error response ("threadtop: why\n"). */
void serve_error(struct serve *s, struct conn *c, int status, const char *why);

/* serve_routes.c: answers the request parsed into r (or starts a profile). */
void serve_route(struct serve *s, struct conn *c, const struct http_request *r, uint64_t now_ns);
/* Answers c's profile when it is due (by now_ns). */
void serve_profile_due(struct serve *s, struct conn *c, uint64_t now_ns);
/* Drops c's pending profile (the client went away). */
void serve_profile_cancel(struct serve *s, struct conn *c);

/* serve_metrics.c: the Prometheus text of the model to f. 0 or -errno. */
int serve_metrics_write(struct serve *s, struct model *m, FILE *f);
/* Adds the interval that just closed to s->c. */
void serve_metrics_interval(struct serve *s, struct model *m);

/* Writes v as a Prometheus label value: \\, \" and \n escaped, control bytes as text. */
void serve_label_value(FILE *f, const char *v);

#endif /* THREADTOP_SERVE_INTERNAL_H */
