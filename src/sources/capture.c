// SPDX-License-Identifier: GPL-2.0-only
/* Trace and command capture wired into the loop (see capture.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dict_budget.h"
#include "capture.h"
#include "event_codec.h"
#include "util.h"

/* A record being built: aligned for the event structs, as large as any. */
union record_buf {
	struct tt_event_header hdr;
	struct tt_trace_line line;
	struct tt_cmd_output cmd;
	unsigned char bytes[TT_EVENT_MAX_SIZE];
};

struct capture {
	struct loop *loop; /* NULL for a replay's capture */
	struct tracer *tracer;
	struct cmdcap *cmds;
	uint64_t runs_recorded[CMDCAP_MAX]; /* runs of each command already recorded */
	size_t replay_lines;		    /* a replay's --trace-lines */
	struct dict_budget *budget;	    /* not owned, or NULL */
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

struct capture *capture__new(const struct tracer_opts *to, const struct cmdcap_opts *co,
			     struct loop *loop, char *err, size_t errlen, char *note,
			     size_t notelen)
{
	struct capture *c = xcalloc(1, sizeof(*c));
	int ret;

	c->loop = loop;
	note[0] = err[0] = '\0';
	if (to && to->nr_events) {
		c->tracer = tracer__new(to, err, errlen, note, notelen);
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
	if (co && co->nr) {
		c->cmds = cmdcap__new(co, loop);
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
	if (c->tracer && c->loop)
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

static void record_line(const struct event_sink *sink, uint64_t now, const char *event,
			const char *line, uint64_t total, uint64_t lost)
{
	static union record_buf b;
	size_t el = strlen(event), ll = strlen(line);

	if (el < 3 || el > TT_TRACE_EVENT_MAX)
		return;
	if (ll > TT_TRACE_LINE_MAX)
		ll = TT_TRACE_LINE_MAX;
	memset(&b.line, 0, sizeof(b.line));
	b.line.hdr = (struct tt_event_header){TT_EV_TRACE_LINE, TT_TRACE_LINE_VERSION,
					      (uint32_t)(sizeof(b.line) + el + ll), now};
	b.line.total = total;
	b.line.lost = lost;
	b.line.event_len = (uint16_t)el;
	b.line.line_len = (uint16_t)ll;
	memcpy(b.line.data, event, el);
	memcpy(b.line.data + el, line, ll);
	sink_emit(sink, &b.hdr);
}

static void record_traces(const struct tracer *t, const struct event_sink *sink, uint64_t now)
{
	for (size_t i = 0; i < tracer__count(t); i++) {
		struct trace_stats st;
		bool fresh = true;
		size_t n = 0;

		tracer__stats(t, i, &st);
		while (tracer__line(t, i, n, &fresh) && fresh)
			n++;
		for (size_t j = n; j-- > 0;)
			record_line(sink, now, st.event, tracer__line(t, i, j, NULL), st.total - j,
				    tracer__lost(t));
	}
}

static void record_run(const struct cmd_result *r, size_t index, const struct event_sink *sink,
		       uint64_t now)
{
	static union record_buf b;
	size_t cl = strlen(r->cmd), total = r->output_len, off = 0;

	if (cl > TT_CMD_TEXT_MAX)
		cl = TT_CMD_TEXT_MAX;
	if (total > TT_CMD_OUTPUT_MAX)
		total = TT_CMD_OUTPUT_MAX;
	if (!cl)
		return;
	do {
		size_t piece = total - off;

		if (piece > TT_MAX_STRING_LEN - cl)
			piece = TT_MAX_STRING_LEN - cl;
		memset(&b.cmd, 0, sizeof(b.cmd));
		b.cmd.hdr = (struct tt_event_header){TT_EV_CMD_OUTPUT, TT_CMD_OUTPUT_VERSION,
						     (uint32_t)(sizeof(b.cmd) + cl + piece), now};
		b.cmd.started_ns = r->started_ns;
		b.cmd.duration_ns = r->duration_ns;
		b.cmd.runs = r->runs;
		b.cmd.skipped = r->skipped;
		b.cmd.output_len = (uint32_t)total;
		b.cmd.offset = (uint32_t)off;
		b.cmd.exit_code = r->signal ? -1 : r->exit_code;
		b.cmd.signal = r->signal;
		b.cmd.index = (uint16_t)index;
		b.cmd.flags = (uint16_t)((r->timed_out ? TT_CMD_TIMED_OUT : 0) |
					 (r->truncated ? TT_CMD_TRUNCATED : 0));
		b.cmd.cmd_len = (uint16_t)cl;
		b.cmd.piece_len = (uint16_t)piece;
		memcpy(b.cmd.data, r->cmd, cl);
		memcpy(b.cmd.data + cl, r->output + off, piece);
		sink_emit(sink, &b.hdr);
		off += piece;
	} while (off < total);
}

void capture__record(struct capture *c, const struct event_sink *sink, uint64_t now)
{
	if (!c || !c->loop)
		return;
	if (c->tracer)
		record_traces(c->tracer, sink, now);
	for (size_t i = 0; c->cmds && i < cmdcap__count(c->cmds) && i < TT_CMD_MAX; i++) {
		struct cmd_result r;

		cmdcap__result(c->cmds, i, &r);
		if (!r.done || r.runs == c->runs_recorded[i])
			continue;
		c->runs_recorded[i] = r.runs;
		record_run(&r, i, sink, now);
	}
}

void capture__set_budget(struct capture *c, struct dict_budget *b)
{
	c->budget = b;
	if (c->tracer)
		tracer__set_budget(c->tracer, b);
	if (c->cmds && !c->loop)
		cmdcap__set_budget(c->cmds, b);
}

struct capture *capture__new_replay(size_t trace_lines)
{
	struct capture *c = xcalloc(1, sizeof(*c));

	c->replay_lines = trace_lines;
	return c;
}

int capture__replay_record(struct capture *c, const struct tt_event_header *ev)
{
	if (c->loop)
		return -EINVAL;
	if (ev->type == TT_EV_TRACE_LINE) {
		const struct tt_trace_line *l = (const struct tt_trace_line *)ev;
		char event[TT_TRACE_EVENT_MAX + 1], line[TT_TRACE_LINE_MAX + 1];

		/* Made on the first record: a recording without traces shows none. */
		if (!c->tracer) {
			struct tracer_opts to = {NULL, 0, c->replay_lines, NULL};

			c->tracer = tracer__new_offline(&to);
			tracer__set_budget(c->tracer, c->budget);
		}

		/* Text stops at a NUL a damaged file may hold: strings stay strings. */
		snprintf(event, sizeof(event), "%.*s", (int)l->event_len, l->data);
		snprintf(line, sizeof(line), "%.*s", (int)l->line_len, l->data + l->event_len);
		return tracer__add_line(c->tracer, event, line, l->total, l->lost) < 0 ? -EINVAL
										       : 0;
	}
	if (ev->type == TT_EV_CMD_OUTPUT) {
		if (!c->cmds) {
			c->cmds = cmdcap__new_offline();
			cmdcap__set_budget(c->cmds, c->budget);
		}
		return cmdcap__replay(c->cmds, (const struct tt_cmd_output *)ev);
	}
	return -EINVAL;
}
