/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The C API example of src/luajit/README.md, compiled and run by the test
 * suite so that the documented usage stays true: profile a Lua chunk in
 * CALLGRAPH mode into a file named by argv[1], then print the counters.
 */
#include <stdio.h>

#include <lauxlib.h>
#include <lualib.h>

#include "threadtop/lmisclib.h"

static size_t writer(const void **data, size_t len, void *ctx)
{
	return fwrite(*data, 1, len, ctx);
}

static int on_stop(void *ctx, uint8_t *buf)
{
	(void)buf;
	return fclose(ctx);
}

int main(int argc, char **argv)
{
	static uint8_t buf[1 << 20];
	struct luam_Sysprof_Options opt = {.mode = LUAM_SYSPROF_CALLGRAPH, .interval = 10};
	struct luam_Sysprof_Counters c;
	lua_State *L = luaL_newstate();

	if (argc != 2 || !L)
		return 2;
	luaL_openlibs(L);
	luaM_sysprof_set_writer(writer);
	luaM_sysprof_set_on_stop(on_stop);
	luaM_sysprof_set_backtracer(NULL); /* libunwind from the signal context */
	opt.buf = buf;
	opt.len = sizeof(buf);
	opt.ctx = fopen(argv[1], "w");
	if (!opt.ctx || luaM_sysprof_start(L, &opt) != PROFILE_SUCCESS) {
		fprintf(stderr, "sysprof: %s\n", luaM_sysprof_strerror());
		return 1;
	}
	if (luaL_dostring(L, "local s = 0 for i = 1, 1e8 do s = s + i % 7 end return s"))
		return 1;
	if (luaM_sysprof_stop(L) != PROFILE_SUCCESS) {
		fprintf(stderr, "sysprof: %s\n", luaM_sysprof_strerror());
		return 1;
	}
	luaM_sysprof_report(&c);
	printf("samples %llu trace %llu\n", (unsigned long long)c.samples,
	       (unsigned long long)c.vmst_trace);
	lua_close(L);
	return c.samples > 0 ? 0 : 1;
}
