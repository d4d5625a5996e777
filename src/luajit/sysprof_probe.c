/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * threadtop's live view of a LuaJIT process: the probe point a BPF uprobe
 * attaches to, and the "live" sysprof session that feeds it.
 *
 * threadtop attaches a uprobe to threadtop_luajit_probe() with the counter
 * threadtop_luajit_attached as its reference counter, so the kernel raises
 * that counter in every process mapping this library, now or later, while
 * threadtop runs. Nothing happens here while it is zero: the stream code's
 * calls return after one load, and a watcher timer (a per-thread CPU-time
 * timer, every 100 ms of the VM thread's CPU, whose handler reads the
 * counter) costs a signal per 100 ms of CPU.
 *
 * When the counter is set and no sysprof session runs, a CALLGRAPH session
 * whose stream is discarded starts (at once when the VM registers, else at
 * the next Lua instruction through a one-shot count hook set by the watcher:
 * LuaJIT's own CLI sets hooks from its SIGINT handler the same way). Its
 * complete samples and function names go through the probe. A user's own
 * start() stops the live session first; a user's L or C session feeds the
 * probe as well. When the counter drops back to zero the live session stops.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include <lauxlib.h>

#include "sysprof_internal.h"
#include "threadtop/events.h"
#include "threadtop/luajit_probe.h"

#define LIVE_WATCH_NS 100000000L /* watcher period, thread CPU time */
#define LIVE_BACKOFF_TICKS 50	 /* after a failed start, wait this many watcher ticks */
#define LIVE_ANCHOR_KEY "threadtop.sysprof.live"

/*
 * In a PROGBITS section (not .bss) so that it lives in a file-backed page:
 * the kernel's uprobe reference counter needs that. Exported for the loader.
 */
__attribute__((used, section(".probes"),
	       visibility("default"))) volatile unsigned short threadtop_luajit_attached;

/* The uprobe target. Its argument is all the BPF program reads. */
__attribute__((noinline, used, visibility("default"))) void
threadtop_luajit_probe(const struct tt_lj_probe *p);
__attribute__((noinline, used, visibility("default"))) void
threadtop_luajit_probe(const struct tt_lj_probe *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static __u64 probe_guest[TT_LJ_MAX_FRAMES];
static __u64 probe_host[TT_LJ_PROBE_HOST_MAX];

int sp_probe_attached(void)
{
	return threadtop_luajit_attached != 0;
}

/*
 * What a sample stands for, in us: the thread's CPU time since the signal
 * before, as the timer achieved it (it fires at the kernel's ticks, so a
 * 1 ms interval gives a sample every 4 ms at HZ=250), else the interval
 * asked for (the first signal); never 0.
 */
static uint32_t probe_weight_us(const struct sp_slot *s)
{
	uint64_t us = s->cpu_ns ? (s->cpu_ns + 500) / 1000 : sp.opt.interval * 1000;

	return us > 4000000000u ? 4000000000u : us ? (uint32_t)us : 1;
}

void sp_probe_sample(const struct sp_slot *s, uint8_t vmst, const struct sp_gframe *top, int ntop,
		     const struct sp_gframe *g, int ng, const uintptr_t *outer, int nouter)
{
	struct tt_lj_probe p = {.kind = TT_LJ_PROBE_SAMPLE, .version = TT_LJ_PROBE_VERSION};
	int i, n = 0, h = 0;

	if (!threadtop_luajit_attached)
		return;
	for (i = 0; i < ntop && n < TT_LJ_MAX_FRAMES; i++)
		probe_guest[n++] = top[i].id;
	for (i = 0; i < ng && n < TT_LJ_MAX_FRAMES; i++)
		probe_guest[n++] = g[i].id;
	for (i = 0; i < s->nframes && h < TT_LJ_PROBE_HOST_MAX; i++)
		if (s->frames[i])
			probe_host[h++] = s->frames[i];
	for (i = 0; s->need_outer && i < nouter && h < TT_LJ_PROBE_HOST_MAX; i++)
		probe_host[h++] = outer[i];
	p.vmstate = vmst < SP_NVMST ? vmst : SP_INTERP;
	p.fidelity = (uint8_t)sp.fidelity;
	p.nguest = (uint16_t)n;
	p.traceno = s->traceno;
	p.nhost = (uint32_t)h;
	p.interval_us = probe_weight_us(s);
	p.guest = (uintptr_t)probe_guest;
	p.host = (uintptr_t)probe_host;
	threadtop_luajit_probe(&p);
}

void sp_probe_func(uint64_t id, const char *src, int line, const char *name, unsigned flags)
{
	struct tt_lj_probe p = {.kind = TT_LJ_PROBE_FUNC, .version = TT_LJ_PROBE_VERSION};
	static char buf[600];
	int n;

	if (!threadtop_luajit_attached)
		return;
	if (src && name && *name)
		n = snprintf(buf, sizeof(buf), "%s %s:%d", name, src, line);
	else if (src)
		n = snprintf(buf, sizeof(buf), "%s:%d", src, line);
	else
		n = snprintf(buf, sizeof(buf), "%s", name ? name : "?");
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (src && !strncmp(src, "TRACE [", 7))
		flags |= TT_LJ_FUNC_TRACE;
	p.id = id;
	p.name = (uintptr_t)buf;
	p.name_len = (uint32_t)n;
	p.flags = flags;
	threadtop_luajit_probe(&p);
}

/* --- the live session ------------------------------------------------------ */

static lua_State *live_L; /* the registered VM (its main state) */
static pid_t live_tid;
static int live_on; /* the running session is ours */
static timer_t live_timer;
static int live_have_timer;
static volatile sig_atomic_t hook_pending;
static volatile sig_atomic_t hook_armed; /* live_hook ran once since the watcher set it */
static int backoff;
static lua_Hook saved_hook;
static int saved_mask, saved_count;
static luam_Sysprof_writer saved_writer;
static luam_Sysprof_on_stop saved_on_stop;
static luam_Sysprof_backtracer saved_backtracer;
static uint8_t live_buf[1 << 16];

static size_t discard_writer(const void **data, size_t len, void *ctx)
{
	(void)data;
	(void)ctx;
	return len;
}

static int noop_on_stop(void *ctx, uint8_t *buf)
{
	(void)ctx;
	(void)buf;
	return 0;
}

static uint64_t live_interval_ms(void)
{
	const char *e = getenv("THREADTOP_LUAJIT_INTERVAL");
	long v = e ? strtol(e, NULL, 10) : 0;

	return v >= 1 && v <= 1000 ? (uint64_t)v : 10;
}

static void live_start(lua_State *L)
{
	struct luam_Sysprof_Options opt = {.mode = LUAM_SYSPROF_CALLGRAPH,
					   .interval = live_interval_ms(),
					   .buf = live_buf,
					   .len = sizeof(live_buf)};

	if (live_on || sp.state != SP_IDLE)
		return;
	saved_writer = sp.writer;
	saved_on_stop = sp.on_stop;
	saved_backtracer = sp.backtracer;
	sp.writer = discard_writer;
	sp.on_stop = noop_on_stop;
	sp.backtracer = NULL;
	if (luaM_sysprof_start(L, &opt) == PROFILE_SUCCESS) {
		live_on = 1;
		return;
	}
	sp.writer = saved_writer;
	sp.on_stop = saved_on_stop;
	sp.backtracer = saved_backtracer;
	backoff = LIVE_BACKOFF_TICKS;
}

/* closing: from lua_close(), where LuaJIT stops its own profiler itself. */
static void live_stop(int closing)
{
	if (!live_on)
		return;
	live_on = 0;
	if (sp.state == SP_PROFILE && live_L)
		sp_stop_internal(live_L, closing);
	sp.writer = saved_writer;
	sp.on_stop = saved_on_stop;
	sp.backtracer = saved_backtracer;
}

void sp_live_yield(void)
{
	live_stop(0);
}

int sp_live_running(void)
{
	return live_on && sp.state == SP_PROFILE;
}

/* Runs at the next Lua instruction after the watcher asked for it. */
static void live_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	/*
	 * Act on the second call, not the first: LuaJIT only marks a trace
	 * being recorded as aborted when it calls a hook, and processes that
	 * at the next instruction. Starting or stopping its profiler flushes
	 * every trace, which must not happen with a recording half done.
	 */
	if (!hook_armed) {
		hook_armed = 1;
		return;
	}
	hook_armed = 0;
	lua_sethook(L, saved_hook, saved_mask, saved_count);
	hook_pending = 0;
	if (sp.changing)
		return; /* inside a start or stop: the next watcher tick asks again */
	if (threadtop_luajit_attached && !live_on)
		live_start(L);
	else if (!threadtop_luajit_attached && live_on)
		live_stop(0);
}

static void live_tick(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	int want = threadtop_luajit_attached != 0;

	(void)sig;
	(void)si;
	(void)uc;
	if (!live_L || hook_pending || sp.changing || want == live_on)
		goto out;
	if (want && (sp.state != SP_IDLE || (backoff && backoff--)))
		goto out;
	if ((pid_t)syscall(SYS_gettid) != live_tid)
		goto out;
	saved_hook = lua_gethook(live_L);
	saved_mask = lua_gethookmask(live_L);
	saved_count = lua_gethookcount(live_L);
	hook_pending = 1;
	hook_armed = 0;
	lua_sethook(live_L, live_hook, LUA_MASKCOUNT | LUA_MASKCALL | LUA_MASKRET, 1);
out:
	errno = saved_errno;
}

static void live_forget(int closing)
{
	if (live_have_timer) {
		timer_delete(live_timer);
		live_have_timer = 0;
	}
	live_stop(closing);
	live_L = NULL;
}

static int live_gc(lua_State *L)
{
	(void)L;
	live_forget(1);
	return 0;
}

/* The watcher: SIGRTMAX-2 (LuaJIT and sysprof own SIGPROF) on this thread. */
static void live_watch(void)
{
	struct sigaction sa, old;
	struct sigevent sev;
	struct itimerspec its = {{0, LIVE_WATCH_NS}, {0, LIVE_WATCH_NS}};
	int signo = SIGRTMAX - 2;

	if (sigaction(signo, NULL, &old) < 0 || old.sa_handler != SIG_DFL)
		return; /* the program uses that signal: no watcher */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = live_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(signo, &sa, NULL) < 0)
		return;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = signo;
	sev._sigev_un._tid = live_tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &live_timer) < 0)
		return;
	live_have_timer = 1;
	if (timer_settime(live_timer, 0, &its, NULL) < 0) {
		timer_delete(live_timer);
		live_have_timer = 0;
	}
}

void sp_live_register(lua_State *L)
{
	const char *off = getenv("THREADTOP_LUAJIT_LIVE");

	if (live_L || (off && !strcmp(off, "0")))
		return;
	/* One VM per process: the first that opens the library. */
	lua_newuserdata(L, 1);
	lua_newtable(L);
	lua_pushcfunction(L, live_gc);
	lua_setfield(L, -2, "__gc");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, LIVE_ANCHOR_KEY);
	live_L = L;
	live_tid = (pid_t)syscall(SYS_gettid);
	if (threadtop_luajit_attached)
		live_start(L);
	live_watch();
}
