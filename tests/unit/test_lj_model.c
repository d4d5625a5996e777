// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the LuaJIT part of the model on synthetic records: VM-state
 * counters per thread and window, self/total per Lua function (the TRACE
 * pseudo-frame skipped, recursion counted once in total), names replaced by a
 * new session, unknown ids, reused tids; functions counted by identity and
 * named at query time (a name announced late, an id reused, two functions on
 * one line); the records' encoding; the batch JSON "luajit" section; and
 * "threadtop run" option parsing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "batch.h"
#include "cli.h"
#include "dict_budget.h"
#include "event_codec.h"
#include "json.h"
#include "lj_model.h"
#include "model.h"
#include "profile.h"

static void func(struct model *m, uint32_t pid, uint64_t id, const char *name, uint32_t flags)
{
	union {
		struct tt_luajit_func f;
		char buf[sizeof(struct tt_luajit_func) + 256];
	} u;
	size_t len = strlen(name);

	memset(&u, 0, sizeof(u));
	u.f.hdr = (struct tt_event_header){TT_EV_LUAJIT_FUNC, TT_LUAJIT_FUNC_VERSION,
					   (uint32_t)(sizeof(u.f) + len), 1};
	u.f.id = id;
	u.f.pid = pid;
	u.f.flags = flags;
	u.f.len = (uint32_t)len;
	memcpy(u.f.data, name, len);
	assert_int_equal(tt_event_validate(&u.f.hdr, u.f.hdr.size), 0);
	model__ingest(m, &u.f.hdr);
}

static uint8_t next_fidelity = 8; /* of the samples sample() makes */

static void sample(struct model *m, uint32_t pid, uint32_t tid, unsigned vmstate,
		   const uint64_t *frames, unsigned nr)
{
	union {
		struct tt_luajit_sample s;
		char buf[sizeof(struct tt_luajit_sample) + TT_LJ_MAX_FRAMES * 8];
	} u;

	memset(&u, 0, sizeof(u));
	u.s.hdr = (struct tt_event_header){TT_EV_LUAJIT_SAMPLE, TT_LUAJIT_SAMPLE_VERSION,
					   (uint32_t)(sizeof(u.s) + nr * 8), 2};
	u.s.pid = pid;
	u.s.tid = tid;
	u.s.vmstate = (uint8_t)vmstate;
	u.s.fidelity = next_fidelity;
	u.s.weight_us = 10000;
	u.s.nr = (uint16_t)nr;
	memcpy(u.s.frames, frames, nr * 8);
	assert_int_equal(tt_event_validate(&u.s.hdr, u.s.hdr.size), 0);
	model__ingest(m, &u.s.hdr);
}

static struct model *fixture(void)
{
	struct model *m = model__new(NULL);
	const uint64_t inner[] = {20, 17, 16}, trace[] = {30, 17, 17, 16}, gc[] = {0};

	func(m, 100, 16, "main chunk @app.lua:0", 0);
	func(m, 100, 17, "fib @app.lua:3", 0);
	func(m, 100, 20, "string.format", TT_LJ_FUNC_C);
	func(m, 100, 30, "TRACE [4] @app.lua:3", TT_LJ_FUNC_TRACE);
	sample(m, 100, 101, TT_LJ_CFUNC, inner, 3);
	sample(m, 100, 101, TT_LJ_TRACE, trace, 4);
	sample(m, 100, 101, TT_LJ_TRACE, trace, 4);
	sample(m, 100, 101, TT_LJ_GC, gc, 0);
	return m;
}

static void counters_and_functions(void **state)
{
	struct model *m = fixture();
	struct lj_thread_row *rows = NULL;
	struct lj_func_row *fr = NULL;
	int n;

	n = lj_model__threads(model__luajit(m), WIN_INTERVAL, 0, &rows);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].tid, 101);
	assert_int_equal(rows[0].samples, 4);
	assert_int_equal(rows[0].counts[TT_LJ_TRACE], 2);
	assert_int_equal(rows[0].counts[TT_LJ_CFUNC], 1);
	assert_int_equal(rows[0].counts[TT_LJ_GC], 1);
	assert_int_equal(rows[0].fidelity, 8);
	free(rows);

	n = lj_model__functions(model__luajit(m), WIN_INTERVAL, 100, 0, 0, &fr);
	assert_int_equal(n, 3);
	assert_string_equal(fr[0].name, "fib @app.lua:3"); /* self 2 (under the trace) */
	assert_int_equal(fr[0].self, 2);
	assert_int_equal(fr[0].total, 3); /* recursion counted once per sample */
	assert_int_equal(fr[0].trace, 2);
	assert_string_equal(fr[1].name, "string.format");
	assert_int_equal(fr[1].self, 1);
	assert_string_equal(fr[2].name, "main chunk @app.lua:0");
	assert_int_equal(fr[2].self, 0);
	assert_int_equal(fr[2].total, 3);
	free(fr);

	/* The interval closes: the interval window empties, the session keeps all. */
	model__end_interval(m, 10);
	assert_int_equal(lj_model__threads(model__luajit(m), WIN_INTERVAL, 0, &rows), 0);
	free(rows);
	assert_int_equal(lj_model__threads(model__luajit(m), WIN_LAST, 0, &rows), 1);
	free(rows);
	assert_int_equal(lj_model__threads(model__luajit(m), WIN_SESSION, 100, &rows), 1);
	free(rows);
	assert_int_equal(lj_model__threads(model__luajit(m), WIN_SESSION, 999, &rows), 0);
	free(rows);
	model__free(m);
}

/* An agentless sample (TT_LJ_FIDELITY_BPF) says so in the row, without the bit in the count. */
static void agentless_source(void **state)
{
	struct model *m = model__new(NULL);
	struct lj_thread_row *rows = NULL;
	const uint64_t fr[] = {16};
	int n;

	(void)state;
	next_fidelity = TT_LJ_FIDELITY_BPF | 9;
	sample(m, 100, 101, TT_LJ_LFUNC, fr, 1);
	next_fidelity = 10;
	sample(m, 200, 201, TT_LJ_LFUNC, fr, 1);
	next_fidelity = 8;
	n = lj_model__threads(model__luajit(m), WIN_INTERVAL, 0, &rows);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++) {
		assert_int_equal(rows[i].fidelity, rows[i].pid == 100 ? 9 : 10);
		assert_int_equal(rows[i].agentless, rows[i].pid == 100);
	}
	free(rows);
	model__free(m);
}

static void renamed_and_unknown(void **state)
{
	struct model *m = fixture();
	const uint64_t fr1[] = {17}, fr2[] = {99};
	struct lj_func_row *fr = NULL;
	int n;

	model__end_interval(m, 10);
	func(m, 100, 17, "other @b.lua:9", 0); /* a new session reuses id 17 */
	sample(m, 100, 101, TT_LJ_LFUNC, fr1, 1);
	sample(m, 100, 101, TT_LJ_LFUNC, fr2, 1);
	n = lj_model__functions(model__luajit(m), WIN_INTERVAL, 0, 101, 0, &fr);
	assert_int_equal(n, 2);
	assert_true((!strcmp(fr[0].name, "other @b.lua:9") && !strcmp(fr[1].name, "lua:0x63")) ||
		    (!strcmp(fr[1].name, "other @b.lua:9") && !strcmp(fr[0].name, "lua:0x63")));
	free(fr);
	model__free(m);
}

static void reused_tid(void **state)
{
	struct model *m = fixture();
	const uint64_t fr1[] = {5};
	struct lj_thread_row *rows = NULL;

	sample(m, 200, 101, TT_LJ_INTERP, fr1, 1);
	assert_int_equal(lj_model__threads(model__luajit(m), WIN_SESSION, 0, &rows), 1);
	assert_int_equal(rows[0].pid, 200);
	assert_int_equal(rows[0].samples, 1);
	free(rows);
	model__free(m);
}

/* Session functions of pid 100: their count; row i by name (NULL when absent). */
static int session_funcs(struct model *m, struct lj_func_row **ret)
{
	return lj_model__functions(model__luajit(m), WIN_SESSION, 100, 0, 0, ret);
}

static const struct lj_func_row *row_named(const struct lj_func_row *fr, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(fr[i].name, name))
			return &fr[i];
	return NULL;
}

/*
 * The Lua frames of every stitched LuaJIT stack of the session, by name:
 * how many frames read name, and how many are no Lua frame (an address).
 */
static void stitched_names(struct model *m, const char *name, int *ret_named, int *ret_addr)
{
	struct model_stack_row *rows = NULL;
	int n = model__luajit_stacks(m, WIN_SESSION, &rows);

	*ret_named = *ret_addr = 0;
	for (int i = 0; i < n; i++) {
		const struct tt_stack *st = model__stack(m, rows[i].ustack_id);

		assert_non_null(st);
		for (unsigned k = 0; k < st->nr; k++) {
			struct frame_name fn;

			if (!lj_frame_is_lua(st->ips[k])) {
				(*ret_addr)++;
				continue;
			}
			model__frame_name(m, 100, st->ips[k], false, &fn);
			*ret_named += !strcmp(fn.name, name);
		}
	}
	free(rows);
}

/* How many of the profile's frames are called name, and whether one is called other. */
static int profile_frames(struct model *m, const char *name, const char *other)
{
	struct profile_opts o = {WIN_SESSION, NULL, NULL, 99};
	struct profile *p = profile__build(m, &o);
	int n = 0;

	for (size_t i = 0; i < p->nr_frames; i++) {
		n += !strcmp(p->frames[i].name, name);
		assert_string_not_equal(p->frames[i].name, other);
	}
	profile__free(p);
	return n;
}

/*
 * Issue 27: a function sampled before its name was announced (the library
 * announces "@x.lua:5" and names it when a caller does; threadtop may come
 * after both) is one function, named by the best name known when asked:
 * one row in the LuaJIT pane and the batch JSON, one frame in stacks and
 * exports.
 */
static void late_name_one_row(void **state)
{
	struct model *m = model__new(NULL);
	const uint64_t f40[] = {40}, f41[] = {41};
	struct lj_func_row *fr = NULL;
	const struct lj_func_row *r;
	int n, named, addr;

	(void)state;
	func(m, 100, 40, "@x.lua:5", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f40, 1); /* before its name */
	sample(m, 100, 101, TT_LJ_LFUNC, f41, 1); /* before any announcement */
	/* Stitched while 41 is unknown: an address (a C function's id is one). */
	stitched_names(m, "g @x.lua:9", &named, &addr);
	assert_int_equal(addr, 1);
	func(m, 100, 40, "cmp @x.lua:5", 0);
	func(m, 100, 41, "g @x.lua:9", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f40, 1);
	sample(m, 100, 101, TT_LJ_LFUNC, f41, 1);
	func(m, 100, 40, "cmp @x.lua:5", 0); /* announced again (every second) */
	sample(m, 100, 101, TT_LJ_LFUNC, f40, 1);

	n = session_funcs(m, &fr);
	assert_int_equal(n, 2);
	assert_string_equal(fr[0].name, "cmp @x.lua:5");
	assert_int_equal(fr[0].self, 3);
	assert_int_equal(fr[0].total, 3);
	assert_string_equal(fr[1].name, "g @x.lua:9");
	assert_int_equal(fr[1].self, 2);
	/* The row's tag names the function and finds the thread that ran it. */
	r = row_named(fr, n, "cmp @x.lua:5");
	assert_string_equal(lj_model__frame_name(model__luajit(m), r->ip), "cmp @x.lua:5");
	assert_true(lj_model__thread_ran(model__luajit(m), 101, r->ip));
	free(fr);

	/* Stacks: one pair per function, its frame named with the late name. */
	stitched_names(m, "cmp @x.lua:5", &named, &addr);
	assert_int_equal(named, 1);
	assert_int_equal(addr, 0);
	stitched_names(m, "g @x.lua:9", &named, &addr);
	assert_int_equal(named, 1); /* stitched again once named */
	assert_int_equal(profile_frames(m, "cmp @x.lua:5", "@x.lua:5"), 1);
	assert_int_equal(profile_frames(m, "g @x.lua:9", "lua:0x29"), 1);

	/* The batch JSON: one entry, all five samples. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct json j;

		json_init(&j, f);
		json_begin_object(&j, NULL);
		batch_luajit_json(&j, m);
		json_end_object(&j);
		fclose(f);
		assert_non_null(strstr(buf, "{\"name\":\"cmp @x.lua:5\",\"self\":3"));
		assert_null(strstr(buf, "\"@x.lua:5\""));
		assert_null(strstr(buf, "lua:0x29"));
		free(buf);
	}
	model__free(m);
}

/*
 * An id the library gave a function that is gone (collected, or a new
 * session numbering from the start) names another one later: that one is
 * counted apart, and the old one keeps its counts and its name, also where
 * both were announced without a name first.
 */
static void reused_id_apart(void **state)
{
	struct model *m = model__new(NULL);
	const uint64_t f50[] = {50}, under[] = {50, 16};
	struct lj_func_row *fr = NULL;
	const struct lj_func_row *old, *young;
	int n, named, addr;

	(void)state;
	func(m, 100, 16, "main chunk @a.lua:0", 0);
	func(m, 100, 50, "@a.lua:1", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, under, 2);
	func(m, 100, 50, "f @a.lua:1", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, under, 2);
	/* Collected; id 50 is another function's now. */
	func(m, 100, 50, "@b.lua:7", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f50, 1);
	func(m, 100, 50, "h @b.lua:7", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f50, 1);
	sample(m, 100, 101, TT_LJ_LFUNC, f50, 1);

	n = session_funcs(m, &fr);
	assert_int_equal(n, 3);
	old = row_named(fr, n, "f @a.lua:1");
	young = row_named(fr, n, "h @b.lua:7");
	assert_non_null(old);
	assert_non_null(young);
	assert_int_equal(old->self, 2);
	assert_int_equal(young->self, 3);
	assert_int_not_equal(old->ip, young->ip);
	assert_string_equal(lj_model__frame_name(model__luajit(m), old->ip), "f @a.lua:1");
	assert_int_equal(row_named(fr, n, "main chunk @a.lua:0")->total, 2);
	free(fr);
	stitched_names(m, "f @a.lua:1", &named, &addr);
	assert_int_equal(named, 1);
	stitched_names(m, "h @b.lua:7", &named, &addr);
	assert_int_equal(named, 1);
	assert_int_equal(profile_frames(m, "f @a.lua:1", "@a.lua:1"), 1);
	assert_int_equal(profile_frames(m, "h @b.lua:7", "@b.lua:7"), 1);

	/* Another function on the same line, in a later session: apart too. */
	func(m, 100, 50, "#2 @b.lua:7", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f50, 1);
	n = session_funcs(m, &fr);
	assert_int_equal(n, 4);
	assert_int_equal(row_named(fr, n, "h @b.lua:7")->self, 3);
	assert_int_equal(row_named(fr, n, "#2 @b.lua:7")->self, 1);
	free(fr);
	model__free(m);
}

/*
 * Two functions that start on one line ("@c.lua:4", the second "#2 @c.lua:4"
 * until named) stay two rows as they get their names.
 */
static void one_line_two_functions(void **state)
{
	struct model *m = model__new(NULL);
	const uint64_t f60[] = {60}, f61[] = {61};
	struct lj_func_row *fr = NULL;
	int n;

	(void)state;
	func(m, 100, 60, "@c.lua:4", 0);
	func(m, 100, 61, "#2 @c.lua:4", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f60, 1);
	sample(m, 100, 101, TT_LJ_LFUNC, f61, 1);
	sample(m, 100, 101, TT_LJ_LFUNC, f61, 1);
	func(m, 100, 61, "cb @c.lua:4", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f61, 1);
	func(m, 100, 60, "run @c.lua:4", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f60, 1);

	n = session_funcs(m, &fr);
	assert_int_equal(n, 2);
	assert_string_equal(fr[0].name, "cb @c.lua:4");
	assert_int_equal(fr[0].self, 3);
	assert_string_equal(fr[1].name, "run @c.lua:4");
	assert_int_equal(fr[1].self, 2);
	assert_int_not_equal(fr[0].ip, fr[1].ip);
	free(fr);
	model__free(m);
}

/*
 * One function in two processes: two identities, one row and one frame, and
 * a drill-down on the row's tag keeps both processes' threads and stacks.
 */
static void one_name_two_processes(void **state)
{
	struct model *m = model__new(NULL);
	const uint64_t f16[] = {16}, f17[] = {17};
	struct model_stack_row *rows = NULL;
	struct lj_func_row *fr = NULL;
	int n;

	(void)state;
	func(m, 100, 16, "f @a.lua:1", 0);
	func(m, 300, 16, "f @a.lua:1", 0);
	func(m, 300, 17, "g @a.lua:2", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f16, 1);
	sample(m, 300, 301, TT_LJ_LFUNC, f16, 1);
	sample(m, 300, 301, TT_LJ_LFUNC, f17, 1);
	assert_int_equal(lj_model__functions(model__luajit(m), WIN_SESSION, 0, 0, 0, &fr), 2);
	assert_string_equal(fr[0].name, "f @a.lua:1");
	assert_int_equal(fr[0].self, 2);
	assert_string_equal(fr[1].name, "g @a.lua:2");
	assert_true(lj_model__thread_ran(model__luajit(m), 101, fr[0].ip));
	assert_true(lj_model__thread_ran(model__luajit(m), 301, fr[0].ip));
	assert_false(lj_model__thread_ran(model__luajit(m), 101, fr[1].ip));
	assert_false(lj_model__frame_same(model__luajit(m), fr[0].ip, fr[1].ip));
	n = model__luajit_stacks(m, WIN_SESSION, &rows);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		const struct tt_stack *st = model__stack(m, rows[i].ustack_id);
		struct frame_name fn;

		assert_non_null(st);
		model__frame_name(m, st->pid, st->ips[0], false, &fn);
		/* Both processes' f stacks, not g's. */
		assert_int_equal(model__stack_holds(m, rows[i].ustack_id, fr[0].ip),
				 !strcmp(fn.name, "f @a.lua:1"));
	}
	free(rows);
	free(fr);
	model__free(m);
}

static bool none_alive(void *arg, uint32_t pid)
{
	(void)arg;
	(void)pid;
	return false;
}

/*
 * The functions of a forgotten process give their budget back and their
 * slots to the next process's, and a tag of theirs that outlived them
 * reads "(other)", never the new function's name.
 */
static void forgotten_process_slots(void **state)
{
	struct model *m = model__new(NULL);
	struct dict_budget *b = dict_budget__new(DICT_BUDGET_MIN);
	const uint64_t f70[] = {70};
	struct lj_func_row *fr = NULL;
	uint64_t old_ip;
	size_t used;

	(void)state;
	model__set_budget(m, b);
	func(m, 100, 70, "old @d.lua:1", 0);
	sample(m, 100, 101, TT_LJ_LFUNC, f70, 1);
	assert_int_equal(session_funcs(m, &fr), 1);
	old_ip = fr[0].ip;
	free(fr);
	used = dict_budget__used(b);
	lj_model__forget(model__luajit(m), UINT64_MAX, none_alive, NULL);
	assert_true(dict_budget__used(b) < used);
	assert_string_equal(lj_model__frame_name(model__luajit(m), old_ip), "(other)");

	func(m, 200, 70, "new @e.lua:2", 0);
	sample(m, 200, 201, TT_LJ_LFUNC, f70, 1);
	assert_int_equal(lj_model__functions(model__luajit(m), WIN_SESSION, 200, 0, 0, &fr), 1);
	assert_string_equal(fr[0].name, "new @e.lua:2");
	assert_int_equal(fr[0].ip & LJ_FRAME_IDX_MASK, old_ip & LJ_FRAME_IDX_MASK); /* the slot */
	assert_int_not_equal(fr[0].ip, old_ip);
	free(fr);
	assert_string_equal(lj_model__frame_name(model__luajit(m), old_ip), "(other)");
	assert_false(lj_model__thread_ran(model__luajit(m), 201, old_ip));
	model__free(m);
	assert_int_equal(dict_budget__used(b), 0);
	dict_budget__free(b);
}

static void codec_round_trip(void **state)
{
	union {
		struct tt_luajit_sample s;
		char buf[sizeof(struct tt_luajit_sample) + 3 * 8];
	} in, out;
	unsigned char enc[256];
	const char *why = NULL;

	memset(&in, 0, sizeof(in));
	in.s.hdr = (struct tt_event_header){TT_EV_LUAJIT_SAMPLE, 1, sizeof(in), 7};
	in.s.pid = 1;
	in.s.tid = 2;
	in.s.ustack_id = 3;
	in.s.traceno = -1;
	in.s.vmstate = TT_LJ_TRACE;
	in.s.nr = 3;
	in.s.frames[0] = 0x1122334455667788ull;
	in.s.frames[2] = 9;
	assert_int_equal(tt_event_encode(&in.s.hdr, enc, sizeof(enc)), sizeof(in));
	assert_int_equal(tt_event_decode(enc, sizeof(in), &out.s.hdr, sizeof(out), &why),
			 sizeof(in));
	assert_memory_equal(&in, &out, sizeof(in));
	assert_string_equal(tt_event_type_name(TT_EV_LUAJIT_SAMPLE), "luajit_sample");

	/* An agentless sample is version 2, the same layout: it decodes alike.
	 * Version 3 is unknown: a reader skips it (ttr_reader). */
	in.s.hdr.version = TT_LUAJIT_SAMPLE_VERSION;
	in.s.fidelity = 9 | TT_LJ_FIDELITY_BPF;
	assert_int_equal(TT_LUAJIT_SAMPLE_VERSION, 2);
	assert_int_equal(tt_event_encode(&in.s.hdr, enc, sizeof(enc)), sizeof(in));
	assert_int_equal(tt_event_decode(enc, sizeof(in), &out.s.hdr, sizeof(out), &why),
			 sizeof(in));
	assert_memory_equal(&in, &out, sizeof(in));
	assert_true(tt_event_known(TT_EV_LUAJIT_SAMPLE, TT_LUAJIT_SAMPLE_VERSION_LIB));
	assert_false(tt_event_known(TT_EV_LUAJIT_SAMPLE, 3));
	in.s.fidelity = 0;

	in.s.vmstate = TT_LJ_VMSTATE_MAX; /* out of range */
	assert_int_equal(tt_event_validate(&in.s.hdr, in.s.hdr.size), -EINVAL);
	in.s.vmstate = 0;
	in.s.nr = 4; /* size no longer matches */
	assert_int_equal(tt_event_validate(&in.s.hdr, in.s.hdr.size), -EINVAL);
}

static void batch_json(void **state)
{
	struct model *m = fixture();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f);
	json_begin_object(&j, NULL);
	batch_luajit_json(&j, m);
	json_end_object(&j);
	fclose(f);
	assert_non_null(strstr(buf, "\"luajit\":[{\"pid\":100,\"tid\":101"));
	assert_non_null(strstr(buf, "\"TRACE\":2"));
	assert_non_null(strstr(buf, "\"samples\":4"));
	assert_non_null(strstr(buf, "\"top_functions\":[{\"name\":\"fib @app.lua:3\",\"self\":2"));
	free(buf);
	model__free(m);
}

static void run_options(void **state)
{
	char *argv[] = {"threadtop", "run", "-b", "-n", "2", "--", "luajit", "-e", "x=1", NULL};
	char *bad[] = {"threadtop", "run", "-b", NULL};
	struct options o;
	FILE *null = fopen("/dev/null", "w");

	assert_int_equal(cli_parse(9, argv, &o, null, null), CLI_RUN);
	assert_true(o.batch);
	assert_int_equal(o.count, 2);
	assert_non_null(o.run_argv);
	assert_string_equal(o.run_argv[0], "luajit");
	assert_string_equal(o.run_argv[1], "-e"); /* the command's options stay its own */
	assert_int_equal(cli_parse(3, bad, &o, null, null), -EINVAL);
	char *plain[] = {"threadtop", "-b", NULL};
	assert_int_equal(cli_parse(2, plain, &o, null, null), CLI_RUN);
	assert_null(o.run_argv);
	fclose(null);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counters_and_functions),
		cmocka_unit_test(agentless_source),
		cmocka_unit_test(renamed_and_unknown),
		cmocka_unit_test(reused_tid),
		cmocka_unit_test(late_name_one_row),
		cmocka_unit_test(reused_id_apart),
		cmocka_unit_test(one_line_two_functions),
		cmocka_unit_test(one_name_two_processes),
		cmocka_unit_test(forgotten_process_slots),
		cmocka_unit_test(codec_round_trip),
		cmocka_unit_test(batch_json),
		cmocka_unit_test(run_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
