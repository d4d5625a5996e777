/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmocka tests of threadtop's probe point in libthreadtop-sysprof.so without
 * BPF: this program defines threadtop_luajit_probe() itself (the library's
 * call binds to it, as ELF interposition allows) and raises the
 * threadtop_luajit_attached counter by hand, as the kernel does for a
 * uprobe. Checked: nothing is probed while the counter is zero; a VM opened
 * while it is set starts the live session and its samples carry VM states,
 * Lua frames named by earlier function records and host stacks; the user's
 * own start() and stop() behave as if no live session ran; the live session
 * ends when the counter drops and starts again (through the watcher and a
 * count hook) when it rises on a running VM.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <lauxlib.h>
#include <luajit.h>
#include <lualib.h>

#include <linux/types.h>

#include "threadtop/events.h"
#include "threadtop/lmisclib.h"
#include "threadtop/luajit_probe.h"

extern volatile unsigned short threadtop_luajit_attached;
LUALIB_API int luaopen_misc(lua_State *L);

#define NAMES_KEPT 8192 /* names (and ids) of functions the probe saw named */

static struct {
	unsigned samples, funcs, with_guest, with_host, bad;
	unsigned per_state[TT_LJ_VMSTATE_MAX];
	unsigned named_guest; /* samples whose leaf frame was named before */
	/*
	 * Every name, not only the first: a live session started on a running
	 * VM names each function it meets, 500 and more before a loaded
	 * machine's first samples, and a sample's leaf may be among the later
	 * ones (named_guest read 0 of 10 in a CI run that kept 64).
	 */
	char names[NAMES_KEPT][128];
	uint64_t ids[NAMES_KEPT];
	unsigned nnames;
} got;

static int known_id(uint64_t id)
{
	for (unsigned i = 0; i < got.nnames; i++)
		if (got.ids[i] == id)
			return 1;
	return 0;
}

void threadtop_luajit_probe(const struct tt_lj_probe *p);
void threadtop_luajit_probe(const struct tt_lj_probe *p)
{
	const __u64 *guest = (const __u64 *)(uintptr_t)p->guest;

	if (p->version != TT_LJ_PROBE_VERSION) {
		got.bad++;
		return;
	}
	if (p->kind == TT_LJ_PROBE_FUNC) {
		got.funcs++;
		if (got.nnames < NAMES_KEPT) {
			snprintf(got.names[got.nnames], sizeof(got.names[0]), "%.*s",
				 (int)p->name_len, (const char *)(uintptr_t)p->name);
			got.ids[got.nnames++] = p->id;
		}
		return;
	}
	if (p->kind != TT_LJ_PROBE_SAMPLE || p->vmstate >= TT_LJ_VMSTATE_MAX ||
	    p->nguest > TT_LJ_MAX_FRAMES || p->nhost > TT_LJ_PROBE_HOST_MAX) {
		got.bad++;
		return;
	}
	got.samples++;
	got.per_state[p->vmstate]++;
	if (p->nguest) {
		got.with_guest++;
		if (known_id(guest[0]))
			got.named_guest++;
	}
	if (p->nhost)
		got.with_host++;
}

static const char *workload = "local function fib(n) if n < 2 then return n end "
			      "return fib(n-1) + fib(n-2) end "
			      "local t = os.clock() "
			      "while os.clock() - t < (...) do fib(20) end";

static void run_lua(lua_State *L, double seconds)
{
	assert_int_equal(luaL_loadstring(L, workload), 0);
	lua_pushnumber(L, seconds);
	assert_int_equal(lua_pcall(L, 1, 0, 0), 0);
}

/*
 * Runs the workload in slices until the probe saw want samples, or 20 s of
 * CPU: the watcher that starts the live session is another thread, which a
 * loaded machine runs late, so a fixed amount of work may end before it.
 */
static void run_lua_until(lua_State *L, unsigned want)
{
	for (int i = 0; i < 100 && got.samples < want; i++)
		run_lua(L, 0.2);
}

/* Runs a chunk; on an error, prints Lua's message so a failure says why. */
static int lua_ok(lua_State *L, const char *code)
{
	if (luaL_dostring(L, code) == 0)
		return 1;
	fprintf(stderr, "lua error in \"%s\": %s\n", code, lua_tostring(L, -1));
	lua_pop(L, 1);
	return 0;
}

static lua_State *new_vm(void)
{
	lua_State *L = luaL_newstate();

	luaL_openlibs(L);
	lua_pushcfunction(L, luaopen_misc);
	lua_call(L, 0, 0);
	return L;
}

static int has_name(const char *part)
{
	for (unsigned i = 0; i < got.nnames; i++)
		if (strstr(got.names[i], part))
			return 1;
	return 0;
}

static void live_session(void **state)
{
	lua_State *L;
	unsigned before;

	/* Not attached: the library stays silent. */
	threadtop_luajit_attached = 0;
	L = new_vm();
	run_lua(L, 0.3);
	assert_int_equal(got.samples + got.funcs, 0);

	/* Attached: the watcher starts the live session on the running VM. */
	threadtop_luajit_attached = 1;
	run_lua_until(L, 10);
	if (!got.named_guest) /* says why, should the check below fail */
		fprintf(stderr, "samples %u, with guest frames %u, funcs named %u (kept %u)\n",
			got.samples, got.with_guest, got.funcs, got.nnames);
	assert_int_equal(got.bad, 0);
	assert_true(got.samples >= 10);
	assert_true(got.with_guest > 0);
	assert_true(got.with_host > 0);
	assert_true(got.named_guest > 0);
	assert_true(has_name("fib"));
	assert_true(got.per_state[TT_LJ_LFUNC] + got.per_state[TT_LJ_TRACE] > 0);

	/* The user's own session: stop() says "not running", start() works. */
	luaL_dostring(L, "ok, err = misc.sysprof.stop()");
	lua_getglobal(L, "err");
	assert_string_equal(lua_tostring(L, -1), "profiler is not running");
	lua_pop(L, 1);
	assert_true(lua_ok(L, "assert(misc.sysprof.start({mode = 'D'}))"));
	before = got.samples;
	run_lua(L, 0.2);
	assert_int_equal(got.samples, before); /* D mode has no samples to probe */
	assert_true(lua_ok(L, "assert(misc.sysprof.stop())"));

	/* Detached: the live session stops within a watcher period. */
	run_lua(L, 0.3);
	threadtop_luajit_attached = 0;
	run_lua(L, 0.3);
	before = got.samples;
	run_lua(L, 0.3);
	assert_int_equal(got.samples, before);
	lua_close(L);

	/* A VM opened while attached starts at once. */
	threadtop_luajit_attached = 1;
	memset(&got, 0, sizeof(got));
	L = new_vm();
	run_lua_until(L, 5);
	assert_true(got.samples >= 5);
	assert_true(has_name("fib"));
	lua_close(L);
	threadtop_luajit_attached = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(live_session),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
