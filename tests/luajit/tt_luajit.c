/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test host for the Lua-level sysprof tests: a minimal luajit that links
 * libthreadtop-sysprof directly (so ASan builds instrument the whole path),
 * opens the standard libraries plus misc, sets arg and runs a script.
 * Usage: tt_luajit SCRIPT [ARGS...]; exit 0 on success, 1 on a Lua error.
 * Globals for Lua-C-Lua-C stacks: tt_ccall(f, ...) calls f through
 * lua_call from C; tt_cspin(n) burns CPU in C.
 */
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>
#include <lualib.h>

#include "threadtop/lmisclib.h"

static int traceback(lua_State *L)
{
	luaL_traceback(L, L, lua_tostring(L, 1), 1);
	return 1;
}

static int tt_ccall(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TFUNCTION);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

static int tt_cspin(lua_State *L)
{
	long n = (long)luaL_checknumber(L, 1), i;
	volatile double x = 1;

	for (i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	lua_pushnumber(L, x);
	return 1;
}

int main(int argc, char **argv)
{
	lua_State *L;
	int i, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s SCRIPT [ARGS...]\n", argv[0]);
		return 2;
	}
	L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "tt_luajit: cannot create a Lua state\n");
		return 1;
	}
	luaL_openlibs(L);
	luaopen_misc(L);
	lua_pop(L, 1);
	lua_register(L, "tt_ccall", tt_ccall);
	lua_register(L, "tt_cspin", tt_cspin);
	lua_createtable(L, argc, 0);
	for (i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i - 1);
	}
	lua_setglobal(L, "arg");
	lua_pushcfunction(L, traceback);
	rc = luaL_loadfile(L, argv[1]);
	if (rc == 0) {
		for (i = 2; i < argc; i++)
			lua_pushstring(L, argv[i]);
		rc = lua_pcall(L, argc - 2, 0, -(argc - 2) - 2);
	}
	if (rc != 0)
		fprintf(stderr, "tt_luajit: %s\n", lua_tostring(L, -1));
	lua_close(L);
	return rc ? 1 : 0;
}
