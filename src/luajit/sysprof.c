/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysprof core: the luaM_sysprof_* C API, the session state machine, the
 * SIGPROF handler and its per-thread CPU-time timer.
 *
 * The handler runs on the profiled thread only, reads the VM state from
 * global_State when a runtime self-check proved the layout (else the state
 * comes later from LuaJIT's public profiler letter), counts it, and in the
 * streaming modes unwinds the host stack with libunwind from the signal
 * context into a preallocated ring. LuaJIT's own profiler (luaJIT_profile_*)
 * is started underneath only to get a callback at the next safe point, where
 * sysprof_stream.c attaches the guest stack and writes the samples. Nothing
 * in the handler allocates, locks, prints or calls the writer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <lauxlib.h>
#include <luajit.h>

#include "sysprof_internal.h"

#define SP_ANCHOR_KEY "threadtop.sysprof.anchor"

struct sp_profiler sp;

static char sp_errbuf[200];

void sp_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sp_errbuf, sizeof(sp_errbuf), fmt, ap);
	va_end(ap);
}

static pid_t sp_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Thread CPU time; clock_gettime is async-signal-safe. */
uint64_t sp_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int sp_disabled(void)
{
	const char *e = getenv("THREADTOP_SYSPROF_DISABLE");

	return e && *e && strcmp(e, "0") != 0;
}

/* --- the signal handler -------------------------------------------------- */

static void sp_count(uint8_t vmst, uint64_t n)
{
	uint64_t *c = (uint64_t *)&sp.counters;

	sp.seq++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c[vmst] += n;
	sp.counters.samples += n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sp.seq++;
}

static void *sp_frame_writer(int frame_no, void *addr)
{
	struct sp_slot *s = sp.cur;

	(void)frame_no;
	if (!s || !addr || s->nframes >= SP_HOST_MAX)
		return NULL;
	s->frames[s->nframes++] = (uintptr_t)addr;
	if (sp.mode == LUAM_SYSPROF_LEAF)
		return NULL;
	return addr;
}

static void sp_unwind(struct sp_slot *s, void *ucv)
{
	int max = sp.mode == LUAM_SYSPROF_LEAF ? 1 : SP_HOST_MAX;
	unw_cursor_t cur;
	unw_word_t ip;
	int rc = 0;

	if (sp.backtracer) {
		sp.cur = s;
		sp.backtracer(sp_frame_writer);
		sp.cur = NULL;
		return;
	}
	if (unw_init_local2(&cur, (unw_context_t *)ucv, UNW_INIT_SIGNAL_FRAME) < 0) {
		ucontext_t *uc = ucv;

		s->frames[s->nframes++] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
		return;
	}
	do {
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		s->frames[s->nframes++] = (uintptr_t)ip;
		/* No CFI for JIT code: never step from an unknown IP (libunwind
		 * would fall back to an rbp chain, and LuaJIT uses rbp). */
		if (!sp_ip_known((uintptr_t)ip)) {
			s->need_outer = 1;
			break;
		}
		if (s->nframes >= max)
			return;
		rc = unw_step(&cur);
	} while (rc > 0);
	/* The walk failed (not the end of the stack): no usable CFI, e.g. in
	 * the VM called from a trace; the outer part comes from the callback. */
	if (rc < 0) {
		s->need_outer = 1;
	} else if (s->nframes) {
		uintptr_t last = s->frames[s->nframes - 1];

		if (last >= sp.vmobj.lo && last < sp.vmobj.hi &&
		    !(last >= sp.entry && last < sp.entry + 64))
			s->need_outer = 1;
	}
}

static int sp_slot_is_self(const struct sp_slot *s)
{
	int i;

	for (i = 0; i < s->nframes; i++)
		if (sp_ip_self(s->frames[i]))
			return 1;
	return 0;
}

static void sp_handler(int sig, siginfo_t *si, void *ucv)
{
	int saved_errno = errno;
	uint8_t vmst = SP_UNKNOWN;
	int32_t traceno = 0;
	uintptr_t cfunc = 0;
	int lj_alive = 0, ffid = -1, counted = 0;
	uint64_t t0, since;

	(void)si;
	if (sp.state != SP_PROFILE)
		goto out;
	if (sp_gettid() != sp.tid) {
		sp.foreign++;
		goto out;
	}
	t0 = sp_cpu_ns();
	since = sp.last_signal_ns && t0 > sp.last_signal_ns ? t0 - sp.last_signal_ns : 0;
	sp.last_signal_ns = t0;
	if (sp.chain_lj) {
		struct sigaction now;

		/* LuaJIT restores our "parked" action (no SIGVTALRM in the mask)
		 * when its profiler stops (lua_close, jit.profile.stop). */
		if (sigaction(SIGPROF, NULL, &now) == 0 &&
		    sigismember(&now.sa_mask, SIGVTALRM) == 1)
			lj_alive = 1;
	}
	if (sp.layout_ok)
		vmst = sp_vm_classify(sp.g, ucv, &traceno, &cfunc, &ffid);
	if (sp.ring) {
		uint32_t head = sp.head;

		if (head - __atomic_load_n(&sp.tail, __ATOMIC_ACQUIRE) >= SP_RING_SLOTS) {
			sp.dropped++;
		} else {
			struct sp_slot *s = &sp.ring[head % SP_RING_SLOTS];

			s->vmst = vmst;
			s->traceno = traceno;
			s->cfunc = cfunc;
			s->ffid = (int16_t)ffid;
			s->cpu_ns = since;
			s->nframes = 0;
			s->need_outer = 0;
			sp_unwind(s, ucv);
			/* The profiler's own work (its safe-point callback, its trace
			 * handler) is not the program's: neither counted nor shown. */
			if (sp_slot_is_self(s))
				counted = -1;
			else
				__atomic_store_n(&sp.head, head + 1, __ATOMIC_RELEASE);
		}
	}
	if (counted < 0)
		sp.self_samples++;
	else if (sp.layout_ok)
		sp_count(vmst, 1);
	if (lj_alive && sp.lj_handler)
		sp.lj_handler(sig);
	__atomic_fetch_add(&sp.cost_ns, sp_cpu_ns() - t0, __ATOMIC_RELAXED);
out:
	errno = saved_errno;
}

/* --- LuaJIT's callback at the next safe point ---------------------------- */

static uint8_t sp_letter_state(int letter)
{
	switch (letter) {
	case 'N':
		return SP_TRACE;
	case 'C':
		return SP_CFUNC;
	case 'G':
		return SP_GC;
	case 'J':
		return SP_RECORD;
	default:
		return SP_LFUNC;
	}
}

static void sp_lj_callback(void *data, lua_State *L, int samples, int vmstate)
{
	uint64_t t0;

	(void)data;
	if (sp.state != SP_PROFILE)
		return;
	t0 = sp_cpu_ns();
	if (!sp.layout_ok) {
		uint8_t st = sp_letter_state(vmstate);
		uint32_t i, head = __atomic_load_n(&sp.head, __ATOMIC_ACQUIRE);

		if (samples > 0)
			sp_count(st, (uint64_t)samples);
		for (i = sp.tail; i != head; i++)
			if (sp.ring[i % SP_RING_SLOTS].vmst == SP_UNKNOWN)
				sp.ring[i % SP_RING_SLOTS].vmst = st;
	}
	if (sp.ring)
		sp_drain(L);
	__atomic_fetch_add(&sp.cost_ns, sp_cpu_ns() - t0, __ATOMIC_RELAXED);
}

/* --- lua_close() while running ------------------------------------------- */

static int sp_vm_gc(lua_State *L)
{
	if (sp.state == SP_PROFILE && sp_profiling_vm(L))
		sp_stop_internal(L, 1);
	return 0;
}

/* One finalizer per VM, kept in the registry: lua_close() runs it. */
static void sp_anchor(lua_State *L)
{
	lua_getfield(L, LUA_REGISTRYINDEX, SP_ANCHOR_KEY);
	if (!lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return;
	}
	lua_pop(L, 1);
	lua_newuserdata(L, 1);
	lua_newtable(L);
	lua_pushcfunction(L, sp_vm_gc);
	lua_setfield(L, -2, "__gc");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, SP_ANCHOR_KEY);
}

static const void *sp_registry;

int sp_profiling_vm(lua_State *L)
{
	return L && lua_topointer(L, LUA_REGISTRYINDEX) == sp_registry;
}

/* --- C API --------------------------------------------------------------- */

static int sp_is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == sp_handler;
}

static void sp_make_action(struct sigaction *sa, int active)
{
	memset(sa, 0, sizeof(*sa));
	sa->sa_sigaction = sp_handler;
	sa->sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa->sa_mask);
	sigaddset(&sa->sa_mask, SIGPROF);
	if (active)
		sigaddset(&sa->sa_mask, SIGVTALRM);
}

LUAMISC_API int luaM_sysprof_set_writer(luam_Sysprof_writer writer)
{
	sp_live_yield(); /* threadtop's live session gives way to the user's */
	if (sp.state != SP_IDLE) {
		sp_set_error("profiler is running");
		return PROFILE_ERRUSE;
	}
	if (!writer) {
		sp_set_error("writer must not be NULL");
		return PROFILE_ERRUSE;
	}
	sp.writer = writer;
	sp_errbuf[0] = '\0';
	return PROFILE_SUCCESS;
}

LUAMISC_API int luaM_sysprof_set_on_stop(luam_Sysprof_on_stop on_stop)
{
	sp_live_yield(); /* threadtop's live session gives way to the user's */
	if (sp.state != SP_IDLE) {
		sp_set_error("profiler is running");
		return PROFILE_ERRUSE;
	}
	if (!on_stop) {
		sp_set_error("on_stop callback must not be NULL");
		return PROFILE_ERRUSE;
	}
	sp.on_stop = on_stop;
	sp_errbuf[0] = '\0';
	return PROFILE_SUCCESS;
}

LUAMISC_API int luaM_sysprof_set_backtracer(luam_Sysprof_backtracer backtracer)
{
	sp_live_yield(); /* threadtop's live session gives way to the user's */
	if (sp.state != SP_IDLE) {
		sp_set_error("profiler is running");
		return PROFILE_ERRUSE;
	}
	sp.backtracer = backtracer;
	sp_errbuf[0] = '\0';
	return PROFILE_SUCCESS;
}

static int sp_validate(lua_State *L, const struct luam_Sysprof_Options *opt)
{
	if (sp_disabled()) {
		sp_set_error("profiler is disabled");
		return PROFILE_ERRUSE;
	}
	if (sp.state != SP_IDLE) {
		sp_set_error("profiler is running already");
		return PROFILE_ERRRUN;
	}
	if (!L || !opt) {
		sp_set_error("lua_State and options must not be NULL");
		return PROFILE_ERRUSE;
	}
	if (opt->mode > LUAM_SYSPROF_CALLGRAPH) {
		sp_set_error("profiler mode must be 'D', 'L' or 'C'");
		return PROFILE_ERRUSE;
	}
	if (opt->interval == 0) {
		sp_set_error("profiler interval must be 1 ms or more");
		return PROFILE_ERRUSE;
	}
	if (opt->mode != LUAM_SYSPROF_DEFAULT) {
		if (!opt->buf || opt->len < 16) {
			sp_set_error(
				"profiler buffer is not set or under 16 bytes (opt.buf, opt.len)");
			return PROFILE_ERRUSE;
		}
		if (!sp.writer || !sp.on_stop) {
			sp_set_error("profiler writer or on_stop is not configured");
			return PROFILE_ERRUSE;
		}
	}
	return PROFILE_SUCCESS;
}

/* Runs one libunwind walk in normal context so that its lazy set-up
 * (mempools, caches) never happens in the handler. */
static void sp_prewarm_unwind(void)
{
	unw_context_t uc;
	unw_cursor_t cur;
	int n = 0;

	if (unw_getcontext(&uc) < 0 || unw_init_local(&cur, &uc) < 0)
		return;
	while (n++ < 64 && unw_step(&cur) > 0)
		;
}

static int sp_arm_timer(uint64_t interval_ms)
{
	struct sigevent sev;
	struct itimerspec its;
	uint64_t sec = interval_ms / 1000;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = sp.tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &sp.timer) < 0)
		return -errno;
	sp.have_timer = 1;
	if (sec > 86400 * 365) /* "endless" intervals such as -1ULL */
		sec = 86400 * 365;
	memset(&its, 0, sizeof(its));
	its.it_interval.tv_sec = (time_t)sec;
	its.it_interval.tv_nsec = (long)(interval_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (timer_settime(sp.timer, 0, &its, NULL) < 0)
		return -errno;
	return 0;
}

static void sp_release(void)
{
	if (sp.have_timer) {
		timer_delete(sp.timer);
		sp.have_timer = 0;
	}
	free(sp.ring);
	sp.ring = NULL;
	sp_stream_free();
}

/* A failed start releases the caller's stream resources (not in DEFAULT
 * mode, which has none). */
static int sp_fail_start(const struct luam_Sysprof_Options *opt, int rc)
{
	if (opt && opt->mode != LUAM_SYSPROF_DEFAULT && sp.on_stop)
		sp.on_stop(opt->ctx, opt->buf);
	return rc;
}

static int sp_start(lua_State *L, const struct luam_Sysprof_Options *opt)
{
	struct sigaction parked, active, now;
	uint64_t t0 = sp_cpu_ns();
	int rc, err;

	sp_live_yield();
	rc = sp_validate(L, opt);
	if (rc != PROFILE_SUCCESS)
		return sp_fail_start(opt, rc);

	if (sigaction(SIGPROF, NULL, &now) == 0 && !sp_is_ours(&now) &&
	    (now.sa_flags & SA_SIGINFO ||
	     (now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN))) {
		sp_set_error(
			"SIGPROF is in use by another profiler (jit.p or an ITIMER_PROF user)");
		return sp_fail_start(opt, PROFILE_ERRUSE);
	}

	sp.g = sp_layout_check(L, &sp.cfunc_ok);
	sp.layout_ok = sp.g != NULL;
	sp.fidelity = !sp.layout_ok ? 5 : sp_vm_map(sp.g) == 0 ? 10 : 8;
	sp.mode = opt->mode;
	sp.opt = *opt;
	sp.L = L;
	sp_registry = lua_topointer(L, LUA_REGISTRYINDEX);
	sp.tid = sp_gettid();
	memset(&sp.counters, 0, sizeof(sp.counters));
	sp.cost_ns = 0;
	sp.dropped = 0;
	sp.foreign = 0;
	sp.self_samples = 0;
	sp.head = sp.tail = 0;
	sp.chain_lj = sp.mode != LUAM_SYSPROF_DEFAULT || !sp.layout_ok;

	if (sp.mode != LUAM_SYSPROF_DEFAULT) {
		sp_objs_scan();
		sp.ring = calloc(SP_RING_SLOTS, sizeof(*sp.ring));
		if (!sp.ring) {
			sp_set_error("cannot allocate the sample ring: %s", strerror(ENOMEM));
			return sp_fail_start(opt, PROFILE_ERRMEM);
		}
		rc = sp_stream_begin(L);
		if (rc != PROFILE_SUCCESS) {
			err = errno;
			sp_release();
			sp_fail_start(opt, rc);
			errno = err;
			return rc;
		}
		if (!sp.backtracer)
			sp_prewarm_unwind();
	}
	sp_anchor(L);

	sp_make_action(&parked, 0);
	sp_make_action(&active, 1);
	if (sigaction(SIGPROF, &parked, &sp.orig) < 0)
		goto fail_sys;
	if (sp_is_ours(&sp.orig)) { /* left parked by a previous session */
		memset(&sp.orig, 0, sizeof(sp.orig));
		sp.orig.sa_handler = SIG_DFL;
	}
	if (sp.chain_lj) {
		char mode[32];

		snprintf(mode, sizeof(mode), "fi%llu",
			 (unsigned long long)(opt->interval > 1000000 ? 1000000 : opt->interval));
		luaJIT_profile_start(L, mode, sp_lj_callback, NULL);
		if (sigaction(SIGPROF, NULL, &now) < 0 || sp_is_ours(&now) ||
		    (now.sa_flags & SA_SIGINFO)) {
			sigaction(SIGPROF, &sp.orig, NULL);
			sp_release();
			sp_set_error("LuaJIT's profiler is in use by another VM in this process");
			return sp_fail_start(opt, PROFILE_ERRUSE);
		}
		sp.lj_handler = now.sa_handler;
		/* Our own thread CPU-time timer replaces LuaJIT's ITIMER_PROF. */
		setitimer(ITIMER_PROF, &(struct itimerval){{0, 0}, {0, 0}}, NULL);
	}
	__atomic_fetch_add(&sp.cost_ns, sp_cpu_ns() - t0, __ATOMIC_RELAXED);
	sp.last_signal_ns = 0;
	sp.state = SP_PROFILE;
	if (sigaction(SIGPROF, &active, NULL) < 0)
		goto fail_lj;
	rc = sp_arm_timer(opt->interval);
	if (rc < 0) {
		errno = -rc;
		goto fail_lj;
	}
	sp_errbuf[0] = '\0';
	return PROFILE_SUCCESS;

fail_lj:
	sp.state = SP_IDLE;
	if (sp.chain_lj)
		luaJIT_profile_stop(L);
fail_sys:
	err = errno;
	sigaction(SIGPROF, &sp.orig, NULL);
	sp_release();
	sp_set_error("cannot set up the SIGPROF timer: %s", strerror(err));
	sp_fail_start(opt, PROFILE_ERRIO);
	errno = err;
	return PROFILE_ERRIO;
}

LUAMISC_API int luaM_sysprof_start(lua_State *L, const struct luam_Sysprof_Options *opt)
{
	int rc;

	sp.changing++;
	rc = sp_start(L, opt);
	sp.changing--;
	return rc;
}

static int sp_stop(lua_State *L, int closing)
{
	int rc = PROFILE_SUCCESS, err = 0;
	uint64_t t0 = sp_cpu_ns();

	sp.state = SP_IDLE;
	if (sp.have_timer) {
		timer_delete(sp.timer);
		sp.have_timer = 0;
	}
	if (sp.chain_lj && !closing)
		luaJIT_profile_stop(L);
	if (!closing)
		sp_stream_detach(L);
	/* A pending timer signal for this thread was delivered on return from
	 * timer_delete(); from another thread leave our idle handler parked. */
	if (sp_gettid() == sp.tid) {
		sigaction(SIGPROF, &sp.orig, NULL);
	} else {
		struct sigaction parked;

		sp_make_action(&parked, 0);
		sigaction(SIGPROF, &parked, NULL);
	}
	if (sp.ring) {
		sp_drain(NULL);
		if (sp_stream_end() < 0) {
			rc = PROFILE_ERRIO;
			err = sp.wb.err;
			sp_set_error("writing the profile failed: %s", strerror(err));
		}
	}
	if (sp.mode != LUAM_SYSPROF_DEFAULT && sp.on_stop &&
	    sp.on_stop(sp.opt.ctx, sp.opt.buf) != 0) {
		if (rc == PROFILE_SUCCESS) {
			err = errno;
			sp_set_error("on_stop callback failed: %s", strerror(err));
		}
		rc = PROFILE_ERRIO;
	}
	free(sp.ring);
	sp.ring = NULL;
	sp_stream_free();
	sp.L = NULL;
	sp.g = NULL;
	sp_registry = NULL;
	__atomic_fetch_add(&sp.cost_ns, sp_cpu_ns() - t0, __ATOMIC_RELAXED);
	if (rc == PROFILE_SUCCESS)
		sp_errbuf[0] = '\0';
	else
		errno = err;
	return rc;
}

int sp_stop_internal(lua_State *L, int closing)
{
	int rc;

	sp.changing++;
	rc = sp_stop(L, closing);
	sp.changing--;
	return rc;
}

LUAMISC_API int luaM_sysprof_stop(lua_State *L)
{
	if (sp_disabled() && sp.state == SP_IDLE) {
		sp_set_error("profiler is disabled");
		return PROFILE_ERRUSE;
	}
	if (sp.state == SP_IDLE || sp_live_running()) {
		sp_set_error("profiler is not running");
		return PROFILE_ERRRUN;
	}
	if (!sp_profiling_vm(L)) {
		sp_set_error("profiler is running in another VM");
		return PROFILE_ERRUSE;
	}
	return sp_stop_internal(L, 0);
}

LUAMISC_API int luaM_sysprof_report(struct luam_Sysprof_Counters *counters)
{
	uint32_t s1, s2;

	if (!counters) {
		sp_set_error("counters must not be NULL");
		return PROFILE_ERRUSE;
	}
	if (sp_disabled()) {
		sp_set_error("profiler is disabled");
		return PROFILE_ERRUSE;
	}
	do {
		s1 = sp.seq;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		memcpy(counters, &sp.counters, sizeof(*counters));
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		s2 = sp.seq;
	} while (s1 != s2 || (s1 & 1));
	sp_errbuf[0] = '\0';
	return PROFILE_SUCCESS;
}

LUAMISC_API const char *luaM_sysprof_strerror(void)
{
	return sp_errbuf;
}

LUAMISC_API int luaM_sysprof_fidelity(void)
{
	return sp.fidelity;
}

/*
 * What the session's states cannot tell apart, and why: the README's
 * "How it works" has the measurements (tests/bench/sysprof_vs.sh).
 */
LUAMISC_API const char *luaM_sysprof_fidelity_limits(void)
{
	switch (sp.fidelity) {
	case 10:
		return "INTERP is the interpreter's call, return and function-header handlers; "
		       "Tarantool's VM also counts the state stores of every transition, which "
		       "stock LuaJIT does not make (a JIT-off fast-function loop: INTERP 12.5 "
		       "points below Tarantool's, FFUNC 10.5 above)";
	case 8:
		return "INTERP, LFUNC and FFUNC read as LFUNC: the interpreter's dispatch map "
		       "did not check out on this LuaJIT build";
	case 5:
		return "five states from LuaJIT's profiler letter (TRACE, LFUNC, CFUNC, GC, "
		       "RECORD): INTERP and FFUNC read as LFUNC, OPT and ASM as RECORD, EXIT is "
		       "not told; the global_State layout check failed on this LuaJIT build";
	default:
		return "";
	}
}
