// SPDX-License-Identifier: GPL-2.0-only
/*
 * LuaJIT stacks as model stacks (see model.h, model__luajit_stacks): each
 * distinct (host stack, Lua frames) pair of a LuaJIT thread is stitched
 * once (lj_stitch.h) into a user stack of the model's stack dictionary,
 * where Lua functions are frame tags (lj_model.h). The call tree, the
 * filters and every exporter then read them like any other stack.
 * Stitching names the host frames, so it happens at query time, lazily,
 * with the namer of the run (a replay's recorded names).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dict_budget.h"
#include "model_internal.h"
#include "lj_stitch.h"
#include "u64map.h"
#include "util.h"

#define STITCH_MAX (TT_MAX_STACK_DEPTH + TT_LJ_MAX_FRAMES)

struct named {
	char *name, *module;
};

/* The host stack's frames root first, named, with their stitch flags. */
static size_t host_frames(struct model *m, const struct tt_stack *st, struct named *nm,
			  struct lj_stitch_frame *out)
{
	const char *vm_module = NULL;
	size_t n = st ? st->nr : 0;

	for (size_t i = 0; i < n; i++) {
		struct frame_name fn;

		model__frame_name(m, st->pid, st->ips[n - 1 - i], false, &fn);
		nm[i].name = xstrdup(fn.name);
		nm[i].module = fn.module ? xstrdup(fn.module) : NULL;
		if (!vm_module && lj_stitch_is_entry(nm[i].name))
			vm_module = nm[i].module;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (struct lj_stitch_frame){
			nm[i].name, lj_stitch_host_flags(nm[i].name, nm[i].module, vm_module)};
	return n;
}

/*
 * The frame of a guest frame: its Lua tag, except for a C function the
 * library could not name (its id is its address): that address, for the
 * namer to name like any C frame.
 */
static uint64_t guest_ip(const struct model *m, uint64_t frame)
{
	uint64_t ip = lj_frame_ip(frame);
	uint64_t addr = lj_model__frame_addr(m->lj, ip);

	return addr ? addr : ip;
}

/* The model stack id of row r's stitched stack, made on first use; 0 on failure. */
static uint32_t stitched_stack(struct model *m, const struct lj_stack_row *r)
{
	static struct named nm[TT_MAX_STACK_DEPTH];
	struct lj_stitch_frame host[TT_MAX_STACK_DEPTH], guest[TT_LJ_MAX_FRAMES];
	const struct tt_stack *hs = model__stack(m, r->ustack_id);
	uint32_t out[STITCH_MAX];
	struct tt_stack *st, *old;
	size_t nh, ng = r->nr < TT_LJ_MAX_FRAMES ? r->nr : TT_LJ_MAX_FRAMES, n;
	uint32_t cached = *r->stitched_id;

	if (cached)
		return cached;
	/* Out of ids (events.h): the row goes without a stack, not into the stream's ids. */
	if (m->nr_lj_stacks > TT_LJ_STACK_ID_LAST - TT_LJ_STACK_ID_BASE) {
		m->drops_interval[TT_DROP_DEDUP_FULL]++;
		m->drops_session[TT_DROP_DEDUP_FULL]++;
		return 0;
	}
	if (hs && hs->nr > TT_MAX_STACK_DEPTH)
		hs = NULL;
	nh = host_frames(m, hs, nm, host);
	for (size_t i = 0; i < ng; i++) {
		uint64_t ip = lj_frame_ip(r->frames[ng - 1 - i]);

		guest[i] = (struct lj_stitch_frame){lj_model__frame_name(m->lj, ip),
						    lj_model__frame_cfunc(m->lj, ip) ? LJ_SF_CFUNC
										     : 0};
	}
	n = lj_stitch(host, nh, guest, ng, out, TT_MAX_STACK_DEPTH);
	if (!dict_budget__take(m->budget, r->pid, sizeof(*st) + n * sizeof(st->ips[0]))) {
		for (size_t i = 0; i < nh; i++) {
			free(nm[i].name);
			free(nm[i].module);
		}
		return 0; /* counted by the budget: the row goes without a stack */
	}
	st = xcalloc(1, sizeof(*st) + n * sizeof(st->ips[0]));
	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION,
					   (uint32_t)(sizeof(*st) + n * 8), 0};
	st->id = TT_LJ_STACK_ID_BASE + m->nr_lj_stacks++;
	st->pid = r->pid;
	st->nr = (uint16_t)n;
	/* Root first out, leaf first in a stack. */
	for (size_t i = 0; i < n; i++) {
		uint32_t ref = out[n - 1 - i];

		if (ref & LJ_STITCH_GUEST)
			st->ips[i] = guest_ip(m, r->frames[ng - 1 - (ref & ~LJ_STITCH_GUEST)]);
		else /* lj_stitch gives host refs < nh only, so hs is there: said for scan-build */
			st->ips[i] = hs && ref < hs->nr ? hs->ips[hs->nr - 1 - ref] : 0;
	}
	for (size_t i = 0; i < nh; i++) {
		free(nm[i].name);
		free(nm[i].module);
	}
	old = u64map__put(m->stacks, st->id, st);
	if (old) {
		free(old);
		m->stacks_gone++;
	}
	*r->stitched_id = st->id;
	return st->id;
}

int model__luajit_stacks(struct model *m, enum model_window window, struct model_stack_row **ret)
{
	struct lj_stack_row *rows = NULL;
	struct model_stack_row *out;
	int n;

	*ret = NULL;
	if (window >= WIN_MAX)
		return -EINVAL;
	n = lj_model__stacks(m->lj, window, &rows);
	if (n <= 0) {
		free(rows);
		return n;
	}
	out = xcalloc((size_t)n, sizeof(*out));
	for (int i = 0; i < n; i++) {
		const struct thread *t = u64map__get(m->threads, rows[i].tid);

		out[i] = (struct model_stack_row){
			.pid = rows[i].pid,
			.tid = rows[i].tid,
			.comm = t && t->pid == rows[i].pid ? t->comm : NULL,
			.pcomm = t && t->pid == rows[i].pid ? model_process_comm(m, t) : NULL,
			.ustack_id = stitched_stack(m, &rows[i]),
			.value = rows[i].samples,
			.count = rows[i].samples,
			.ns = rows[i].ns,
		};
	}
	free(rows);
	*ret = out;
	return n;
}

uint64_t model__period_samples(uint64_t ns, uint64_t period_ns)
{
	uint64_t n;

	if (!period_ns)
		return ns;
	n = ns / period_ns + (ns % period_ns * 2 >= period_ns);
	return n || !ns ? n : 1;
}

/*
 * A LuaJIT thread's sysprof samples weigh its CPU time as the library
 * measured it, every other thread's weigh the CPU clock's periods. When a
 * period fires late the CPU clock skips what it missed (in a guest the host
 * left idle, 10% of 99 Hz arrived on 32 busy vCPUs), while the thread's own
 * CPU time counts it: LuaJIT then held 0.616 of the samples where it had
 * 0.501 of the CPU time. So where the CPU clock sampled a LuaJIT thread in
 * the window, the thread's stacks share out the CPU clock's samples of it
 * (lj_ns in proportion to theirs) and processes compare on one clock.
 */
static void lj_on_cpu_clock(struct model_stack_row *lj, int nlj, const struct model_stack_row *cpu,
			    int ncpu, const struct u64map *lj_tids, uint64_t period_ns)
{
	struct u64map *clock_ns = u64map__new(), *lj_ns = u64map__new();

	for (int i = 0; i < ncpu; i++)
		if (u64map__get(lj_tids, cpu[i].tid))
			u64map__put(
				clock_ns, cpu[i].tid,
				(void *)(uintptr_t)((uintptr_t)u64map__get(clock_ns, cpu[i].tid) +
						    cpu[i].value * period_ns));
	for (int i = 0; i < nlj; i++)
		u64map__put(
			lj_ns, lj[i].tid,
			(void *)(uintptr_t)((uintptr_t)u64map__get(lj_ns, lj[i].tid) + lj[i].ns));
	for (int i = 0; i < nlj; i++) {
		uint64_t want = (uintptr_t)u64map__get(clock_ns, lj[i].tid);
		uint64_t had = (uintptr_t)u64map__get(lj_ns, lj[i].tid);

		/* Not sampled by the CPU clock in the window: its own weights stand. */
		if (!want || !had)
			continue;
		lj[i].ns = (uint64_t)((double)lj[i].ns * ((double)want / (double)had) + 0.5);
		lj[i].value = lj[i].count = model__period_samples(lj[i].ns, period_ns);
	}
	u64map__free(clock_ns);
	u64map__free(lj_ns);
}

int model__oncpu_stacks(struct model *m, enum model_window window, uint64_t period_ns,
			bool cpu_clock, struct u64map *lj_tids, struct model_stack_row **ret)
{
	struct model_stack_row *lj = NULL, *cpu = NULL;
	struct lj_thread_row *threads = NULL;
	struct u64map *own = lj_tids ? NULL : u64map__new();
	int nlj, ncpu = 0, nt, n = 0;

	*ret = NULL;
	nlj = model__luajit_stacks(m, window, &lj);
	if (nlj < 0)
		goto out;
	nt = lj_model__threads(m->lj, window, 0, &threads);
	for (int i = 0; i < nt; i++)
		u64map__put(lj_tids ? lj_tids : own, threads[i].tid, (void *)1);
	free(threads);
	for (int i = 0; i < nlj; i++) {
		struct model_stack_row *r = &lj[i];

		r->taken = r->value;
		if (!r->ns) /* a recording of a library that said no interval: one period each */
			r->ns = r->value * period_ns;
		r->value = r->count = model__period_samples(r->ns, period_ns);
	}
	if (cpu_clock)
		ncpu = model__oncpu(m, window, &cpu);
	if (ncpu < 0) {
		nlj = ncpu;
		goto out;
	}
	if (ncpu && period_ns)
		lj_on_cpu_clock(lj, nlj, cpu, ncpu, lj_tids ? lj_tids : own, period_ns);
	*ret = xcalloc((size_t)nlj + (size_t)ncpu + 1, sizeof(**ret));
	if (nlj)
		memcpy(*ret, lj, (size_t)nlj * sizeof(*lj));
	n = nlj;
	for (int i = 0; i < ncpu; i++) {
		if (u64map__get(lj_tids ? lj_tids : own, cpu[i].tid))
			continue; /* a LuaJIT thread: its stacks with Lua frames are there */
		(*ret)[n] = cpu[i];
		(*ret)[n].taken = cpu[i].value;
		(*ret)[n++].ns = cpu[i].value * period_ns;
	}
	nlj = n;
out:
	free(lj);
	free(cpu);
	u64map__free(own);
	return nlj;
}
