// SPDX-License-Identifier: GPL-2.0-only
/*
 * Heavy responses in a child process, so that the event loop keeps sampling
 * (see serve.h). Building a session profile names and sorts every sample of
 * every thread: on a box of 3,500 threads that held the loop for 0.2-0.4 s,
 * eight missed ticks. A fork() costs the loop a few milliseconds and gives
 * the child the model as it is, copy-on-write; the child builds, writes the
 * response to the client's socket itself and exits.
 *
 * A profile of the next N seconds needs the model at both ends: the child
 * builds the start's profile at once, then follows the records the parent
 * ingests after the fork (a pipe, the "tee": every record app_emit passes,
 * in order) into its own copy, and builds the end's when the parent sends
 * the end mark. Records the pipe cannot take wait in a bounded queue; past
 * it the child is told it fell behind (the pipe closes early) and answers
 * 503 rather than a wrong profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve_internal.h"
#include "util.h"

#define TEE_PIPE_SIZE (1 << 20)
#define TEE_QUEUE_MAX (32u << 20) /* records waiting for the pipe, per child */
#define TEE_END 0xffffu		  /* the record type of the end mark */
#define CHILD_GRACE_NS (60 * NSEC_PER_SEC)
#define CHILD_SEND_TIMEOUT_S 30

/* The tee is over (sent whole, or cut short: the child then answers 503). */
static void worker_close_tee(struct serve *s, struct worker *w)
{
	if (w->tee_fd >= 0)
		close(w->tee_fd);
	w->tee_fd = -1;
	free(w->queue);
	w->queue = NULL;
	w->queue_len = w->queue_cap = 0;
	if (w->teeing)
		s->nr_tees--;
	w->teeing = false;
}

/* Sends what the pipe takes; false when the child fell behind or went away. */
static bool worker_flush(struct worker *w)
{
	while (w->queue_len) {
		ssize_t n = write(w->tee_fd, w->queue, w->queue_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true;
		if (n <= 0)
			return false;
		memmove(w->queue, w->queue + n, w->queue_len - (size_t)n);
		w->queue_len -= (size_t)n;
	}
	return true;
}

static void worker_put(struct serve *s, struct worker *w, const void *data, size_t len)
{
	if (w->queue_len + len > TEE_QUEUE_MAX) {
		worker_close_tee(s, w); /* fell behind: EOF before the end mark, a 503 */
		return;
	}
	xgrow((void **)&w->queue, &w->queue_cap, w->queue_len + len, 1);
	memcpy(w->queue + w->queue_len, data, len);
	w->queue_len += len;
	if (!worker_flush(w))
		worker_close_tee(s, w);
}

void serve__record(struct serve *s, const struct tt_event_header *ev)
{
	if (!s || !s->nr_tees)
		return;
	for (size_t i = 0; i < SERVE_MAX_WORKERS; i++)
		if (s->workers[i].teeing && !s->workers[i].ended)
			worker_put(s, &s->workers[i], ev, ev->size);
}

void serve_workers_sweep(struct serve *s, uint64_t now)
{
	for (size_t i = 0; i < SERVE_MAX_WORKERS; i++) {
		struct worker *w = &s->workers[i];
		struct tt_event_header end = {TEE_END, 1, sizeof(end), now};

		if (w->pid <= 0)
			continue;
		if (w->teeing && !w->ended && now >= w->due_ns) {
			w->ended = true;
			worker_put(s, w, &end, sizeof(end));
		}
		if (w->teeing && !worker_flush(w))
			worker_close_tee(s, w);
		if (w->teeing && w->ended && !w->queue_len)
			worker_close_tee(s, w); /* all sent: EOF after the end mark */
		if (now >= w->kill_ns)
			kill(w->pid, SIGKILL);
		if (waitpid(w->pid, NULL, WNOHANG) == w->pid) {
			worker_close_tee(s, w);
			w->pid = 0;
		}
	}
}

void serve_workers_stop(struct serve *s)
{
	for (size_t i = 0; i < SERVE_MAX_WORKERS; i++) {
		struct worker *w = &s->workers[i];

		if (w->pid <= 0)
			continue;
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
		worker_close_tee(s, w);
		w->pid = 0;
	}
}

unsigned serve_workers_busy(const struct serve *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < SERVE_MAX_WORKERS; i++)
		n += s->workers[i].pid > 0;
	return n;
}

/* In the child: the fds of the parent's other clients and children are not its own. */
static void child_close_others(struct serve *s, int keep)
{
	close(s->listen_fd);
	for (size_t i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i] && s->conns[i]->fd != keep)
			close(s->conns[i]->fd);
	for (size_t i = 0; i < SERVE_MAX_WORKERS; i++)
		if (s->workers[i].tee_fd >= 0)
			close(s->workers[i].tee_fd);
}

int serve_fork(struct serve *s, struct conn *c, uint64_t due_ns, bool tee, serve_job_fn job,
	       void *arg)
{
	struct worker *w = NULL;
	int fds[2] = {-1, -1}, sock = c->fd;
	pid_t parent = getpid(), pid;

	for (size_t i = 0; i < SERVE_MAX_WORKERS && !w; i++)
		if (s->workers[i].pid <= 0)
			w = &s->workers[i];
	if (!w)
		return -EBUSY;
	if (tee && pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		if (tee)
			close(fds[0]), close(fds[1]);
		return e;
	}
	if (pid == 0) {
		/* The child: never back into the loop, never through atexit or stdio. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		child_close_others(s, sock);
		if (tee)
			close(fds[1]);
		job(s, sock, tee ? fds[0] : -1, arg);
		_exit(0);
	}
	*w = (struct worker){.pid = pid,
			     .tee_fd = -1,
			     .due_ns = due_ns,
			     .kill_ns = (due_ns ? due_ns : monotonic_ns()) + CHILD_GRACE_NS};
	if (tee) {
		close(fds[0]);
		w->tee_fd = fds[1];
		w->teeing = true;
		fcntl(w->tee_fd, F_SETFL, O_NONBLOCK);
		fcntl(w->tee_fd, F_SETPIPE_SZ, TEE_PIPE_SIZE); /* best effort */
		s->nr_tees++;
	}
	serve_conn_close(s, c); /* the child answers on its copy */
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	for (size_t o = 0; o < len;) {
		ssize_t n = read(fd, (char *)buf + o, len - o);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		o += (size_t)n;
	}
	return 0;
}

int serve_child_follow(struct model *m, int fd)
{
	size_t cap = 1 << 16;
	struct tt_event_header *ev = xmalloc(cap);
	int e;

	while ((e = read_all(fd, ev, sizeof(*ev))) == 0) {
		if (ev->type == TEE_END)
			break;
		if (ev->size < sizeof(*ev) || ev->size > (1u << 24)) {
			e = -EPIPE;
			break;
		}
		if (ev->size > cap) {
			cap = ev->size;
			ev = xrealloc(ev, cap);
		}
		e = read_all(fd, ev + 1, ev->size - sizeof(*ev));
		if (e)
			break;
		/* As app_emit feeds the model, except that intervals do not end:
		 * no thread ages out, the session totals are all that is read. */
		switch (ev->type) {
		case TT_EV_CLOCK:
		case TT_EV_INTERVAL:
			model__advance(m, ev->time_ns);
			break;
		case TT_EV_FRAME_NAME:
		case TT_EV_BUILD_ID:
		case TT_EV_TRACE_LINE:
		case TT_EV_CMD_OUTPUT:
			break;
		default:
			model__ingest(m, ev);
			break;
		}
	}
	free(ev);
	return e;
}

void serve_child_respond(int sock, bool head, int status, const char *type, const char *extra,
			 const char *body, size_t len)
{
	struct timeval tv = {CHILD_SEND_TIMEOUT_S, 0};
	char head_text[512];
	int n = snprintf(head_text, sizeof(head_text),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
			 "Connection: close\r\n%s\r\n",
			 status, http_status_text(status), type, len, extra ? extra : "");

	fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) & ~O_NONBLOCK);
	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (n > 0 && (size_t)n < sizeof(head_text) &&
	    send(sock, head_text, (size_t)n, MSG_NOSIGNAL | (len && !head ? MSG_MORE : 0)) == n) {
		for (size_t o = 0; o < len && !head;) {
			ssize_t k = send(sock, body + o, len - o, MSG_NOSIGNAL);

			if (k <= 0)
				break;
			o += (size_t)k;
		}
	}
	shutdown(sock, SHUT_WR);
}
