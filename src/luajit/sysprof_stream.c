/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysprof stream writer, normal context only: the output buffer emptied
 * through the configured writer, the symbol table header (symtab "ljs" v3
 * followed by events "ljp" v2, Tarantool's format), the guest (Lua) stack
 * taken at LuaJIT's safe-point callback, and the samples the signal handler
 * queued since the previous callback.
 *
 * Lua functions are identified by (chunk name, first line), interned to small
 * ids written as the "prototype address"; each new one is announced with a
 * symtab event (10) before its first use, and its name with a CFUNC symtab
 * event (11) at the same id, which Tarantool's parser ignores for Lua frames
 * (a threadtop extension). Builtins (string.format, ...) are written as C
 * frames named by CFUNC symtab events. JIT-compiled samples are written with
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

#define SP_SRC_MAX 512 /* chunk names are cut to this length */

enum {
	SYM_LFUNC_EV = 10,
	SYM_CFUNC_EV = 11,
	SYM_TRACE_EV = 12,
	FRAME_LFUNC = 1,
	FRAME_CFUNC = 2,
	FRAME_END = 0x80
};

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

/* --- interned Lua functions ---------------------------------------------- */

struct sp_fn {
	uint64_t hash;
	uint64_t id;
	const void *proto; /* the prototype's bytecode, NULL for pseudo-functions */
	int line;
	int pos;   /* 1 + how many other prototypes of src start at line */
	int named; /* its name was announced */
	char *src;
	char *name; /* as announced, for announcing again */
};

static struct sp_fn *fns;
static size_t fns_cap, fns_len;
static uint64_t next_id;

/* Builtin C functions, from package.loaded, sorted by address. */
struct sp_builtin {
	uintptr_t addr;
	char *name;
	int emitted;
};

static struct sp_builtin *builtins;
static size_t nbuiltins, builtins_cap;

/* Fast functions (builtins in assembler: no lua_CFunction), by ffid. */
static struct {
	char *name;
	int emitted;
} fastfns[256];

static uint64_t fnv(const char *s, size_t len, int line)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return (h ^ (uint32_t)line) * 1099511628211ull;
}

static int fns_grow(void)
{
	size_t cap = fns_cap ? fns_cap * 2 : 256, i;
	struct sp_fn *nv = calloc(cap, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	for (i = 0; i < fns_cap; i++) {
		size_t j;

		if (!fns[i].src)
			continue;
		for (j = fns[i].hash & (cap - 1); nv[j].src; j = (j + 1) & (cap - 1))
			;
		nv[j] = fns[i];
	}
	free(fns);
	fns = nv;
	fns_cap = cap;
	return 0;
}

/* Returns the id of (src, line), announcing a new one in the stream; 0 on
 * allocation failure. name may be NULL. */
static void fn_probe(const struct sp_fn *f)
{
	sp_probe_func(f->id, f->src, f->line, f->name, 0);
}

/* Names function f with the name its caller gives it, once. One without a
 * name that is not the first function starting on its line is "#2", "#3"
 * ... (until a name comes), so that two functions on one line differ. */
static void fn_name(struct sp_fn *f, const char *name)
{
	char buf[16];

	if (f->named || (f->name && (!name || !*name)))
		return;
	if (name && *name) {
		f->named = 1;
	} else if (f->pos > 1) {
		snprintf(buf, sizeof(buf), "#%d", f->pos);
		name = buf;
	} else {
		return;
	}
	free(f->name);
	f->name = strdup(name);
	if (!f->name)
		return;
	sp_wb_byte(SYM_CFUNC_EV);
	sp_wb_uleb(f->id);
	sp_wb_str(f->name, strlen(f->name));
	fn_probe(f);
}

/* The id of function proto (its bytecode; NULL for a pseudo-function) of
 * chunk src starting at line, announcing a new one in the stream; 0 on
 * allocation failure. name may be NULL. */
static uint64_t fn_intern(const char *src, int line, const char *name, const void *proto)
{
	size_t len = strnlen(src, SP_SRC_MAX);
	uint64_t h = fnv(src, len, line);
	int others = 0;
	size_t j;

	if ((fns_len + 1) * 2 > fns_cap && fns_grow() < 0)
		return 0;
	for (j = h & (fns_cap - 1); fns[j].src; j = (j + 1) & (fns_cap - 1))
		if (fns[j].hash == h && fns[j].line == line && !strncmp(fns[j].src, src, len) &&
		    fns[j].src[len] == '\0') {
			if (fns[j].proto != proto) {
				others++;
				continue;
			}
			fn_name(&fns[j], name);
			return fns[j].id;
		}
	fns[j].src = strndup(src, len);
	if (!fns[j].src)
		return 0;
	fns[j].hash = h;
	fns[j].line = line;
	fns[j].proto = proto;
	fns[j].pos = others + 1;
	fns[j].name = NULL;
	fns[j].id = next_id++;
	fns_len++;
	sp_wb_byte(SYM_LFUNC_EV);
	sp_wb_uleb(fns[j].id);
	sp_wb_str(src, len);
	sp_wb_uleb(line > 0 ? (uint64_t)line : 0);
	fns[j].named = 0;
	fn_name(&fns[j], name);
	if (!fns[j].name)
		fn_probe(&fns[j]);
	return fns[j].id;
}

/* threadtop may have attached after a name went by (a process that was
 * running, a threadtop restarted): every second while one is attached,
 * every name announced so far goes through the probe again. */
static uint64_t reannounced_ns;
static void names_reannounce(void);

static int builtin_cmp(const void *a, const void *b)
{
	const struct sp_builtin *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void builtins_add(uintptr_t addr, const char *mod, const char *key)
{
	char buf[128];

	if (nbuiltins == builtins_cap) {
		size_t ncap = builtins_cap ? builtins_cap * 2 : 512;
		struct sp_builtin *nv = realloc(builtins, ncap * sizeof(*nv));

		if (!nv)
			return;
		builtins = nv;
		builtins_cap = ncap;
	}
	if (!strcmp(mod, "_G"))
		snprintf(buf, sizeof(buf), "%s", key);
	else
		snprintf(buf, sizeof(buf), "%s.%s", mod, key);
	builtins[nbuiltins].name = strdup(buf);
	if (!builtins[nbuiltins].name)
		return;
	builtins[nbuiltins].addr = addr;
	builtins[nbuiltins].emitted = 0;
	nbuiltins++;
}

static void ffs_add(int ffid, const char *mod, const char *key)
{
	char buf[128];

	if (ffid <= 1 || ffid > 255 || fastfns[ffid].name)
		return;
	if (!strcmp(mod, "_G"))
		snprintf(buf, sizeof(buf), "%s", key);
	else
		snprintf(buf, sizeof(buf), "%s.%s", mod, key);
	fastfns[ffid].name = strdup(buf);
}

/* Names fast function ffid in the stream before its first use; its id. */
static uint64_t ff_announce(int ffid)
{
	uint64_t id = SP_FFUNC_ID(ffid);
	char buf[32];

	if (ffid < 0 || ffid > 255)
		return 0;
	if (!fastfns[ffid].emitted) {
		const char *name = fastfns[ffid].name;

		if (!name) {
			snprintf(buf, sizeof(buf), "[builtin#%d]", ffid);
			name = buf;
		}
		sp_wb_byte(SYM_CFUNC_EV);
		sp_wb_uleb(id);
		sp_wb_str(name, strlen(name));
		sp_probe_func(id, NULL, 0, name, 1 /* TT_LJ_FUNC_C */);
		fastfns[ffid].emitted = 1;
	}
	return id;
}

/* Names every C function reachable as package.loaded[mod][key]. */
static void builtins_scan(lua_State *L)
{
	size_t i, o;

	if (!lua_checkstack(L, 6))
		return;
	lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return;
	}
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1)) {
			const char *mod = lua_tostring(L, -2);

			lua_pushnil(L);
			while (lua_next(L, -2)) {
				lua_CFunction f;

				if (lua_type(L, -2) == LUA_TSTRING && lua_iscfunction(L, -1) &&
				    (f = lua_tocfunction(L, -1)) != NULL)
					builtins_add((uintptr_t)f, mod, lua_tostring(L, -2));
				else if (lua_type(L, -2) == LUA_TSTRING && lua_iscfunction(L, -1))
					ffs_add(sp_vm_ffid(L, -1), mod, lua_tostring(L, -2));
				lua_pop(L, 1);
			}
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	qsort(builtins, nbuiltins, sizeof(*builtins), builtin_cmp);
	/* Keep the first name of an address (_G.x and mod.x may alias). */
	for (i = 0, o = 0; i < nbuiltins; i++) {
		if (o && builtins[o - 1].addr == builtins[i].addr) {
			free(builtins[i].name);
			continue;
		}
		builtins[o++] = builtins[i];
	}
	nbuiltins = o;
}

static struct sp_builtin *builtin_find(uintptr_t addr)
{
	struct sp_builtin key = {.addr = addr};

	return nbuiltins ? bsearch(&key, builtins, nbuiltins, sizeof(key), builtin_cmp) : NULL;
}

/* Names a builtin C function in the stream before its first use. */
static void builtin_announce(uintptr_t addr)
{
	struct sp_builtin *b = builtin_find(addr);

	if (b && !b->emitted) {
		sp_wb_byte(SYM_CFUNC_EV);
		sp_wb_uleb(b->addr);
		sp_wb_str(b->name, strlen(b->name));
		sp_probe_func(b->addr, NULL, 0, b->name, 1 /* TT_LJ_FUNC_C */);
		b->emitted = 1;
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
				addr = ff_announce(ffid);
			if (!addr)
				continue;
			builtin_announce(addr);
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
			id = fn_intern(ar.source ? ar.source : "?", ar.linedefined, name, proto);
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
	proto = fn_intern(ar.source ? ar.source : "?", ar.linedefined, NULL, sp_vm_proto(L, 3));
	snprintf(buf, sizeof(buf), "TRACE [%d] %s", tr, ar.source ? ar.source : "?");
	traces[tr].id = fn_intern(buf, line, NULL, NULL);
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
	return fn_intern(buf, *ret_line, NULL, NULL);
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

	return st < SP_NVMST && names[st] ? fn_intern(names[st], 0, NULL, NULL) : 0;
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
			builtin_announce(s->cfunc);
			top[ntop++] = (struct sp_gframe){FRAME_CFUNC, s->cfunc, 0};
			from = 0;
		}
	} else if (st == SP_FFUNC && s->ffid > 1 && (id = ff_announce(s->ffid))) {
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

static void names_reannounce(void)
{
	struct timespec ts;
	uint64_t now;
	size_t i;

	if (!sp_probe_attached() || clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) < 0)
		return;
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now - reannounced_ns < 1000000000ull)
		return;
	reannounced_ns = now;
	for (i = 0; i < fns_cap; i++)
		if (fns[i].src)
			fn_probe(&fns[i]);
	for (i = 0; i < nbuiltins; i++)
		if (builtins[i].emitted)
			sp_probe_func(builtins[i].addr, NULL, 0, builtins[i].name,
				      1 /* TT_LJ_FUNC_C */);
	for (i = 0; i < 256; i++)
		if (fastfns[i].emitted && fastfns[i].name)
			sp_probe_func(SP_FFUNC_ID(i), NULL, 0, fastfns[i].name,
				      1 /* TT_LJ_FUNC_C */);
}

void sp_drain(lua_State *L)
{
	uint32_t head = __atomic_load_n(&sp.head, __ATOMIC_ACQUIRE);
	int captured = 0, outer_done = 0;

	if (L)
		names_reannounce();
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
	fns_len = 0;
	next_id = 16;
	if (fns_grow() < 0)
		goto nomem;
	traces = calloc(SP_TRACES_MAX, sizeof(*traces));
	if (!traces)
		goto nomem;
	builtins_scan(L);

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
	size_t i;

	free(traces);
	traces = NULL;
	for (i = 0; i < fns_cap; i++) {
		free(fns[i].src);
		free(fns[i].name);
	}
	reannounced_ns = 0;
	free(fns);
	fns = NULL;
	fns_cap = fns_len = 0;
	for (i = 0; i < 256; i++) {
		free(fastfns[i].name);
		fastfns[i].name = NULL;
		fastfns[i].emitted = 0;
	}
	for (i = 0; i < nbuiltins; i++)
		free(builtins[i].name);
	free(builtins);
	builtins = NULL;
	nbuiltins = builtins_cap = 0;
}
