/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysprof: naming the functions a stream's samples show, normal context
 * only. Lua functions are interned by prototype, chunk and first line to
 * small ids written as the "prototype address"; each new one is announced
 * with a symtab event (10) before its first use, and its name with a CFUNC
 * symtab event (11) at the same id, which Tarantool's parser ignores for Lua
 * frames (a threadtop extension). C builtins (string.format, table.sort) are
 * named by their address and fast functions (type, string.byte: assembler,
 * no lua_CFunction) by their ffid, from package.loaded, with CFUNC symtab
 * events. Every name also goes to threadtop's probe, and again every second
 * while threadtop is attached, for a threadtop that came later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "sysprof_internal.h"

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
uint64_t sp_fn_intern(const char *src, int line, const char *name, const void *proto)
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

static uint64_t reannounced_ns;

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
uint64_t sp_ff_announce(int ffid)
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
void sp_builtin_announce(uintptr_t addr)
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

/* threadtop may have attached after a name went by (a process that was
 * running, a threadtop restarted): every second while one is attached,
 * every name announced so far goes through the probe again. */
void sp_names_reannounce(void)
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

int sp_names_begin(lua_State *L)
{
	fns_len = 0;
	next_id = 16;
	if (fns_grow() < 0)
		return -1;
	builtins_scan(L);
	return 0;
}

void sp_names_free(void)
{
	size_t i;

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
