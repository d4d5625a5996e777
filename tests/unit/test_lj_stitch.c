// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of LuaJIT stack stitching: Lua frames replace the interpreter's
 * frames above the VM entry; a Lua-called C function with a host frame of
 * its own carries the next Lua segment (Lua-C-Lua-C); builtins stay inline;
 * host frames above the Lua leaf stay unless they are the VM's; stacks
 * without an entry or without Lua frames; frame classification; and, through
 * the model, stitched stacks of LuaJIT samples named with Lua frames, kept
 * apart from DWARF-unwound stacks of another process in the same model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "event_codec.h"
#include "threadtop/frame_namer.h"
#include "lj_model.h"
#include "lj_stitch.h"
#include "model.h"
#include "model_internal.h" /* nr_lj_stacks: a full id space without 2^30 stitches */
#include "profile.h"

#define H(n, f)      \
	{            \
		n, f \
	}

/* The stitched names joined by ';'. */
static const char *join(const struct lj_stitch_frame *host, size_t nh,
			const struct lj_stitch_frame *guest, size_t ng)
{
	static char buf[1024];
	uint32_t out[64];
	size_t n = lj_stitch(host, nh, guest, ng, out, 64), o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *name = out[i] & LJ_STITCH_GUEST ? guest[out[i] & ~LJ_STITCH_GUEST].name
							    : host[out[i]].name;

		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? ";" : "", name);
	}
	return buf;
}

static void replaces_interpreter(void **state)
{
	/* The luajit CLI: lua_cpcall(pmain), pmain (unnamed) calls lua_pcall. */
	const struct lj_stitch_frame host[] = {
		H("main", 0),
		H("lua_cpcall", LJ_SF_ENTRY),
		H("luajit+0x1200", LJ_SF_VM),
		H("luajit+0x1300", LJ_SF_VM),
		H("lua_pcall", LJ_SF_ENTRY),
		H("lj_vm_pcall", LJ_SF_VM),
		H("lj_BC_FUNCF", LJ_SF_VM),
		H("memcpy", 0),
	};
	const struct lj_stitch_frame guest[] = {H("pmain", LJ_SF_CFUNC),
						H("main chunk @a.lua:0", 0), H("f @a.lua:3", 0)};

	(void)state;
	assert_string_equal(
		join(host, 8, guest, 3),
		"main;lua_cpcall;pmain;lua_pcall;main chunk @a.lua:0;f @a.lua:3;memcpy");
}

static void lua_c_lua_c(void **state)
{
	const struct lj_stitch_frame host[] = {
		H("main", 0),	     H("lua_pcall", LJ_SF_ENTRY), H("lj_BC_FUNCC", LJ_SF_VM),
		H("my_cfunc", 0),    H("lua_call", LJ_SF_ENTRY),  H("lj_vm_call", LJ_SF_VM),
		H("other_cfunc", 0),
	};
	/* lua_call tail-calls the VM: no frame of its own. */
	const struct lj_stitch_frame tail[] = {
		H("main", 0),	  H("lua_pcall", LJ_SF_ENTRY), H("lj_BC_FUNCC", LJ_SF_VM),
		H("my_cfunc", 0), H("lj_vm_call", LJ_SF_VM),   H("memcpy", 0),
	};
	const struct lj_stitch_frame guest[] = {
		H("main chunk @a.lua:0", 0),  H("outer @a.lua:2", 0),
		H("my_cfunc", LJ_SF_CFUNC),   H("cb @a.lua:9", 0),
		H("string.rep", LJ_SF_CFUNC),
	};

	(void)state;
	/* my_cfunc has its own host frame: the second segment goes above it; string.rep
	 * has none (a builtin): inline; other_cfunc was called by it and stays on top. */
	assert_string_equal(
		join(host, 7, guest, 5),
		"main;lua_pcall;main chunk @a.lua:0;outer @a.lua:2;my_cfunc;lua_call;cb "
		"@a.lua:9;string.rep;other_cfunc");
	assert_string_equal(join(tail, 6, guest, 4),
			    "main;lua_pcall;main chunk @a.lua:0;outer @a.lua:2;my_cfunc;cb "
			    "@a.lua:9;memcpy");
}

static void no_entry_or_no_lua(void **state)
{
	const struct lj_stitch_frame jit[] = {H("[anon]+0x10", LJ_SF_VM)};
	const struct lj_stitch_frame host[] = {H("main", 0), H("lua_pcall", LJ_SF_ENTRY),
					       H("lj_vm_foo", LJ_SF_VM)};
	const struct lj_stitch_frame guest[] = {H("main chunk @a.lua:0", 0),
						H("TRACE [3] @a.lua:1", 0)};

	(void)state;
	/* Unwinding stopped in JIT code: the Lua frames alone. */
	assert_string_equal(join(jit, 1, guest, 2), "main chunk @a.lua:0;TRACE [3] @a.lua:1");
	/* Outside the VM (INTERP): the host stack as it is. */
	assert_string_equal(join(host, 3, guest, 0), "main;lua_pcall;lj_vm_foo");
	assert_string_equal(join(host, 0, guest, 0), "");
}

static void classifies_host_frames(void **state)
{
	(void)state;
	assert_int_equal(lj_stitch_host_flags("lua_pcall", "luajit", NULL), LJ_SF_ENTRY);
	assert_int_equal(lj_stitch_host_flags("lj_BC_FUNCF", "libluajit.so", NULL), LJ_SF_VM);
	assert_int_equal(lj_stitch_host_flags("luajit+0x5c10", "luajit", "luajit"), LJ_SF_VM);
	/* Unnamed frames of another object are not the VM's. */
	assert_int_equal(lj_stitch_host_flags("libfoo.so+0x10", "libfoo.so", "luajit"), 0);
	assert_int_equal(lj_stitch_host_flags("lj_gc_step", "luajit", "luajit"), 0);
	assert_int_equal(lj_stitch_host_flags("[anon]+0x7f00", NULL, "luajit"), LJ_SF_VM);
	assert_int_equal(lj_stitch_host_flags("memcpy", "libc.so.6", "luajit"), 0);
}

/* Names host addresses 0x1000 (main), 0x2000 (lua_pcall), 0x3000 (unnamed in luajit). */
static int fake_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static char buf[32];

	(void)ctx, (void)pid, (void)kernel;
	if (addr == 0x1000)
		snprintf(buf, sizeof(buf), "main");
	else if (addr == 0x2000)
		snprintf(buf, sizeof(buf), "lua_pcall");
	else
		snprintf(buf, sizeof(buf), "luajit+0x%llx", (unsigned long long)addr);
	*ret = (struct frame_name){.name = buf, .module = "luajit"};
	return 0;
}

static void ingest_raw(struct model *m, struct tt_event_header *h)
{
	assert_int_equal(tt_event_validate(h, h->size), 0);
	model__ingest(m, h);
}

/* A stack record of id in pid's address space, ips leaf first. */
static void stack(struct model *m, uint32_t id, uint32_t pid, const uint64_t *ips, uint16_t nr)
{
	union {
		struct tt_stack s;
		char buf[sizeof(struct tt_stack) + 4 * 8];
	} st;

	assert_true(nr <= 4);
	memset(&st, 0, sizeof(st));
	st.s.hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION,
					    (uint32_t)(sizeof(st.s) + nr * 8u), 1};
	st.s.id = id;
	st.s.pid = pid;
	st.s.nr = nr;
	memcpy(st.s.ips, ips, nr * 8u);
	for (uint16_t i = 1; i < nr; i++) /* return addresses, as samplers send them */
		st.s.ips[i]++;
	ingest_raw(m, &st.s.hdr);
}

/* A LuaJIT sample of thread 51 (pid 50) on host stack 7 in Lua functions leaf, caller. */
static void lua_sample(struct model *m, uint64_t leaf, uint64_t caller)
{
	union {
		struct tt_luajit_sample s;
		char buf[sizeof(struct tt_luajit_sample) + 2 * 8];
	} sa;

	memset(&sa, 0, sizeof(sa));
	sa.s.hdr = (struct tt_event_header){TT_EV_LUAJIT_SAMPLE, TT_LUAJIT_SAMPLE_VERSION,
					    sizeof(sa), 2};
	sa.s.pid = 50, sa.s.tid = 51, sa.s.ustack_id = 7, sa.s.vmstate = TT_LJ_TRACE;
	sa.s.fidelity = 8, sa.s.weight_us = 10000, sa.s.nr = 2;
	sa.s.frames[0] = leaf, sa.s.frames[1] = caller;
	ingest_raw(m, &sa.s.hdr);
}

/*
 * A model that knows the LuaJIT process 50: host stack 7 (main, lua_pcall,
 * a VM frame) and Lua functions 100 "main chunk", 101 "hot", 102 "cold".
 */
static struct model *lua_model(void)
{
	static const struct frame_namer namer = {fake_name, NULL};
	static const uint64_t host[] = {0x3000, 0x2000, 0x1000}; /* leaf first */
	union {
		struct tt_luajit_func f;
		char buf[sizeof(struct tt_luajit_func) + 64];
	} fu;
	const char *names[] = {"main chunk @a.lua:0", "hot @a.lua:1", "cold @a.lua:2"};
	struct model *m = model__new(NULL);

	model__set_frame_namer(m, &namer);
	stack(m, 7, 50, host, 3);
	for (int i = 0; i < 3; i++) {
		memset(&fu, 0, sizeof(fu));
		fu.f.hdr = (struct tt_event_header){TT_EV_LUAJIT_FUNC, TT_LUAJIT_FUNC_VERSION,
						    (uint32_t)(sizeof(fu.f) + strlen(names[i])), 1};
		fu.f.id = 100 + (uint64_t)i;
		fu.f.pid = 50;
		fu.f.len = (uint32_t)strlen(names[i]);
		memcpy(fu.f.data, names[i], fu.f.len);
		ingest_raw(m, &fu.f.hdr);
	}
	return m;
}

/* Stack id is thread 51's stitched main;lua_pcall;main chunk;hot. */
static void assert_stitched(struct model *m, uint32_t id)
{
	const struct tt_stack *out = model__stack(m, id);
	struct frame_name fn;

	assert_non_null(out);
	/* main;lua_pcall;main chunk;hot (leaf first), the unnamed VM frame gone. */
	assert_int_equal(out->nr, 4);
	assert_int_equal(out->pid, 50);
	assert_int_equal(out->ips[3], 0x1000);
	assert_int_equal(out->ips[2], 0x2000);
	assert_true(lj_frame_is_lua(out->ips[0]) && lj_frame_is_lua(out->ips[1]));
	model__frame_name(m, 50, out->ips[0], false, &fn);
	assert_string_equal(fn.name, "hot @a.lua:1");
	assert_string_equal(fn.module, LJ_FRAME_MODULE);
}

/*
 * LuaJIT samples in time order (profile_timed.c): each is matched to the
 * profile's sample of its stitched stack, with the thread's period as its
 * weight, so a time-ordered view has the sampled profile's frames and totals.
 */
static void luajit_samples_timed(void **state)
{
	struct model *m = lua_model();
	struct profile_opts o = {WIN_SESSION, NULL, NULL, 99};
	struct profile *p;
	uint64_t timed_ns = 0, sampled_ns = 0;

	(void)state;
	lua_sample(m, 101, 100);
	lua_sample(m, 102, 100);
	lua_sample(m, 101, 100);
	p = profile__build(m, &o);
	assert_int_equal(p->nr_timed, 3);
	for (size_t i = 0; i < p->nr_timed; i++) {
		const struct profile_sample *s = &p->samples[p->timed[i].sample];

		assert_int_equal(s->kind, PROFILE_ONCPU);
		assert_int_equal(s->tid, 51);
		assert_true(s->ustack_id >= TT_LJ_STACK_ID_BASE); /* the stitched stack */
		timed_ns += s->ns / s->taken;
	}
	/* The first and the last are the same stack (hot), the middle one another (cold). */
	assert_int_equal(p->timed[0].sample, p->timed[2].sample);
	assert_int_not_equal(p->timed[0].sample, p->timed[1].sample);
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].kind == PROFILE_ONCPU)
			sampled_ns += p->samples[i].ns;
	assert_int_equal(timed_ns, sampled_ns);
	assert_int_equal(timed_ns, 3 * 10000 * 1000ull); /* 10 ms each */
	profile__free(p);
	model__free(m);
}

static void model_stitches_samples(void **state)
{
	struct model *m = lua_model();
	struct model_stack_row *rows = NULL;
	uint32_t id;

	(void)state;
	lua_sample(m, 101, 100);
	lua_sample(m, 101, 100);
	assert_int_equal(model__luajit_stacks(m, WIN_SESSION, &rows), 1);
	assert_int_equal(rows[0].tid, 51);
	assert_int_equal(rows[0].value, 2);
	assert_stitched(m, rows[0].ustack_id);
	/* Stitched once: the same id next time. */
	id = rows[0].ustack_id;
	free(rows);
	assert_int_equal(model__luajit_stacks(m, WIN_SESSION, &rows), 1);
	assert_int_equal(rows[0].ustack_id, id);
	free(rows);
	model__free(m);
}

/* A DWARF-unwound user stack (pid 60, 0xa000 <- 0xb000) with id, and an on-CPU sample on it. */
static void dwarf_sample(struct model *m, uint32_t id)
{
	static const uint64_t ips[] = {0xa000, 0xb000};
	struct tt_cpu_sample s = {
		.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s), 3},
		.pid = 60,
		.tid = 61,
		.ustack_id = id,
		.weight_us = 10101,
		.comm = "nofp",
	};

	stack(m, id, 60, ips, 2);
	ingest_raw(m, &s.hdr);
}

static void assert_dwarf(struct model *m, uint32_t id)
{
	const struct tt_stack *st = model__stack(m, id);

	assert_non_null(st);
	assert_int_equal(st->pid, 60);
	assert_int_equal(st->nr, 2);
	assert_int_equal(st->ips[0], 0xa000);
	assert_int_equal(st->ips[1], 0xb000);
}

/*
 * Issue 19: a LuaJIT process and a no-frame-pointer process profiled at once.
 * The BPF source's first unwound stack and the model's first stitched stack
 * both took id 0x80000000, so whichever came last replaced the other.
 */
static void dwarf_and_stitched_stacks_apart(void **state)
{
	struct model *m = lua_model();
	struct model_stack_row *rows = NULL;
	struct model_stats stats;
	uint32_t lj_id;

	(void)state;
	dwarf_sample(m, TT_USER_STACK_ID_BASE); /* before the stitch */
	lua_sample(m, 101, 100);
	assert_int_equal(model__luajit_stacks(m, WIN_SESSION, &rows), 1);
	lj_id = rows[0].ustack_id;
	free(rows);
	assert_stitched(m, lj_id);
	assert_dwarf(m, TT_USER_STACK_ID_BASE);
	assert_true(lj_id >= TT_LJ_STACK_ID_BASE);
	dwarf_sample(m, TT_USER_STACK_ID_BASE + 1); /* after the stitch */
	assert_stitched(m, lj_id);
	assert_dwarf(m, TT_USER_STACK_ID_BASE + 1);
	assert_int_equal(model__luajit_stacks(m, WIN_SESSION, &rows), 1);
	assert_int_equal(rows[0].ustack_id, lj_id);
	free(rows);
	/* The on-CPU view of the no-frame-pointer thread keeps its own frames. */
	assert_int_equal(model__oncpu(m, WIN_SESSION, &rows), 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rows[i].tid, 61);
		assert_dwarf(m, rows[i].ustack_id);
	}
	free(rows);
	/* A stream's stack in the model's own space (no writer makes one) is dropped. */
	dwarf_sample(m, lj_id);
	assert_stitched(m, lj_id);
	model__stats(m, &stats);
	assert_int_equal(stats.drops_session[TT_DROP_DEDUP_FULL], 1);
	model__free(m);
}

/* The last stitched id is handed out; the next stitch is refused and counted. */
static void stitched_space_full(void **state)
{
	struct model *m = lua_model();
	struct model_stack_row *rows = NULL;
	struct model_stats stats;
	int n;

	(void)state;
	m->nr_lj_stacks = TT_LJ_STACK_ID_LAST - TT_LJ_STACK_ID_BASE; /* one id left */
	lua_sample(m, 101, 100);
	lua_sample(m, 102, 100);
	n = model__luajit_stacks(m, WIN_SESSION, &rows);
	assert_int_equal(n, 2);
	assert_true((rows[0].ustack_id == TT_LJ_STACK_ID_LAST && rows[1].ustack_id == 0) ||
		    (rows[1].ustack_id == TT_LJ_STACK_ID_LAST && rows[0].ustack_id == 0));
	free(rows);
	model__stats(m, &stats);
	assert_int_equal(stats.drops_session[TT_DROP_DEDUP_FULL], 1);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replaces_interpreter),
		cmocka_unit_test(lua_c_lua_c),
		cmocka_unit_test(no_entry_or_no_lua),
		cmocka_unit_test(classifies_host_frames),
		cmocka_unit_test(model_stitches_samples),
		cmocka_unit_test(luajit_samples_timed),
		cmocka_unit_test(dwarf_and_stitched_stacks_apart),
		cmocka_unit_test(stitched_space_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
