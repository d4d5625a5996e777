/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What serve.c (sockets, connections, time limits), serve_routes.c (what
 * each path answers, pending profiles) and serve_metrics.c (/metrics)
 * share.
 */
#ifndef THREADTOP_SERVE_INTERNAL_H
#define THREADTOP_SERVE_INTERNAL_H

#include <stdio.h>
#include <sys/types.h>

#include "http_request.h"
#include "profile.h"
#include "serve.h"

#define SERVE_MAX_CONNS 16
#define SERVE_MAX_WORKERS 4 /* children building responses (serve_fork.c) */
#define SERVE_MAX_TOKEN 4096
#define SERVE_MAX_SYSCALLS 1024 /* syscall numbers counted (x86-64 has < 512) */

enum conn_state {
	CONN_READ,  /* reading a request head */
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
};

/* A child answering one request (serve_fork.c). */
struct worker {
	pid_t pid;   /* 0: a free slot */
	int tee_fd;  /* the pipe of records since the fork, -1 when over */
	bool teeing; /* counted in serve.nr_tees */
	bool ended;  /* the end mark is queued */
	char *queue; /* records the pipe did not take yet */
	size_t queue_len, queue_cap;
	uint64_t due_ns;  /* the end mark goes then */
	uint64_t kill_ns; /* still running then: killed */
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
	struct worker workers[SERVE_MAX_WORKERS];
	unsigned nr_tees; /* workers being sent records */
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

/* serve.c: closes c and frees it. */
void serve_conn_close(struct serve *s, struct conn *c);

/* serve_routes.c: answers the request parsed into r (or hands it to a child). */
void serve_route(struct serve *s, struct conn *c, const struct http_request *r, uint64_t now_ns);

/*
 * serve_fork.c. serve_fork runs job in a child process that owns c's
 * socket (c is closed here on success): sock is the socket, tee_fd the read
 * end of the records the parent ingests from now until due_ns (tee), else
 * -1. Returns 0 or a negative errno (-EBUSY: SERVE_MAX_WORKERS running).
 */
typedef void (*serve_job_fn)(struct serve *s, int sock, int tee_fd, void *arg);
int serve_fork(struct serve *s, struct conn *c, uint64_t due_ns, bool tee, serve_job_fn job,
	       void *arg);
/* Sends the end marks that are due, flushes the tees, reaps and kills children. */
void serve_workers_sweep(struct serve *s, uint64_t now);
void serve_workers_stop(struct serve *s);
unsigned serve_workers_busy(const struct serve *s);
/* In a child: ingests the tee into m until the end mark; 0, or -EPIPE when cut short. */
int serve_child_follow(struct model *m, int fd);
/* In a child: the whole response, blocking (Connection: close). */
void serve_child_respond(int sock, bool head, int status, const char *type, const char *extra,
			 const char *body, size_t len);

/* serve_metrics.c: the Prometheus text of the model to f. 0 or -errno. */
int serve_metrics_write(struct serve *s, struct model *m, FILE *f);
/* Adds the interval that just closed to s->c. */
void serve_metrics_interval(struct serve *s, struct model *m);

/* Writes v as a Prometheus label value: \\, \" and \n escaped, control bytes as text. */
void serve_label_value(FILE *f, const char *v);

#endif /* THREADTOP_SERVE_INTERNAL_H */
