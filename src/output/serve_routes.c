// SPDX-License-Identifier: GPL-2.0-only
/*
 * What each --serve path answers (see serve.h). The profiles follow Go's
 * net/http/pprof: /debug/pprof/profile?seconds=N answers after N seconds
 * with what was sampled in them. Here the connection waits (the loop goes
 * on sampling) holding the session's profile as it was when the request
 * came; when due, the session's profile then minus that one is the window
 * (profile__subtract), written by the pprof exporter as --export writes it.
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

void serve_profile_cancel(struct serve *s, struct conn *c)
{
	if (!c->before)
		return;
	profile__free(c->before);
	c->before = NULL;
	s->nr_pending--;
}

void serve_profile_due(struct serve *s, struct conn *c, uint64_t now_ns)
{
	struct model *m = s->h.model(s->h.ctx);
	struct model_filter f = c->filter;
	struct profile *p;
	struct job j = {s, m, NULL, c->kind, EXPORT_PPROF, WIN_SESSION, &f};
	char disp[96];

	if (now_ns < c->due_ns)
		return;
	if (*c->comm)
		f.comm_substr = c->comm;
	p = session_profile(s, m, &f);
	profile__subtract(p, c->before, 1u << c->kind);
	serve_profile_cancel(s, c);
	j.p = p;
	snprintf(disp, sizeof(disp), "Content-Disposition: attachment; filename=\"%s\"\r\n",
		 c->kind == PROFILE_ONCPU ? "profile" : profile_kind_name(c->kind));
	respond_with(s, c, &j, write_export, "application/octet-stream", disp);
	profile__free(p);
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
	memset(&c->filter, 0, sizeof(c->filter));
	c->filter.syscall = MODEL_ANY_SYSCALL;
	if (number_param(query, "pid", 1, UINT32_MAX, 0, &pid) < 0 ||
	    number_param(query, "cgroup", 1, UINT64_MAX, 0, &cg) < 0) {
		serve_error(s, c, 400, "pid and cgroup: need a process id and a cgroup id");
		return;
	}
	n = http_query_param(query, "comm", c->comm, sizeof(c->comm));
	if (n < 0 && n != -ENOENT) {
		serve_error(s, c, 400, "comm: need at most 15 bytes of a thread name");
		return;
	}
	if (n < 0)
		c->comm[0] = '\0';
	if (s->nr_pending >= SERVE_MAX_PENDING) {
		serve_error(s, c, 503, "4 profiles are being taken already: try again later");
		return;
	}
	c->filter.pid = (uint32_t)pid;
	c->filter.cgroup_id = cg;
	if (*c->comm)
		c->filter.comm_substr = c->comm;
	c->kind = kind;
	c->before = session_profile(s, s->h.model(s->h.ctx), &c->filter);
	c->filter.comm_substr = NULL; /* c->comm again when due: c may not stay put */
	c->due_ns = now_ns + secs * NSEC_PER_SEC;
	c->state = CONN_WAIT;
	s->nr_pending++;
}

void serve_route(struct serve *s, struct conn *c, const struct http_request *r, uint64_t now_ns)
{
	struct model *m = s->h.model(s->h.ctx);
	struct job j = {s, m, NULL, PROFILE_THREADS, EXPORT_JSON, WIN_LAST, NULL};

	if (!strcmp(r->path, "/metrics")) {
		respond_with(s, c, &j, write_metrics, "text/plain; version=0.0.4; charset=utf-8",
			     NULL);
	} else if (!strcmp(r->path, "/api/v1/snapshot")) {
		respond_with(s, c, &j, write_export, "application/json", NULL);
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
	} else if (!strcmp(r->path, "/debug/pprof/threads")) {
		start_profile(s, c, r->query, PROFILE_THREADS, now_ns);
	} else if (!strcmp(r->path, "/") || !strcmp(r->path, "/debug/pprof/")) {
		serve_respond(s, c, 200, "text/plain; charset=utf-8", index_text,
			      sizeof(index_text) - 1, NULL);
	} else {
		serve_error(s, c, 404, "no such path: see / for what is served");
	}
}
