// SPDX-License-Identifier: GPL-2.0-only
/* Trace and command capture wired into the loop (see capture.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threadtop/capture.h"
#include "threadtop/util.h"

struct capture {
	struct loop *loop;
	struct tracer *tracer;
	struct cmdcap *cmds;
};

static int on_trace_pipe(void *ctx, int fd, uint32_t events)
{
	struct capture *c = ctx;
	int n = tracer__read(c->tracer);

	/* A read error is not worth ending the run: stop watching instead. */
	if (n < 0 && n != -EAGAIN)
		loop__remove_fd(c->loop, fd);
	return 0;
}

struct capture *capture__new(const struct options *o, struct loop *loop, char *err, size_t errlen,
			     char *note, size_t notelen)
{
	struct capture *c = xcalloc(1, sizeof(*c));
	int ret;

	c->loop = loop;
	note[0] = err[0] = '\0';
	if (o->nr_traces) {
		struct tracer_opts to = {o->traces, o->nr_traces, o->trace_lines, NULL};

		c->tracer = tracer__new(&to, err, errlen, note, notelen);
		if (!c->tracer)
			goto fail;
		ret = loop__add_fd(loop, tracer__fd(c->tracer), on_trace_pipe, c);
		if (ret < 0) {
			snprintf(err, errlen, "--trace: cannot watch trace_pipe: %s",
				 strerror(-ret));
			errno = -ret;
			goto fail;
		}
	}
	if (o->nr_cmds) {
		struct cmdcap_opts co = {o->cmds, o->nr_cmds,
					 (uint64_t)(o->cmd_timeout_s * (double)NSEC_PER_SEC),
					 (size_t)o->cmd_max_output, NULL};

		c->cmds = cmdcap__new(&co, loop);
		if (!c->cmds) {
			snprintf(err, errlen, "--cmd: cannot set up command capture: %s",
				 strerror(errno));
			goto fail;
		}
	}
	return c;
fail:
	ret = errno;
	capture__free(c);
	errno = ret;
	return NULL;
}

void capture__free(struct capture *c)
{
	if (!c)
		return;
	/* Commands first: a child between fork and exec still holds trace_pipe,
	 * which keeps the instance busy. */
	cmdcap__free(c->cmds);
	if (c->tracer)
		loop__remove_fd(c->loop, tracer__fd(c->tracer));
	tracer__free(c->tracer);
	free(c);
}

int capture__start(struct capture *c)
{
	int n = c->cmds ? cmdcap__run_all(c->cmds) : 0;

	return n < 0 ? n : 0;
}

void capture__interval_end(struct capture *c)
{
	if (c->tracer)
		tracer__read(c->tracer);
}

void capture__interval_next(struct capture *c)
{
	if (c->tracer)
		tracer__end_interval(c->tracer);
	if (c->cmds)
		cmdcap__run_all(c->cmds);
}

const struct tracer *capture__tracer(const struct capture *c)
{
	return c ? c->tracer : NULL;
}

const struct cmdcap *capture__cmds(const struct capture *c)
{
	return c ? c->cmds : NULL;
}
