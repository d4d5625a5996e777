// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes a hostile recording: a dictionary bomb. Every dictionary gets fresh
 * entries without end (strings, stacks, frame names, LuaJIT names, trace
 * lines, command output), each highly compressible, so a small file replays
 * into gigabytes unless the dictionaries are bounded. A USE record and a
 * thread carry escape sequences and U+202E. Usage: ttr_bomb FILE MB, where
 * MB is the raw size of each dictionary's entries (the file is far smaller).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "util.h"

static union {
	struct tt_event_header hdr;
	struct tt_string str;
	struct tt_stack stack;
	struct tt_frame_name frame;
	struct tt_luajit_func lj;
	struct tt_trace_line line;
	struct tt_cmd_output cmd;
	char bytes[sizeof(struct tt_string) + TT_MAX_STRING_LEN + 64];
} u;
static struct recorder *rec;
static uint64_t now = 1000000000ull, interval_seq;

static void put(uint16_t type, uint8_t version, size_t size)
{
	u.hdr = (struct tt_event_header){type, version, (uint32_t)size, now};
	now += 1000;
	if (recorder__write(rec, &u.hdr) < 0) {
		fprintf(stderr, "ttr_bomb: write failed\n");
		exit(1);
	}
}

/* An interval mark, a sample of a thread of each kind, and the hostile USE record. */
static void interval(uint32_t stack_id)
{
	struct tt_thread_sample s = {0};
	struct tt_use_metric m = {0};
	struct tt_thread_info ti = {0};
	struct tt_interval iv = {0};

	ti.hdr = (struct tt_event_header){TT_EV_THREAD_INFO, TT_THREAD_INFO_VERSION, sizeof(ti),
					  now};
	ti.pid = ti.tid = 4242;
	ti.start_time_ns = 1;
	memcpy(ti.comm, "ev\xe2\x80\xae\x1b[2Jx", 10);
	recorder__write(rec, &ti.hdr);
	s.hdr = (struct tt_event_header){TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s),
					 now};
	s.pid = s.tid = 4242;
	s.start_time_ns = 1;
	s.cpu_time_ns = now;
	s.ustack_id = stack_id;
	s.syscall_nr = TT_SYSCALL_NONE;
	s.state = TT_ST_R;
	memcpy(s.comm, ti.comm, sizeof(s.comm));
	recorder__write(rec, &s.hdr);
	m.hdr = (struct tt_event_header){TT_EV_USE_METRIC, TT_USE_METRIC_VERSION, sizeof(m), now};
	m.interval_ns = NSEC_PER_SEC;
	m.kind = TT_USE_CGROUP_CPU;
	m.util_milli = 99000;
	m.sat_milli = m.sat_limit_milli = m.aux_milli = TT_USE_UNKNOWN;
	m.psi_some_milli = m.psi_full_milli = TT_USE_UNKNOWN;
	snprintf(m.name, sizeof(m.name), "%s", "/e\x1b]52;c;aGk=\x07\xe2\x80\xae");
	recorder__write(rec, &m.hdr);
	iv.hdr = (struct tt_event_header){TT_EV_INTERVAL, TT_INTERVAL_VERSION, sizeof(iv), now};
	iv.realtime_ns = 1700000000000000000ull + now;
	iv.seq = (uint32_t)interval_seq++;
	recorder__write(rec, &iv.hdr);
	now += 1000;
}

int main(int argc, char **argv)
{
	struct recorder_opts o = {.source = "proc",
				  .hz = 10,
				  .interval_s = 1,
				  .extra_info = "trace_lines=100000\n",
				  .chunk_ns = NSEC_PER_SEC};
	size_t mb = argc > 2 ? strtoul(argv[2], NULL, 10) : 64, n;
	char err[320];

	if (argc < 2) {
		fprintf(stderr, "usage: ttr_bomb FILE MB\n");
		return 2;
	}
	o.path = argv[1];
	rec = recorder__new(&o, err, sizeof(err));
	if (!rec) {
		fprintf(stderr, "ttr_bomb: %s\n", err);
		return 1;
	}
	n = (mb << 20) / 4000;
	for (size_t i = 1; i <= n; i++) {
		/* A string, a 127-frame stack, a frame name, a LuaJIT name: all new. */
		memset(u.str.data, 'a' + (int)(i % 26), 4000);
		u.str.id = (uint32_t)i;
		u.str.len = 4000;
		put(TT_EV_STRING, TT_STRING_VERSION, sizeof(u.str) + 4000);

		memset(&u.stack, 0, sizeof(u.stack));
		u.stack.id = (uint32_t)i;
		u.stack.pid = 1000 + (uint32_t)(i % 4);
		u.stack.nr = TT_MAX_STACK_DEPTH;
		for (unsigned k = 0; k < TT_MAX_STACK_DEPTH; k++)
			u.stack.ips[k] = 0x400000 + i * 8;
		put(TT_EV_STACK, TT_STACK_VERSION, sizeof(u.stack) + TT_MAX_STACK_DEPTH * 8);

		memset(&u.frame, 0, sizeof(u.frame));
		u.frame.addr = 0x400000 + i * 8;
		u.frame.pid = 1000 + (uint32_t)(i % 4);
		u.frame.name_len = 3000;
		memset(u.frame.data, 'f', 3000);
		put(TT_EV_FRAME_NAME, TT_FRAME_NAME_VERSION, sizeof(u.frame) + 3000);

		memset(&u.lj, 0, sizeof(u.lj));
		u.lj.id = i;
		u.lj.pid = 4242;
		u.lj.len = 4000;
		memset(u.lj.data, 'l', 4000);
		put(TT_EV_LUAJIT_FUNC, TT_LUAJIT_FUNC_VERSION, sizeof(u.lj) + 4000);

		/* A trace line of one of 16 tracepoints (kept: 100000 each). */
		memset(&u.line, 0, sizeof(u.line));
		u.line.total = i;
		u.line.event_len = (uint16_t)snprintf(u.line.data, 32, "sched:ev%zu", i % 16);
		u.line.line_len = 1000;
		memset(u.line.data + u.line.event_len, 't', 1000);
		put(TT_EV_TRACE_LINE, TT_TRACE_LINE_VERSION,
		    sizeof(u.line) + u.line.event_len + 1000);

		/* A piece of a 64 MB run of one of 16 commands. */
		memset(&u.cmd, 0, sizeof(u.cmd));
		u.cmd.index = (uint16_t)((i - 1) % 16);
		u.cmd.output_len = 16000 * 4000;
		u.cmd.offset = (uint32_t)((i - 1) / 16 % 16000 * 4000);
		u.cmd.runs = 1;
		u.cmd.cmd_len = 4;
		u.cmd.piece_len = 4000;
		memcpy(u.cmd.data, "echo", 4);
		memset(u.cmd.data + 4, 'o', 4000);
		put(TT_EV_CMD_OUTPUT, TT_CMD_OUTPUT_VERSION, sizeof(u.cmd) + 4 + 4000);

		if (i % 20000 == 0)
			interval((uint32_t)i);
	}
	interval((uint32_t)n);
	if (recorder__close(rec) < 0) {
		fprintf(stderr, "ttr_bomb: cannot finish %s\n", argv[1]);
		return 1;
	}
	return 0;
}
