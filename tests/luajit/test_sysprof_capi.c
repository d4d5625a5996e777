/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmocka tests of the sysprof C API (src/luajit/include/threadtop/lmisclib.h): the
 * validation of Tarantool's misclib-sysprof-capi test, profiling of a
 * coroutine alternating C and Lua work with the JIT on and off, writer and
 * on_stop semantics, a custom backtracer, lua_close() while running, a
 * second VM, and SIGPROF delivered outside the VM, after a yield, after a
 * stack resize and after an error thrown from a coroutine.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <lauxlib.h>
#include <luajit.h>
#include <lualib.h>

#include "threadtop/lmisclib.h"

/* --- an in-memory writer -------------------------------------------------- */

struct membuf {
	uint8_t *data;
	size_t len, cap;
	int fail;	/* writer returns 0 */
	int end_stream; /* writer sets *data = NULL */
	int on_stop_calls;
	uint8_t chunk[4096];
};

static size_t mem_writer(const void **data, size_t len, void *ctx)
{
	struct membuf *m = ctx;

	if (m->fail) {
		errno = ENOSPC;
		return 0;
	}
	if (m->end_stream) {
		*data = NULL;
		return len;
	}
	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		m->data = realloc(m->data, m->cap);
		assert_non_null(m->data);
	}
	memcpy(m->data + m->len, *data, len);
	m->len += len;
	return len;
}

static int mem_on_stop(void *ctx, uint8_t *buf)
{
	struct membuf *m = ctx;

	assert_true(buf == m->chunk || buf == NULL);
	m->on_stop_calls++;
	return 0;
}

static struct luam_Sysprof_Options opts(uint8_t mode, uint64_t interval, struct membuf *m)
{
	struct luam_Sysprof_Options o = {.mode = mode, .interval = interval};

	if (m) {
		o.buf = m->chunk;
		o.len = sizeof(m->chunk);
		o.ctx = m;
	}
	return o;
}

static uint64_t sum(const struct luam_Sysprof_Counters *c)
{
	return c->vmst_interp + c->vmst_lfunc + c->vmst_ffunc + c->vmst_cfunc + c->vmst_gc +
	       c->vmst_exit + c->vmst_record + c->vmst_opt + c->vmst_asm + c->vmst_trace;
}

static lua_State *new_vm(void)
{
	lua_State *L = luaL_newstate();

	assert_non_null(L);
	luaL_openlibs(L);
	return L;
}

static void run(lua_State *L, const char *code)
{
	if (luaL_dostring(L, code) != 0)
		fail_msg("Lua error: %s", lua_tostring(L, -1));
}

static volatile uint64_t burn_sink;

static long thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void burn_cpu_ms(long ms)
{
	long start = thread_cpu_ms();

	do {
		for (int i = 0; i < 100000; i++)
			burn_sink += (uint64_t)i * 7;
	} while (thread_cpu_ms() - start < ms);
}

/*
 * The profiler's timer counts this thread's CPU time, so a fixed amount of
 * work is fewer ticks on a fast machine than on a slow one: checks on what
 * was sampled run the work until it is there, within a CPU budget.
 */
#define CPU_BUDGET_MS 20000

static int cfunc_sampled(const struct luam_Sysprof_Counters *c)
{
	return c->samples > 1 && c->vmst_cfunc > 0;
}

static int lfunc_sampled(const struct luam_Sysprof_Counters *c)
{
	return c->samples > 0 && c->vmst_lfunc > 0;
}

/* Runs code until done(counters) or CPU_BUDGET_MS of CPU; 1 if done. */
static int run_until(lua_State *L, const char *code,
		     int (*done)(const struct luam_Sysprof_Counters *c))
{
	struct luam_Sysprof_Counters c;
	long start = thread_cpu_ms();

	do {
		run(L, code);
		assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
		if (done(&c))
			return 1;
	} while (thread_cpu_ms() - start < CPU_BUDGET_MS);
	return 0;
}

static int setup_config(void **state)
{
	(void)state;
	assert_int_equal(luaM_sysprof_set_writer(mem_writer), PROFILE_SUCCESS);
	assert_int_equal(luaM_sysprof_set_on_stop(mem_on_stop), PROFILE_SUCCESS);
	assert_int_equal(luaM_sysprof_set_backtracer(NULL), PROFILE_SUCCESS);
	return 0;
}

/* --- Tarantool's base and validation ------------------------------------- */

static void test_base(void **state)
{
	struct luam_Sysprof_Options o = {0};
	struct luam_Sysprof_Counters c = {0};

	(void)state;
	(void)o.mode, (void)o.interval, (void)o.buf, (void)o.len, (void)o.ctx;
	assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
	assert_int_equal(sum(&c), c.samples);
	assert_int_equal(offsetof(struct luam_Sysprof_Counters, samples), 10 * sizeof(uint64_t));
}

static void test_validation(void **state)
{
	lua_State *L = new_vm();
	struct membuf m = {0};
	struct luam_Sysprof_Options o;

	(void)state;
	o = opts(0x40, 100, &m);
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_ERRUSE);
	assert_non_null(strstr(luaM_sysprof_strerror(), "mode"));
	assert_int_equal(m.on_stop_calls, 1); /* failed start releases ctx */

	o = opts(LUAM_SYSPROF_CALLGRAPH, 100, &m);
	o.buf = NULL;
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_ERRUSE);
	assert_non_null(strstr(luaM_sysprof_strerror(), "buffer"));

	o = opts(LUAM_SYSPROF_DEFAULT, 0, NULL);
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_ERRUSE);
	assert_non_null(strstr(luaM_sysprof_strerror(), "interval"));

	o = opts(LUAM_SYSPROF_DEFAULT, 100, NULL);
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
	assert_string_equal(luaM_sysprof_strerror(), "");
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_ERRRUN);
	assert_string_equal(luaM_sysprof_strerror(), "profiler is running already");
	assert_int_equal(luaM_sysprof_set_writer(mem_writer), PROFILE_ERRUSE);
	assert_int_equal(luaM_sysprof_stop(L), PROFILE_SUCCESS);
	assert_int_equal(luaM_sysprof_stop(L), PROFILE_ERRRUN);
	assert_string_equal(luaM_sysprof_strerror(), "profiler is not running");

	assert_int_equal(luaM_sysprof_set_writer(NULL), PROFILE_ERRUSE);
	assert_int_equal(luaM_sysprof_set_on_stop(NULL), PROFILE_ERRUSE);
	lua_close(L);
	free(m.data);
}

/* --- profiling C and Lua code in a coroutine ----------------------------- */

static int c_fib(lua_State *L)
{
	long n = (long)luaL_checkinteger(L, 1), a = 0, b = 1, i, r = 0;

	for (int k = 0; k < 2000; k++)
		for (i = 0, a = 0, b = 1; i < n; i++) {
			long t = a + b;

			a = b;
			b = t;
			r += a & 1;
		}
	lua_pushinteger(L, r);
	return 1;
}

static const char payload[] = "local function lfib(n) if n < 2 then return n end\n"
			      "  return lfib(n - 1) + lfib(n - 2) end\n"
			      "local co = coroutine.create(function()\n"
			      "  for i = 1, 60 do c_fib(40 + i % 3); lfib(18)\n"
			      "    if i % 10 == 0 then coroutine.yield() end end end)\n"
			      "while coroutine.status(co) ~= 'dead' do\n"
			      "  assert(coroutine.resume(co)) end\n";

static void profile_payload(int jit_on)
{
	lua_State *L = new_vm();
	struct membuf m = {0};
	struct luam_Sysprof_Options o = opts(LUAM_SYSPROF_CALLGRAPH, 1, &m);
	struct luam_Sysprof_Counters c;
	int i;

	luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | (jit_on ? LUAJIT_MODE_ON : LUAJIT_MODE_OFF));
	lua_register(L, "c_fib", c_fib);
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
	for (i = 0; i < 4; i++)
		run(L, payload);
	assert_true(run_until(L, payload, cfunc_sampled));
	assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
	assert_int_equal(sum(&c), c.samples);
	assert_int_equal(luaM_sysprof_stop(L), PROFILE_SUCCESS);
	assert_int_equal(m.on_stop_calls, 1);
	assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
	assert_true(c.samples > 1);
	assert_int_equal(sum(&c), c.samples);
	assert_true(c.vmst_cfunc > 0);
	assert_int_equal(luaM_sysprof_fidelity(), 10);
	/* The stream: symtab then events, closed by the end marker. */
	assert_true(m.len > 14);
	assert_memory_equal(m.data, "ljs\3", 4);
	assert_int_equal(m.data[m.len - 1], 0x80);
	lua_close(L);
	free(m.data);
}

static void test_profile_jiton(void **state)
{
	(void)state;
	profile_payload(1);
}

static void test_profile_jitoff(void **state)
{
	(void)state;
	profile_payload(0);
}

/* --- writer and on_stop ---------------------------------------------------- */

static void test_writer_failure(void **state)
{
	lua_State *L = new_vm();
	struct membuf m = {0};
	struct luam_Sysprof_Options o = opts(LUAM_SYSPROF_CALLGRAPH, 1, &m);

	(void)state;
	m.fail = 1;
	/* The symbol table does not fit in 4 KiB: the header write fails. */
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_ERRIO);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(m.on_stop_calls, 1);
	lua_close(L);
}

static void test_writer_ends_stream(void **state)
{
	lua_State *L = new_vm();
	struct membuf m = {0};
	struct luam_Sysprof_Options o = opts(LUAM_SYSPROF_CALLGRAPH, 1, &m);
	struct luam_Sysprof_Counters c;

	(void)state;
	m.end_stream = 1;
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
	run(L, "local s = 0 for i = 1, 3e6 do s = s + i % 7 end");
	assert_int_equal(luaM_sysprof_stop(L), PROFILE_SUCCESS);
	assert_int_equal(m.len, 0);
	assert_int_equal(m.on_stop_calls, 1);
	assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
	assert_int_equal(sum(&c), c.samples);
	lua_close(L);
}

static int bt_calls;

static void fake_backtracer(void *(*frame_writer)(int frame_no, void *addr))
{
	bt_calls++;
	if (frame_writer(1, (void *)(uintptr_t)0x1234))
		frame_writer(2, (void *)(uintptr_t)0x5678);
}

static void test_custom_backtracer(void **state)
{
	lua_State *L = new_vm();
	struct membuf m = {0};
	struct luam_Sysprof_Options o = opts(LUAM_SYSPROF_CALLGRAPH, 1, &m);

	(void)state;
	bt_calls = 0;
	assert_int_equal(luaM_sysprof_set_backtracer(fake_backtracer), PROFILE_SUCCESS);
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
	run(L, "local s = 0 for i = 1, 1e7 do s = s + i % 7 end");
	/* Host code until the backtracer ran (the timer counts CPU time). */
	for (long start = thread_cpu_ms(); !bt_calls && thread_cpu_ms() - start < CPU_BUDGET_MS;)
		burn_cpu_ms(10);
	burn_cpu_ms(10);
	assert_int_equal(luaM_sysprof_stop(L), PROFILE_SUCCESS);
	assert_true(bt_calls > 0);
	/* 0x1234 0x5678 0 as ULEB128, as a host stack */
	{
		static const uint8_t pat[] = {0xb4, 0x24, 0xf8, 0xac, 0x01, 0x00};
		int found = 0;

		for (size_t i = 0; i + sizeof(pat) <= m.len && !found; i++)
			found = !memcmp(m.data + i, pat, sizeof(pat));
		assert_true(found);
	}
	assert_int_equal(luaM_sysprof_set_backtracer(NULL), PROFILE_SUCCESS);
	lua_close(L);
	free(m.data);
}

/* --- VM lifetime ------------------------------------------------------------ */

static void test_close_while_running(void **state)
{
	lua_State *L = new_vm();
	struct membuf m = {0};
	struct luam_Sysprof_Options o = opts(LUAM_SYSPROF_CALLGRAPH, 1, &m);

	(void)state;
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
	run(L, "local t = {} for i = 1, 2e5 do t[i] = {i} end");
	lua_close(L);
	assert_int_equal(m.on_stop_calls, 1);
	assert_int_equal(m.data[m.len - 1], 0x80);
	burn_cpu_ms(20); /* no timer left behind */
	/* The profiler is free again. */
	L = new_vm();
	o = opts(LUAM_SYSPROF_DEFAULT, 10, NULL);
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
	assert_int_equal(luaM_sysprof_stop(L), PROFILE_SUCCESS);
	lua_close(L);
	free(m.data);
}

static void test_second_vm(void **state)
{
	lua_State *L1 = new_vm(), *L2 = new_vm();
	struct luam_Sysprof_Options o = opts(LUAM_SYSPROF_DEFAULT, 1, NULL);
	struct luam_Sysprof_Counters c;

	(void)state;
	assert_int_equal(luaM_sysprof_start(L1, &o), PROFILE_SUCCESS);
	assert_int_equal(luaM_sysprof_start(L2, &o), PROFILE_ERRRUN);
	run(L2, "local s = 0 for i = 1, 3e6 do s = s + i end");
	assert_int_equal(luaM_sysprof_stop(L2), PROFILE_ERRUSE);
	assert_non_null(strstr(luaM_sysprof_strerror(), "another VM"));
	lua_close(L2); /* closing another VM leaves the session alone */
	run(L1, "local s = 0 for i = 1, 3e6 do s = s + i end");
	assert_int_equal(luaM_sysprof_stop(L1), PROFILE_SUCCESS);
	assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
	assert_int_equal(sum(&c), c.samples);
	lua_close(L1);
}

/* --- SIGPROF at awkward moments (Tarantool's gh-xxxx-sysprof) ------------ */

static void sample_now(void)
{
	raise(SIGPROF);
}

static int yielder(lua_State *L)
{
	return lua_yield(L, 0);
}

static void test_signal_outside_vm(void **state)
{
	struct luam_Sysprof_Options o;
	struct luam_Sysprof_Counters c;
	struct membuf m = {0};
	lua_State *L, *co;
	int mode;

	(void)state;
	for (mode = LUAM_SYSPROF_DEFAULT; mode <= LUAM_SYSPROF_CALLGRAPH; mode++) {
		L = new_vm();
		o = opts((uint8_t)mode, 1000, mode ? &m : NULL);
		assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
		sample_now(); /* host code, outside the VM */
		assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
		assert_int_equal(c.samples, 1);
		/* Host code after a Lua call returned counts as CFUNC, as in Tarantool. */
		assert_int_equal(c.vmst_cfunc, 1);

		/* after lua_yield */
		co = lua_newthread(L);
		lua_pushcfunction(co, yielder);
		assert_int_equal(lua_resume(co, 0), LUA_YIELD);
		sample_now();
		/* after a stack resize */
		assert_true(lua_checkstack(L, 7000));
		sample_now();
		/* after an error thrown from a coroutine */
		assert_int_not_equal(luaL_dostring(L, "local co = coroutine.create(function()\n"
						      "  error('boom') end)\n"
						      "assert(coroutine.resume(co)) "),
				     0);
		sample_now();
		assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
		assert_int_equal(c.samples, 4);
		assert_int_equal(sum(&c), c.samples);
		assert_int_equal(luaM_sysprof_stop(L), PROFILE_SUCCESS);
		lua_close(L);
	}
	free(m.data);
}

/* Another thread runs its own VM while this one is profiled, and
 * process-directed SIGPROFs may land on it (tarantool#11577, #11233): only
 * the profiled thread is sampled, nothing crashes. */
static volatile int other_stop;

static void *other_vm_thread(void *arg)
{
	lua_State *L2 = new_vm();

	(void)arg;
	while (!other_stop)
		run(L2, "local t = {} for i = 1, 2e4 do t[i] = tostring(i) end");
	lua_close(L2);
	return NULL;
}

static void test_other_thread(void **state)
{
	lua_State *L = new_vm();
	struct membuf m = {0};
	struct luam_Sysprof_Options o = opts(LUAM_SYSPROF_CALLGRAPH, 1, &m);
	struct luam_Sysprof_Counters c;
	pthread_t th;

	(void)state;
	other_stop = 0;
	assert_int_equal(pthread_create(&th, NULL, other_vm_thread, NULL), 0);
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
	for (int i = 0; i < 20; i++) {
		kill(getpid(), SIGPROF); /* any thread may take it */
		run(L, "local s = 0 for i = 1, 2e5 do s = s + i % 7 end");
	}
	burn_cpu_ms(50);
	assert_int_equal(luaM_sysprof_stop(L), PROFILE_SUCCESS);
	other_stop = 1;
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
	assert_int_equal(sum(&c), c.samples);
	assert_int_equal(m.data[m.len - 1], 0x80);
	lua_close(L);
	free(m.data);
}

/* Host code that never returns to Lua: the ring of samples waiting for a
 * safe point fills up; stacks are dropped and counted, counters are not. */
static void test_ring_overflow(void **state)
{
	lua_State *L = new_vm();
	struct membuf m = {0};
	struct luam_Sysprof_Options o = opts(LUAM_SYSPROF_CALLGRAPH, 1, &m);
	struct luam_Sysprof_Counters c;

	(void)state;
	assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
	/* The ring holds 256 samples; ticks are 4 ms of CPU, fewer when the
	 * machine is busy: burn until 300 samples (at most 10 s of CPU). */
	for (int i = 0; i < 100; i++) {
		burn_cpu_ms(100);
		assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
		if (c.samples > 300)
			break;
	}
	assert_int_equal(luaM_sysprof_stop(L), PROFILE_SUCCESS);
	assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
	assert_true(c.samples > 256);
	assert_int_equal(c.vmst_cfunc, c.samples); /* all in host code, after a Lua call */
	assert_int_equal(m.data[m.len - 1], 0x80);
	luaopen_misc(L);
	run(L, "local r = misc.sysprof.report()\n"
	       "assert(r.dropped > 0 and r.dropped < r.samples, 'dropped ' .. r.dropped)");
	lua_close(L);
	free(m.data);
}

/* --- fallback: VM state from LuaJIT's public profiler --------------------- */

static void test_fallback_letters(void **state)
{
	struct luam_Sysprof_Counters c;
	struct membuf m = {0};
	lua_State *L;
	int mode;

	(void)state;
	setenv("THREADTOP_SYSPROF_NO_VMSTATE", "1", 1);
	for (mode = LUAM_SYSPROF_DEFAULT; mode <= LUAM_SYSPROF_CALLGRAPH; mode++) {
		struct luam_Sysprof_Options o = opts((uint8_t)mode, 1, mode ? &m : NULL);

		L = new_vm();
		assert_int_equal(luaM_sysprof_start(L, &o), PROFILE_SUCCESS);
		assert_int_equal(luaM_sysprof_fidelity(), 5);
		assert_true(run_until(L,
				      "jit.off() local function f(n) if n < 2 then return n end\n"
				      "return f(n-1) + f(n-2) end f(22)",
				      lfunc_sampled));
		assert_int_equal(luaM_sysprof_stop(L), PROFILE_SUCCESS);
		assert_int_equal(luaM_sysprof_report(&c), PROFILE_SUCCESS);
		assert_true(c.samples > 0);
		assert_int_equal(sum(&c), c.samples);
		assert_true(c.vmst_lfunc > 0);
		lua_close(L);
	}
	assert_int_equal(m.data[m.len - 1], 0x80);
	unsetenv("THREADTOP_SYSPROF_NO_VMSTATE");
	free(m.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base),
		cmocka_unit_test_setup(test_validation, setup_config),
		cmocka_unit_test_setup(test_profile_jiton, setup_config),
		cmocka_unit_test_setup(test_profile_jitoff, setup_config),
		cmocka_unit_test_setup(test_writer_failure, setup_config),
		cmocka_unit_test_setup(test_writer_ends_stream, setup_config),
		cmocka_unit_test_setup(test_custom_backtracer, setup_config),
		cmocka_unit_test_setup(test_close_while_running, setup_config),
		cmocka_unit_test_setup(test_second_vm, setup_config),
		cmocka_unit_test_setup(test_signal_outside_vm, setup_config),
		cmocka_unit_test_setup(test_other_thread, setup_config),
		cmocka_unit_test_setup(test_ring_overflow, setup_config),
		cmocka_unit_test_setup(test_fallback_letters, setup_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
