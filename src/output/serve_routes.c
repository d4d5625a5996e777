// SPDX-License-Identifier: GPL-2.0-only
/*
 * What each --serve path answers (see serve.h). The profiles follow Go's
 * net/http/pprof: /debug/pprof/profile?seconds=N answers after N seconds
 * with what was sampled in them. A child process (serve_fork.c) takes the
 * session's profile as it was when the request came, follows the records
 * for N seconds, and answers with the session's profile then minus the
 * first (profile__subtract), written by the pprof exporter as --export
 * writes it; the loop goes on sampling. The JSON report is built in a
 * child too; /metrics, a few queries, in the loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_internal.h"
#include "util.h"

#define DEFAULT_SECONDS 30 /* as Go's handler */

static const char index_text[] =
	"threadtop " TT_VERSION "\n"
	"/metrics                          Prometheus text: threads by state, CPU, syscalls,\n"
	"                                  USE metrics, verdict, drops, threadtop's cost\n"
	"/debug/pprof/profile?seconds=N    on-CPU profile of the next N seconds (pprof)\n"
	"/debug/pprof/offcpu?seconds=N     off-CPU time (with --offcpu)\n"
	"/debug/pprof/io?seconds=N         block I/O requests by stack (with --io)\n"
	"/debug/pprof/threads?seconds=N    thread samples by state, wall time\n"
	"                                  filters: pid=PID comm=SUBSTRING cgroup=ID\n"
	"/api/v1/snapshot                  the JSON report of the last interval\n";

/* Runs write over a memory stream; the bytes in *ret (free them), their count in *ret_len. */
static int to_memory(int (*write)(void *arg, FILE *f), void *arg, char **ret, size_t *ret_len)
{
	FILE *f = open_memstream(ret, ret_len);
	int e;

	if (!f)
		return -errno;
	e = write(arg, f);
	if (fclose(f) != 0 && !e)
		e = -EIO;
	if (e) {
		free(*ret);
		*ret = NULL;
	}
	return e;
}

struct job {
	struct serve *s;
	struct model *m;
	const struct profile *p;
	enum profile_kind kind;
	enum export_format fmt;
	enum model_window window;
	const struct model_filter *filter;
};

static int write_export(void *arg, FILE *f)
{
	struct job *j = arg;
	struct export_opts eo;

	j->s->h.export_opts(j->s->h.ctx, &eo);
	eo.window = j->window;
	eo.filter = j->filter;
	return export__write_stream(j->m, j->p, (int)j->kind, j->fmt, &eo, f);
}

static int write_metrics(void *arg, FILE *f)
{
	struct job *j = arg;

	return serve_metrics_write(j->s, j->m, f);
}

static void respond_with(struct serve *s, struct conn *c, struct job *j,
			 int (*write)(void *arg, FILE *f), const char *type, const char *extra)
{
	char *body = NULL;
	size_t len = 0;
	int e = to_memory(write, j, &body, &len);

	if (e) {
		char why[128];

		snprintf(why, sizeof(why), "cannot write the response: %s", strerror(-e));
		serve_error(s, c, 500, why);
		return;
	}
	serve_respond(s, c, 200, type, body, len, extra);
	free(body);
}

static struct profile *session_profile(struct serve *s, struct model *m,
				       const struct model_filter *f)
{
	struct export_opts eo;

	s->h.export_opts(s->h.ctx, &eo);
	return profile__build(m, &(struct profile_opts){WIN_SESSION, f, eo.namer, eo.cpu_hz});
}

/* What a child that takes a profile is asked. */
struct profile_job {
	enum profile_kind kind;
	struct model_filter filter;
	char comm[TT_COMM_LEN];
	bool head;
};

/* In the child: the session's profile now, then at the end mark, the difference. */
static void profile_child(struct serve *s, int sock, int tee_fd, void *arg)
{
	struct profile_job *pj = arg;
	struct model *m = s->h.model(s->h.ctx);
	struct profile *before, *p;
	struct job j = {s, m, NULL, pj->kind, EXPORT_PPROF, WIN_SESSION, &pj->filter};
	char disp[96], *body = NULL;
	size_t len = 0;

	if (*pj->comm)
		pj->filter.comm_substr = pj->comm;
	before = session_profile(s, m, &pj->filter);
	if (serve_child_follow(m, tee_fd) < 0) {
		static const char why[] = "threadtop: the profile fell behind the samples (an "
					  "overloaded box): try again\n";

		serve_child_respond(sock, pj->head, 503, "text/plain; charset=utf-8", NULL, why,
				    sizeof(why) - 1);
		return;
	}
	p = session_profile(s, m, &pj->filter);
	profile__subtract(p, before, 1u << pj->kind);
	j.p = p;
	snprintf(disp, sizeof(disp), "Content-Disposition: attachment; filename=\"%s\"\r\n",
		 pj->kind == PROFILE_ONCPU ? "profile" : profile_kind_name(pj->kind));
	if (to_memory(write_export, &j, &body, &len) == 0)
		serve_child_respond(sock, pj->head, 200, "application/octet-stream", disp, body,
				    len);
	else
		serve_child_respond(sock, pj->head, 500, "text/plain; charset=utf-8", NULL, "", 0);
	free(body);
}

/* In the child: the JSON report of the last interval. */
static void snapshot_child(struct serve *s, int sock, int tee_fd, void *arg)
{
	bool head = *(const bool *)arg;
	struct job j = {s,   s->h.model(s->h.ctx), NULL, PROFILE_THREADS, EXPORT_JSON, WIN_LAST,
			NULL};
	char *body = NULL;
	size_t len = 0;

	if (to_memory(write_export, &j, &body, &len) == 0)
		serve_child_respond(sock, head, 200, "application/json", NULL, body, len);
	else
		serve_child_respond(sock, head, 500, "text/plain; charset=utf-8", NULL, "", 0);
	free(body);
}

/* Hands c to a child running job; says why when it cannot. */
static void to_child(struct serve *s, struct conn *c, uint64_t due_ns, bool tee, serve_job_fn job,
		     void *arg)
{
	char why[160];
	int e = serve_fork(s, c, due_ns, tee, job, arg);

	if (e == -EBUSY) {
		serve_error(s, c, 503, "4 profiles or snapshots are being made already: try again");
	} else if (e < 0) {
		snprintf(why, sizeof(why), "cannot start the process that builds it: %s",
			 strerror(-e));
		serve_error(s, c, 503, why);
	}
}

/* An unsigned decimal parameter in [lo, hi]; def when absent. 0, or -EINVAL. */
static int number_param(const char *query, const char *name, uint64_t lo, uint64_t hi, uint64_t def,
			uint64_t *ret)
{
	char buf[24], *end;
	int n = http_query_param(query, name, buf, sizeof(buf));
	unsigned long long v;

	if (n == -ENOENT) {
		*ret = def;
		return 0;
	}
	if (n <= 0 || buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -EINVAL;
	*ret = v;
	return 0;
}

static void start_profile(struct serve *s, struct conn *c, const char *query,
			  enum profile_kind kind, uint64_t now_ns)
{
	uint64_t max = s->o.max_seconds >= 1 ? (uint64_t)s->o.max_seconds : 1, secs, pid, cg;
	char why[160];
	int n;

	if (number_param(query, "seconds", 1, max, DEFAULT_SECONDS < max ? DEFAULT_SECONDS : max,
			 &secs) < 0) {
		snprintf(why, sizeof(why),
			 "seconds: need a whole number from 1 to %llu (the threads' retention, "
			 "--retain)",
			 (unsigned long long)max);
		serve_error(s, c, 400, why);
		return;
	}
	struct profile_job pj = {.kind = kind, .head = c->head};

	pj.filter.syscall = MODEL_ANY_SYSCALL;
	if (number_param(query, "pid", 1, UINT32_MAX, 0, &pid) < 0 ||
	    number_param(query, "cgroup", 1, UINT64_MAX, 0, &cg) < 0) {
		serve_error(s, c, 400, "pid and cgroup: need a process id and a cgroup id");
		return;
	}
	n = http_query_param(query, "comm", pj.comm, sizeof(pj.comm));
	if (n < 0 && n != -ENOENT) {
		serve_error(s, c, 400, "comm: need at most 15 bytes of a thread name");
		return;
	}
	if (n < 0)
		pj.comm[0] = '\0';
	pj.filter.pid = (uint32_t)pid;
	pj.filter.cgroup_id = cg;
	to_child(s, c, now_ns + secs * NSEC_PER_SEC, true, profile_child, &pj);
}

void serve_route(struct serve *s, struct conn *c, const struct http_request *r, uint64_t now_ns)
{
	struct model *m = s->h.model(s->h.ctx);
	struct job j = {s, m, NULL, PROFILE_THREADS, EXPORT_JSON, WIN_LAST, NULL};

	if (!strcmp(r->path, "/metrics")) {
		respond_with(s, c, &j, write_metrics, "text/plain; version=0.0.4; charset=utf-8",
			     NULL);
	} else if (!strcmp(r->path, "/api/v1/snapshot")) {
		bool head = r->head;

		to_child(s, c, 0, false, snapshot_child, &head);
	} else if (!strcmp(r->path, "/debug/pprof/profile")) {
		if (!s->o.cpu_hz)
			serve_error(s, c, 404, "on-CPU sampling is off (--cpu-hz 0): no profile");
		else
			start_profile(s, c, r->query, PROFILE_ONCPU, now_ns);
	} else if (!strcmp(r->path, "/debug/pprof/offcpu")) {
		if (!s->o.offcpu)
			serve_error(s, c, 404, "off-CPU profiles need threadtop --offcpu");
		else
			start_profile(s, c, r->query, PROFILE_OFFCPU, now_ns);
	} else if (!strcmp(r->path, "/debug/pprof/io")) {
		if (!s->o.io)
			serve_error(s, c, 404, "block I/O profiles need threadtop --io");
		else
			start_profile(s, c, r->query, PROFILE_IO, now_ns);
	} else if (!strcmp(r->path, "/debug/pprof/threads")) {
		start_profile(s, c, r->query, PROFILE_THREADS, now_ns);
	} else if (!strcmp(r->path, "/") || !strcmp(r->path, "/debug/pprof/")) {
		serve_respond(s, c, 200, "text/plain; charset=utf-8", index_text,
			      sizeof(index_text) - 1, NULL);
	} else {
		serve_error(s, c, 404, "no such path: see / for what is served");
	}
}
