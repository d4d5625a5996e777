/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysprof Lua API: misc.sysprof.start/stop/report/available, with
 * Tarantool's 2025 defaults, validation order and messages, installed by
 * require("sysprof") (luaopen_sysprof), luaopen_misc(), or LD_PRELOAD of the
 * library into an unmodified LuaJIT program: a host linked against
 * libluajit gets it from our luaL_openlibs() wrapper; the luajit CLI (which
 * carries its own LuaJIT) through LUA_INIT, set by the constructor.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sysprof_internal.h"

#define SP_LUA_BUFSIZE (1u << 20)
#define SP_DEFAULT_PATH "sysprof.bin"
#define SP_DEFAULT_INTERVAL 10

struct sp_lua_ctx {
	int fd;
	uint8_t buf[SP_LUA_BUFSIZE];
};

static size_t fd_writer(const void **data, size_t len, void *ctx)
{
	struct sp_lua_ctx *c = ctx;
	const uint8_t *p = *data;
	size_t left = len;

	while (left) {
		ssize_t n = write(c->fd, p, left);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	return len - left;
}

static int fd_on_stop(void *ctx, uint8_t *buf)
{
	struct sp_lua_ctx *c = ctx;
	int rc;

	(void)buf;
	if (!c)
		return 0;
	rc = close(c->fd);
	free(c);
	return rc;
}

static int sp_available(void)
{
#if defined(__x86_64__) && defined(__linux__)
	const char *e = getenv("THREADTOP_SYSPROF_DISABLE");

	return !(e && *e && strcmp(e, "0") != 0);
#else
	return 0;
#endif
}

static int push_fail(lua_State *L, const char *msg, int err)
{
	lua_pushnil(L);
	lua_pushstring(L, msg);
	lua_pushinteger(L, err);
	return 3;
}

static int push_misuse(lua_State *L, const char *detail)
{
	lua_pushnil(L);
	lua_pushfstring(L, "profiler misuse: %s", detail);
	lua_pushinteger(L, EINVAL);
	return 3;
}

static int push_rc(lua_State *L, int rc)
{
	int err = errno;

	switch (rc) {
	case PROFILE_SUCCESS:
		lua_pushboolean(L, 1);
		return 1;
	case PROFILE_ERRRUN:
		return push_fail(L, luaM_sysprof_strerror(), EINVAL);
	case PROFILE_ERRMEM:
		return push_fail(L, "not enough memory", ENOMEM);
	case PROFILE_ERRIO:
		return push_fail(L, strerror(err), err);
	default:
		return push_misuse(L, luaM_sysprof_strerror());
	}
}

/*
 * misc.sysprof.start{mode = 'D'|'L'|'C', interval = ms, path = file}, as
 * Tarantool checks it: exactly one table, a mode, an interval of 1 ms or
 * more when it is a number (else the default), a string path in L and C
 * modes. Every misuse is nil, "profiler misuse: <why>", EINVAL; nothing
 * raises.
 */
static int l_start(lua_State *L)
{
	struct luam_Sysprof_Options opt = {.mode = LUAM_SYSPROF_DEFAULT,
					   .interval = SP_DEFAULT_INTERVAL};
	static const char modes[] = "DLC";
	const char *path = SP_DEFAULT_PATH, *m, *p;
	struct sp_lua_ctx *ctx;
	size_t len = 0;
	int rc, nargs = lua_gettop(L);

	if (!sp_available())
		return push_misuse(L, "profiler is disabled");
	if (nargs != 1 || !lua_istable(L, 1)) {
		lua_pushnil(L);
		if (nargs == 1)
			lua_pushfstring(L,
					"profiler misuse: start takes a table of options, got %s",
					luaL_typename(L, 1));
		else
			lua_pushfstring(L,
					"profiler misuse: start takes one table of options, got %d "
					"arguments",
					nargs);
		lua_pushinteger(L, EINVAL);
		return 3;
	}
	lua_getfield(L, 1, "mode");
	m = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
	p = m && len == 1 ? strchr(modes, m[0]) : NULL;
	if (!p || !*p)
		return push_misuse(L, "profiler mode must be 'D', 'L' or 'C'");
	opt.mode = (uint8_t)(p - modes);
	lua_getfield(L, 1, "interval");
	if (lua_type(L, -1) == LUA_TNUMBER) {
		lua_Number n = lua_tonumber(L, -1);

		if (!(n >= 1))
			return push_misuse(L, "profiler interval must be 1 ms or more");
		opt.interval = n > 1e12 ? (uint64_t)1e12 : (uint64_t)n;
	}
	if (opt.mode != LUAM_SYSPROF_DEFAULT) {
		lua_getfield(L, 1, "path");
		if (!lua_isnil(L, -1)) {
			if (lua_type(L, -1) != LUA_TSTRING)
				return push_misuse(L, "profiler path should be a string");
			path = lua_tostring(L, -1);
		}
	}
	sp_live_yield();
	if (sp.state != SP_IDLE)
		return push_fail(L, "profiler is running already", EINVAL);
	if (opt.mode == LUAM_SYSPROF_DEFAULT) {
		rc = luaM_sysprof_start(L, &opt);
		return push_rc(L, rc);
	}
	ctx = malloc(sizeof(*ctx));
	if (!ctx)
		return push_fail(L, "not enough memory", ENOMEM);
	ctx->fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	if (ctx->fd < 0) {
		int err = errno;

		free(ctx);
		lua_pushnil(L);
		lua_pushfstring(L, "%s: %s", path, strerror(err));
		lua_pushinteger(L, err);
		return 3;
	}
	luaM_sysprof_set_writer(fd_writer);
	luaM_sysprof_set_on_stop(fd_on_stop);
	opt.buf = ctx->buf;
	opt.len = sizeof(ctx->buf);
	opt.ctx = ctx;
	rc = luaM_sysprof_start(L, &opt); /* on failure, on_stop freed ctx */
	return push_rc(L, rc);
}

static int l_stop(lua_State *L)
{
	if (!sp_available())
		return push_misuse(L, "profiler is disabled");
	return push_rc(L, luaM_sysprof_stop(L));
}

static void set_counter(lua_State *L, int idx, const char *name, uint64_t v)
{
	lua_pushnumber(L, (lua_Number)v);
	lua_setfield(L, idx, name);
}

static int l_report(lua_State *L)
{
	static const char *const names[SP_NVMST] = {
		"INTERP", "LFUNC", "FFUNC", "CFUNC", "GC", "EXIT", "RECORD", "OPT", "ASM", "TRACE",
	};
	struct luam_Sysprof_Counters c;
	const uint64_t *v = (const uint64_t *)&c;
	int i, top;

	if (!sp_available())
		return push_misuse(L, "profiler is disabled");
	if (luaM_sysprof_report(&c) != PROFILE_SUCCESS)
		return push_misuse(L, luaM_sysprof_strerror());
	lua_createtable(L, 0, 16);
	top = lua_gettop(L);
	lua_createtable(L, 0, SP_NVMST);
	for (i = 0; i < SP_NVMST; i++) {
		set_counter(L, top + 1, names[i], v[i]);
		set_counter(L, top, names[i], v[i]); /* the documented flat shape */
	}
	lua_setfield(L, top, "vmstate");
	set_counter(L, top, "samples", c.samples);
	set_counter(L, top, "fidelity", (uint64_t)luaM_sysprof_fidelity());
	lua_pushstring(L, luaM_sysprof_fidelity_limits());
	lua_setfield(L, top, "fidelity_limits");
	set_counter(L, top, "dropped", sp.dropped);
	set_counter(L, top, "overhead_ns", sp.cost_ns);
	return 1;
}

LUALIB_API int luaopen_misc(lua_State *L)
{
	static const luaL_Reg funcs[] = {
		{"start", l_start},
		{"stop", l_stop},
		{"report", l_report},
		{NULL, NULL},
	};

	lua_getglobal(L, LUAM_MISCLIBNAME);
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_setglobal(L, LUAM_MISCLIBNAME);
	}
	lua_newtable(L);
	luaL_register(L, NULL, funcs);
	lua_pushboolean(L, sp_available());
	lua_setfield(L, -2, "available");
	lua_setfield(L, -2, "sysprof");
	if (sp_available())
		sp_live_register(L);
	return 1;
}

/* require("sysprof") returns misc.sysprof. */
LUALIB_API int luaopen_sysprof(lua_State *L);
LUALIB_API int luaopen_sysprof(lua_State *L)
{
	luaopen_misc(L);
	lua_getfield(L, -1, "sysprof");
	return 1;
}

/* --- LD_PRELOAD ---------------------------------------------------------- */

/* Hosts linked against libluajit: install misc after the standard libraries. */
LUALIB_API void luaL_openlibs(lua_State *L)
{
	static void (*real)(lua_State *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "luaL_openlibs");
	if (real)
		real(L);
	luaopen_misc(L);
	lua_pop(L, 1);
}

/* Stop a session on the VM being closed before LuaJIT frees it. */
LUA_API void lua_close(lua_State *L)
{
	static void (*real)(lua_State *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "lua_close");
	if (sp.state == SP_PROFILE && sp_profiling_vm(L))
		sp_stop_internal(L, 0);
	if (real)
		real(L);
}

/*
 * The luajit CLI has LuaJIT linked in and binds its own luaL_openlibs, so
 * when preloaded into it we load the module through LUA_INIT, which the CLI
 * runs before the script.
 */
__attribute__((constructor)) static void sp_preload_init(void)
{
	const char *pre = getenv("LD_PRELOAD"), *init = getenv("LUA_INIT");
	char code[1024];
	Dl_info info;

	if (!pre || !strstr(pre, "threadtop-sysprof") || !dladdr((void *)&luaopen_misc, &info) ||
	    !info.dli_fname || strchr(info.dli_fname, '\''))
		return;
	if (init && strstr(init, "luaopen_sysprof"))
		return;
	if (init && *init == '@')
		snprintf(code, sizeof(code),
			 "package.loadlib('%s','luaopen_sysprof')() dofile('%s')", info.dli_fname,
			 init + 1);
	else if (init)
		snprintf(code, sizeof(code), "package.loadlib('%s','luaopen_sysprof')() %s",
			 info.dli_fname, init);
	else
		snprintf(code, sizeof(code), "package.loadlib('%s','luaopen_sysprof')()",
			 info.dli_fname);
	setenv("LUA_INIT", code, 1);
}
