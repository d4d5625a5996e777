// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the recorded trace lines and command runs: the portable
 * encoding of TT_EV_TRACE_LINE and TT_EV_CMD_OUTPUT (src/record/event_codec.c)
 * round-trips and refuses every malformed field, and a replay's capture
 * (src/sources/capture.c, tracer__add_line, cmdcap__replay) rebuilds the lines,
 * counts, statuses and output in pieces, refusing pieces out of order.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "event_codec.h"

#include "codec_roundtrip.h"

union rec {
	struct tt_event_header hdr;
	struct tt_trace_line line;
	struct tt_cmd_output cmd;
	unsigned char bytes[TT_EVENT_MAX_SIZE];
};

static void make_line(union rec *r, const char *event, const char *line, uint64_t total)
{
	size_t el = strlen(event), ll = strlen(line);

	memset(r, 0, sizeof(*r));
	r->line.hdr = (struct tt_event_header){TT_EV_TRACE_LINE, TT_TRACE_LINE_VERSION,
					       (uint32_t)(sizeof(r->line) + el + ll), 1000};
	r->line.total = total;
	r->line.lost = 7;
	r->line.event_len = (uint16_t)el;
	r->line.line_len = (uint16_t)ll;
	memcpy(r->line.data, event, el);
	memcpy(r->line.data + el, line, ll);
}

static void make_cmd(union rec *r, unsigned index, const char *cmd, const char *piece,
		     uint32_t offset, uint32_t output_len)
{
	size_t cl = strlen(cmd), pl = strlen(piece);

	memset(r, 0, sizeof(*r));
	r->cmd.hdr = (struct tt_event_header){TT_EV_CMD_OUTPUT, TT_CMD_OUTPUT_VERSION,
					      (uint32_t)(sizeof(r->cmd) + cl + pl), 2000};
	r->cmd.started_ns = 1700000000ull * 1000000000ull;
	r->cmd.duration_ns = 5000000;
	r->cmd.runs = 3;
	r->cmd.skipped = 1;
	r->cmd.output_len = output_len;
	r->cmd.offset = offset;
	r->cmd.exit_code = 2;
	r->cmd.index = (uint16_t)index;
	r->cmd.cmd_len = (uint16_t)cl;
	r->cmd.piece_len = (uint16_t)pl;
	memcpy(r->cmd.data, cmd, cl);
	memcpy(r->cmd.data + cl, piece, pl);
}

/* Encodes r as is (bypassing validation) and expects the decoder to refuse it. */
static void refused(union rec *r, const char *reason)
{
	const char *why = NULL;

	assert_int_equal(tt_event_validate(&r->hdr, r->hdr.size), -EINVAL);
	/* The encoder refuses it, so put it on the wire as is (little-endian
	 * hosts only: the test machines); the decoder must refuse it too. */
	assert_int_equal(tt_event_encode(&r->hdr, wire, sizeof(wire)), -EINVAL);
	memcpy(wire, r, r->hdr.size);
	assert_int_equal(tt_event_decode(wire, r->hdr.size, (struct tt_event_header *)back,
					 sizeof(back), &why),
			 -EINVAL);
	assert_non_null(why);
	if (reason)
		assert_non_null(strstr(why, reason));
}

static void trace_line_codec(void **state)
{
	union rec r;

	make_line(&r, "sched:sched_process_exec",
		  "true-1 [000] ..... 1.0: sched_process_exec: filename=/bin/true", 5);
	roundtrip(&r.hdr);
	assert_string_equal(tt_event_type_name(TT_EV_TRACE_LINE), "trace_line");
	/* An empty line is a line. */
	make_line(&r, "a:b_c", "", 1);
	roundtrip(&r.hdr);

	make_line(&r, "a:", "x", 1); /* name too short */
	refused(&r, "event name");
	make_line(&r, "sched:x", "x", 0); /* counted as none */
	refused(&r, "counted");
	make_line(&r, "sched:x", "x", 1);
	r.line.line_len = TT_TRACE_LINE_MAX + 1;
	r.line.hdr.size = (uint32_t)(sizeof(r.line) + 7 + TT_TRACE_LINE_MAX + 1);
	refused(&r, "longer");
	make_line(&r, "sched:x", "x", 1);
	r.line.hdr.size++; /* size and tail disagree */
	refused(&r, NULL);
}

static void cmd_output_codec(void **state)
{
	union rec r;

	make_cmd(&r, 0, "echo hello", "hello\n", 0, 6);
	roundtrip(&r.hdr);
	assert_string_equal(tt_event_type_name(TT_EV_CMD_OUTPUT), "cmd_output");
	make_cmd(&r, 15, "x", "", 6, 6); /* an empty last piece */
	roundtrip(&r.hdr);
	make_cmd(&r, 1, "sleep 9", "", 0, 0);
	r.cmd.exit_code = -1;
	r.cmd.signal = 9;
	r.cmd.flags = TT_CMD_TIMED_OUT;
	roundtrip(&r.hdr);

	make_cmd(&r, TT_CMD_MAX, "x", "y", 0, 1);
	refused(&r, "index");
	make_cmd(&r, 0, "x", "y", 0, 1);
	r.cmd.flags = 0x80;
	refused(&r, "flags");
	make_cmd(&r, 0, "", "y", 0, 1);
	refused(&r, "command text");
	make_cmd(&r, 0, "x", "yy", 5, 6); /* past the end of its output */
	refused(&r, "outside");
	make_cmd(&r, 0, "x", "y", 0, TT_CMD_OUTPUT_MAX + 1);
	refused(&r, "outside");
	make_cmd(&r, 0, "x", "y", 0, 1);
	r.cmd.signal = 9; /* a signal with an exit code */
	refused(&r, "status");
	make_cmd(&r, 0, "x", "y", 0, 1);
	r.cmd.signal = 65;
	r.cmd.exit_code = -1;
	refused(&r, "status");
	make_cmd(&r, 0, "x", "y", 0, 1);
	r.cmd.runs = 0;
	refused(&r, "run");
}

static void replay_traces(void **state)
{
	struct capture *c = capture__new_replay(2);
	const struct tracer *t;
	struct trace_stats st;
	union rec r;

	assert_null(capture__tracer(c));
	make_line(&r, "sched:sched_process_exec", "one", 10);
	assert_int_equal(capture__replay_record(c, &r.hdr), 0);
	make_line(&r, "sched:sched_process_exec", "two", 12); /* a line the ring dropped */
	assert_int_equal(capture__replay_record(c, &r.hdr), 0);
	make_line(&r, "sched:sched_process_exec", "three", 13);
	assert_int_equal(capture__replay_record(c, &r.hdr), 0);
	t = capture__tracer(c);
	assert_non_null(t);
	assert_null(capture__cmds(c));
	assert_int_equal(tracer__count(t), 1);
	tracer__stats(t, 0, &st);
	assert_string_equal(st.event, "sched:sched_process_exec");
	assert_int_equal(st.total, 13);
	assert_int_equal(st.interval, 13);
	assert_int_equal(st.kept, 2); /* --trace-lines 2 */
	assert_string_equal(tracer__line(t, 0, 0, NULL), "three");
	assert_string_equal(tracer__line(t, 0, 1, NULL), "two");
	assert_int_equal(tracer__lost(t), 7);
	capture__interval_next(c);
	tracer__stats(t, 0, &st);
	assert_int_equal(st.interval, 0);
	/* A total going back (a damaged file) counts one line. */
	make_line(&r, "sched:sched_process_exec", "four", 3);
	assert_int_equal(capture__replay_record(c, &r.hdr), 0);
	tracer__stats(t, 0, &st);
	assert_int_equal(st.total, 14);
	/* A name that is not SUBSYSTEM:EVENT (a hostile file) is refused. */
	make_line(&r, "../../x", "x", 1);
	assert_int_equal(capture__replay_record(c, &r.hdr), -EINVAL);
	/* So are more than TRACE_MAX_EVENTS tracepoints. */
	for (int i = 0; i < TRACE_MAX_EVENTS + 2; i++) {
		char name[32];

		snprintf(name, sizeof(name), "sub:ev%d", i);
		make_line(&r, name, "x", 1);
		capture__replay_record(c, &r.hdr);
	}
	assert_int_equal(tracer__count(t), TRACE_MAX_EVENTS);
	capture__free(c);
}

static void replay_commands(void **state)
{
	struct capture *c = capture__new_replay(100);
	struct cmd_result res;
	union rec r;

	make_cmd(&r, 1, "echo hello; exit 2", "hel", 0, 6);
	assert_int_equal(capture__replay_record(c, &r.hdr), 0);
	make_cmd(&r, 1, "echo hello; exit 2", "lo\n", 3, 6);
	assert_int_equal(capture__replay_record(c, &r.hdr), 0);
	assert_null(capture__tracer(c));
	assert_int_equal(cmdcap__count(capture__cmds(c)), 2);
	cmdcap__result(capture__cmds(c), 1, &res);
	assert_true(res.done);
	assert_false(res.running);
	assert_string_equal(res.cmd, "echo hello; exit 2");
	assert_int_equal(res.exit_code, 2);
	assert_int_equal(res.signal, 0);
	assert_false(res.timed_out);
	assert_int_equal(res.output_len, 6);
	assert_memory_equal(res.output, "hello\n", 6);
	assert_int_equal(res.runs, 3);
	assert_int_equal(res.skipped, 1);
	assert_int_equal(res.duration_ns, 5000000);
	/* Command 0 was never replayed: not run yet, an empty text. */
	cmdcap__result(capture__cmds(c), 0, &res);
	assert_false(res.done);
	assert_string_equal(res.cmd, "");
	/* A piece out of order, or past the announced length, is refused. */
	make_cmd(&r, 1, "echo hello; exit 2", "x", 2, 6);
	assert_int_equal(capture__replay_record(c, &r.hdr), -EINVAL);
	make_cmd(&r, 2, "x", "x", 1, 6); /* no run started */
	assert_int_equal(capture__replay_record(c, &r.hdr), -EINVAL);
	/* A new run replaces the old; a signal and a timeout come back. */
	make_cmd(&r, 1, "sleep 100", "", 0, 0);
	r.cmd.exit_code = -1;
	r.cmd.signal = 9;
	r.cmd.flags = TT_CMD_TIMED_OUT | TT_CMD_TRUNCATED;
	assert_int_equal(capture__replay_record(c, &r.hdr), 0);
	cmdcap__result(capture__cmds(c), 1, &res);
	assert_string_equal(res.cmd, "sleep 100");
	assert_int_equal(res.signal, 9);
	assert_int_equal(res.exit_code, -1);
	assert_true(res.timed_out);
	assert_true(res.truncated);
	assert_int_equal(res.output_len, 0);
	/* Replayed commands never run. */
	assert_int_equal(capture__start(c), 0);
	capture__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trace_line_codec),
		cmocka_unit_test(cmd_output_codec),
		cmocka_unit_test(replay_traces),
		cmocka_unit_test(replay_commands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
