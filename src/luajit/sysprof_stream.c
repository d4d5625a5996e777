/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysprof stream writer, normal context only: the output buffer emptied
 * through the configured writer, the symbol table header (symtab "ljs" v3
 * followed by events "ljp" v2, Tarantool's format), the guest (Lua) stack
 * taken at LuaJIT's safe-point callback, and the samples the signal handler
 * queued since the previous callback.
 *
 * Functions are named before their first use by sysprof_names.c. A
 * sample is the frames the handler saw on top of the safe point's Lua
 * stack (fast function, C function, trace). JIT-compiled samples are written with
 * the LFUNC layout and a leaf pseudo-frame "TRACE [n] <chunk>" (line = first
 * line of the function running the trace), so that both Tarantool's parser
 * and ours show them on their host and guest stacks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <lauxlib.h>

#include "sysprof_internal.h"

/* --- output buffer ------------------------------------------------------- */

static void sp_wb_flush(void)
{
	const void *data = sp.wb.buf;
	size_t n;

	if (sp.wb.pos == 0)
		return;
	if (sp.wb.stopped) {
		sp.wb.pos = 0;
		return;
	}
	errno = 0;
	n = sp.writer(&data, sp.wb.pos, sp.opt.ctx);
	if (!data) {
		sp.wb.stopped = 1;
	} else if (n < sp.wb.pos) {
		sp.wb.err = errno ? errno : EIO;
		sp.wb.stopped = 1;
	} else {
		sp.wb.buf = (uint8_t *)data;
	}
	sp.wb.pos = 0;
}

void sp_wb_byte(uint8_t b)
{
	if (sp.wb.pos >= sp.wb.size)
		sp_wb_flush();
	sp.wb.buf[sp.wb.pos++] = b;
}

void sp_wb_uleb(uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		sp_wb_byte(v ? b | 0x80 : b);
	} while (v);
}

void sp_wb_str(const char *s, size_t len)
{
	size_t off = 0;

	sp_wb_uleb(len);
	while (off < len) {
		size_t room, chunk;

		if (sp.wb.pos >= sp.wb.size)
			sp_wb_flush();
		room = sp.wb.size - sp.wb.pos;
		chunk = len - off < room ? len - off : room;
		memcpy(sp.wb.buf + sp.wb.pos, s + off, chunk);
		sp.wb.pos += chunk;
		off += chunk;
	}
}

/* --- guest stack at the safe point --------------------------------------- */

static struct sp_gframe gstack[SP_GUEST_MAX];
static int ngstack;
static const char *leaf_src; /* chunk and first line of the leaf Lua frame */
static char leaf_src_buf[SP_SRC_MAX + 1];
static int leaf_line;

static void guest_capture(lua_State *L)
{
	lua_Debug ar;
	int lvl;

	ngstack = 0;
	leaf_src = NULL;
	if (!L || !lua_checkstack(L, 2))
		return;
	for (lvl = 0; ngstack < SP_GUEST_MAX && lua_getstack(L, lvl, &ar); lvl++) {
		struct sp_gframe *f = &gstack[ngstack];

		if (!lua_getinfo(L, "Sf", &ar))
			continue;
		if (ar.what && ar.what[0] == 'C') {
			uintptr_t addr = (uintptr_t)lua_tocfunction(L, -1);
			int ffid = addr ? -1 : sp_vm_ffid(L, -1);

			lua_pop(L, 1);
			if (!addr && ffid > 1) /* a fast function (pcall, ...) */
				addr = sp_ff_announce(ffid);
			if (!addr)
				continue;
			sp_builtin_announce(addr);
			*f = (struct sp_gframe){FRAME_CFUNC, addr, 0};
		} else {
			const void *proto = sp_vm_proto(L, -1);
			const char *name = NULL;
			uint64_t id;

			lua_pop(L, 1);
			if (lua_getinfo(L, "n", &ar) && ar.name)
				name = ar.name;
			else if (ar.what && ar.what[0] == 'm')
				name = "main chunk";
			id = sp_fn_intern(ar.source ? ar.source : "?", ar.linedefined, name, proto);
			if (!id)
				continue;
			*f = (struct sp_gframe){FRAME_LFUNC, id,
						ar.linedefined > 0 ? ar.linedefined : 0};
			if (!leaf_src) {
				snprintf(leaf_src_buf, sizeof(leaf_src_buf), "%s",
					 ar.source ? ar.source : "?");
				leaf_src = leaf_src_buf;
				leaf_line = f->line;
			}
		}
		ngstack++;
	}
}

/* Host stack of the callback itself, minus our frames: the outer part of
 * samples whose unwind stopped in JIT code. */
static uintptr_t outer[SP_HOST_MAX];
static int nouter;

static void outer_capture(void)
{
	unw_context_t uc;
	unw_cursor_t cur;
	unw_word_t ip;

	nouter = 0;
	if (unw_getcontext(&uc) < 0 || unw_init_local(&cur, &uc) < 0)
		return;
	do {
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		if (!nouter && sp_ip_self((uintptr_t)ip))
			continue;
		outer[nouter++] = (uintptr_t)ip;
		if (!sp_ip_known((uintptr_t)ip))
			break;
	} while (nouter < SP_HOST_MAX && unw_step(&cur) > 0);
}

/* --- samples -------------------------------------------------------------- */

/* --- traces: where each one starts (jit.attach "trace" events) ---------- */

#define SP_TRACES_MAX 65536
#define SP_TRACE_KEY "threadtop.sysprof.trace"

struct sp_trace {
	uint64_t id; /* pseudo-function "TRACE [n] <chunk>", 0 if unknown */
	int line;    /* line where the trace starts */
};

static struct sp_trace *traces;

/* jit.attach handler: ("start", traceno, func, pc, ...) or ("flush"). */
static int sp_trace_event(lua_State *L)
{
	const char *what = lua_tostring(L, 1);
	int tr = (int)lua_tointeger(L, 2), line = 0;
	char buf[SP_SRC_MAX + 32];
	lua_Debug ar;
	uint64_t proto;

	if (sp.state != SP_PROFILE || !traces || !what)
		return 0;
	if (!strcmp(what, "flush")) {
		memset(traces, 0, SP_TRACES_MAX * sizeof(*traces));
		return 0;
	}
	if (strcmp(what, "start") || tr <= 0 || tr >= SP_TRACES_MAX || !lua_isfunction(L, 3))
		return 0;
	/* line = jit.util.funcinfo(func, pc).currentline */
	lua_getfield(L, LUA_REGISTRYINDEX, SP_TRACE_KEY ".funcinfo");
	if (lua_isfunction(L, -1)) {
		lua_pushvalue(L, 3);
		lua_pushvalue(L, 4);
		if (lua_pcall(L, 2, 1, 0) == 0 && lua_istable(L, -1)) {
			lua_getfield(L, -1, "currentline");
			line = (int)lua_tointeger(L, -1);
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);
	lua_pushvalue(L, 3);
	if (!lua_getinfo(L, ">S", &ar))
		return 0;
	proto = sp_fn_intern(ar.source ? ar.source : "?", ar.linedefined, NULL, sp_vm_proto(L, 3));
	snprintf(buf, sizeof(buf), "TRACE [%d] %s", tr, ar.source ? ar.source : "?");
	traces[tr].id = sp_fn_intern(buf, line, NULL, NULL);
	traces[tr].line = line;
	if (proto) { /* Tarantool's trace symbol: traceno, start prototype, line */
		sp_wb_byte(SYM_TRACE_EV);
		sp_wb_uleb((uint64_t)tr);
		sp_wb_uleb(proto);
		sp_wb_uleb(line > 0 ? (uint64_t)line : 0);
	}
	return 0;
}

/* Calls jit.attach(handler[, "trace"]) if the jit module is there. */
static void traces_attach(lua_State *L, int on)
{
	if (!lua_checkstack(L, 6))
		return;
	lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
	lua_getfield(L, -1, "jit");
	if (!lua_istable(L, -1)) {
		lua_pop(L, 2);
		return;
	}
	if (on) {
		/* jit.util is preloaded, not loaded: require("jit.util").funcinfo */
		lua_getglobal(L, "require");
		lua_pushstring(L, "jit.util");
		if (lua_pcall(L, 1, 1, 0) == 0 && lua_istable(L, -1))
			lua_getfield(L, -1, "funcinfo");
		else
			lua_pushnil(L);
		lua_setfield(L, LUA_REGISTRYINDEX, SP_TRACE_KEY ".funcinfo");
		lua_pop(L, 1);
		lua_pushcfunction(L, sp_trace_event);
		lua_setfield(L, LUA_REGISTRYINDEX, SP_TRACE_KEY);
	}
	lua_getfield(L, -1, "attach");
	lua_getfield(L, LUA_REGISTRYINDEX, SP_TRACE_KEY);
	if (!lua_isfunction(L, -2) || !lua_isfunction(L, -1)) {
		lua_pop(L, 4);
		return;
	}
	if (on)
		lua_pushstring(L, "trace");
	if (lua_pcall(L, on ? 2 : 1, 0, 0) != 0)
		lua_pop(L, 1);
	lua_pop(L, 2);
}

/* --- samples -------------------------------------------------------------- */

/* Pseudo-function of a JIT sample: where its trace starts if seen, else
 * the chunk of the Lua function running at the safe point. */
static uint64_t trace_id(int traceno, int *ret_line)
{
	char buf[SP_SRC_MAX + 32];

	if (traces && traceno > 0 && traceno < SP_TRACES_MAX && traces[traceno].id) {
		*ret_line = traces[traceno].line;
		return traces[traceno].id;
	}
	if (traceno > 0)
		snprintf(buf, sizeof(buf), "TRACE [%d] %s", traceno, leaf_src ? leaf_src : "?");
	else
		snprintf(buf, sizeof(buf), "TRACE [?] %s", leaf_src ? leaf_src : "?");
	*ret_line = leaf_src ? leaf_line : 0;
	return sp_fn_intern(buf, *ret_line, NULL, NULL);
}

/* First frame of the safe-point stack that belongs to C function cfunc's
 * sample: its own frame when it still runs (it called Lua again: what ran
 * later goes), else all of it (cfunc returned to its caller); -1 for the
 * latter. */
static int cfunc_frame(uintptr_t cfunc)
{
	int i;

	for (i = 0; i < ngstack; i++)
		if (gstack[i].type == FRAME_CFUNC && gstack[i].id == cfunc)
			return i;
	return -1;
}

/* The pseudo-function that marks the state of a sample whose Tarantool
 * layout has no Lua stack (INTERP, GC and the JIT compiler's states, inside
 * the VM): a leaf "[gc]" ..., which our parser turns back into the state. */
static uint64_t marker_id(uint8_t st)
{
	static const char *const names[SP_NVMST] = {
		[SP_INTERP] = "[interp]", [SP_GC] = "[gc]",   [SP_EXIT] = "[exit]",
		[SP_RECORD] = "[record]", [SP_OPT] = "[opt]", [SP_ASM] = "[asm]",
	};

	return st < SP_NVMST && names[st] ? sp_fn_intern(names[st], 0, NULL, NULL) : 0;
}

/*
 * One sample: the frames the handler saw at the signal (the fast function,
 * the C function, the trace) on top of the Lua stack of the safe point, cut
 * where that stack went on past the C function that was running.
 */
static void write_sample(const struct sp_slot *s, int have_guest)
{
	int leaf = sp.mode == LUAM_SYSPROF_LEAF;
	uint8_t st = s->vmst == SP_UNKNOWN ? SP_INTERP : s->vmst;
	int in_vm = s->ffid != SP_FFID_OUTSIDE && s->vmst != SP_UNKNOWN;
	int lua_layout = st == SP_LFUNC || st == SP_FFUNC || st == SP_CFUNC || st == SP_TRACE;
	int with_guest = lua_layout || in_vm;
	struct sp_gframe top[2];
	int i, n = 0, ntop = 0, from = 0, total, tline = 0;
	uint64_t id, marker = !lua_layout && with_guest ? marker_id(st) : 0;

	if (st == SP_CFUNC && s->cfunc) {
		from = have_guest ? cfunc_frame(s->cfunc) : -1;
		if (from < 0) {
			sp_builtin_announce(s->cfunc);
			top[ntop++] = (struct sp_gframe){FRAME_CFUNC, s->cfunc, 0};
			from = 0;
		}
	} else if (st == SP_FFUNC && s->ffid > 1 && (id = sp_ff_announce(s->ffid))) {
		top[ntop++] = (struct sp_gframe){FRAME_CFUNC, id, 0};
	} else if (st == SP_TRACE && (id = trace_id(s->traceno, &tline))) {
		top[ntop++] = (struct sp_gframe){FRAME_LFUNC, id, tline > 0 ? tline : 0};
	}
	/* Symbols above are announced before the sample starts. TRACE and
	 * marked samples take the LFUNC layout. */
	if (!lua_layout && !marker)
		with_guest = 0;
	sp_wb_byte(st == SP_TRACE || (!lua_layout && with_guest) ? SP_LFUNC : st);
	if (with_guest) {
		if (marker) {
			sp_wb_byte(FRAME_LFUNC);
			sp_wb_uleb(marker);
			sp_wb_uleb(0);
		}
		for (i = 0; i < ntop; i++, n++) {
			sp_wb_byte(top[i].type);
			sp_wb_uleb(top[i].id);
			if (top[i].type == FRAME_LFUNC)
				sp_wb_uleb((uint64_t)top[i].line);
		}
		for (i = from; have_guest && i < ngstack && !(leaf && n); i++, n++) {
			sp_wb_byte(gstack[i].type);
			sp_wb_uleb(gstack[i].id);
			if (gstack[i].type == FRAME_LFUNC)
				sp_wb_uleb((uint64_t)gstack[i].line);
		}
		sp_wb_byte(FRAME_END);
	}
	total = s->nframes;
	for (i = 0; i < s->nframes && !(leaf && i); i++)
		if (s->frames[i])
			sp_wb_uleb(s->frames[i]);
	if (s->need_outer && have_guest && !leaf)
		for (i = 0; i < nouter && total < SP_HOST_MAX * 2; i++, total++)
			sp_wb_uleb(outer[i]);
	sp_wb_uleb(0);
	sp_probe_sample(s, st, top, with_guest ? ntop : 0, gstack + from,
			with_guest && have_guest ? ngstack - from : 0, outer,
			have_guest ? nouter : 0);
}

void sp_drain(lua_State *L)
{
	uint32_t head = __atomic_load_n(&sp.head, __ATOMIC_ACQUIRE);
	int captured = 0, outer_done = 0;

	if (L)
		sp_names_reannounce();
	while (sp.tail != head) {
		const struct sp_slot *s = &sp.ring[sp.tail % SP_RING_SLOTS];

		if (L && !captured) {
			guest_capture(L);
			captured = 1;
		}
		if (L && s->need_outer && !outer_done) {
			outer_capture();
			outer_done = 1;
		}
		write_sample(s, L != NULL);
		__atomic_store_n(&sp.tail, sp.tail + 1, __ATOMIC_RELEASE);
	}
}

/* --- session -------------------------------------------------------------- */

int sp_stream_begin(lua_State *L)
{
	static const char ljs[] = {'l', 'j', 's', 3, 0, 0, 0};
	static const char ljp[] = {'l', 'j', 'p', 2, 0, 0, 0};
	char info[128];
	size_t i;

	sp.wb = (struct sp_wbuf){.buf = sp.opt.buf, .size = sp.opt.len};
	if (sp_names_begin(L) < 0)
		goto nomem;
	traces = calloc(SP_TRACES_MAX, sizeof(*traces));
	if (!traces)
		goto nomem;

	for (i = 0; i < sizeof(ljs); i++)
		sp_wb_byte((uint8_t)ljs[i]);
	snprintf(info, sizeof(info), "[threadtop-sysprof fidelity=%d mode=%c interval=%llu]",
		 sp.fidelity, "DLC"[sp.mode], (unsigned long long)sp.opt.interval);
	sp_wb_byte(1);
	sp_wb_uleb(1);
	sp_wb_str(info, strlen(info));
	if (sp_symtab_dump_cfuncs() < 0)
		goto nomem;
	sp_wb_byte(FRAME_END);
	for (i = 0; i < sizeof(ljp); i++)
		sp_wb_byte((uint8_t)ljp[i]);
	traces_attach(L, 1);
	if (sp.wb.err) {
		errno = sp.wb.err;
		sp_set_error("writing the profile header failed: %s", strerror(errno));
		return PROFILE_ERRIO;
	}
	return PROFILE_SUCCESS;
nomem:
	sp_set_error("cannot allocate the symbol tables: %s", strerror(ENOMEM));
	return PROFILE_ERRMEM;
}

void sp_stream_detach(lua_State *L)
{
	if (traces && L)
		traces_attach(L, 0);
}

int sp_stream_end(void)
{
	sp_wb_byte(FRAME_END);
	sp_wb_flush();
	return sp.wb.err ? -1 : 0;
}

void sp_stream_free(void)
{
	free(traces);
	traces = NULL;
	sp_names_free();
}
