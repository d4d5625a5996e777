/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small model with stacks for the stack-query, profile and export tests,
 * built from synthetic records: process "app" (pid 100) whose main thread
 * sleeps in clock_nanosleep with a kernel + user stack and sometimes runs
 * with no stack, and a worker thread (tid 101) spinning in a hot function.
 */
#ifndef TT_EXPORT_FIXTURE_H
#define TT_EXPORT_FIXTURE_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threadtop/frame_namer.h"
#include "model.h"
#include "util.h"

#define FX_T0 (1000 * NSEC_PER_SEC)
#define FX_KSTACK 1
#define FX_USTACK_HOT 2
#define FX_USTACK_SLEEP 3
#define FX_HOT_ADDR 0x401000ull
/* A name a hostile binary could give a function: markup, quotes, a terminal escape. */
#define FX_HOSTILE "hot<fn>&\"\x1b[31m"

static inline void fx_stack(struct model *m, uint32_t id, uint32_t pid, uint16_t flags,
			    const uint64_t *ips, uint16_t nr)
{
	size_t size = sizeof(struct tt_stack) + nr * sizeof(uint64_t);
	struct tt_stack *st = calloc(1, size);

	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION, (uint32_t)size, FX_T0};
	st->id = id;
	st->pid = pid;
	st->nr = nr;
	st->flags = flags;
	memcpy(st->ips, ips, nr * sizeof(uint64_t));
	/* Callers as samplers send them: return addresses, one past where the
	 * model names them (frame_lookup_addr), so the model holds ips. */
	for (size_t i = 1; i < nr; i++)
		st->ips[i]++;
	model__ingest(m, &st->hdr);
	free(st);
}

static inline void fx_sample(struct model *m, uint64_t t, uint32_t pid, uint32_t tid,
			     const char *comm, enum tt_state state, int syscall, uint32_t kstack,
			     uint32_t ustack)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = pid,
		.tid = tid,
		.start_time_ns = 1,
		.weight_us = 50000,
		.syscall_nr = syscall,
		.kstack_id = kstack,
		.ustack_id = ustack,
		.state = (uint8_t)state,
	};

	strncpy(s.comm, comm, TT_COMM_LEN - 1);
	model__ingest(m, &s.hdr);
}

/* 30 hot samples (tid 101), 10 sleeping with stacks and 5 running without (tid 100). */
static inline struct model *fx_model(void)
{
	static const uint64_t kips[] = {0xffffffff81000010ull, 0xffffffff81000020ull};
	static const uint64_t hot[] = {FX_HOT_ADDR, 0x402000ull};
	static const uint64_t sleep[] = {0x403000ull, 0x402000ull};
	struct model *m = model__new(NULL);

	model__advance(m, FX_T0);
	fx_stack(m, FX_KSTACK, 0, TT_STACK_KERNEL, kips, 2);
	fx_stack(m, FX_USTACK_HOT, 100, 0, hot, 2);
	fx_stack(m, FX_USTACK_SLEEP, 100, 0, sleep, 2);
	for (int i = 0; i < 30; i++) {
		uint64_t t = FX_T0 + (uint64_t)i * NSEC_PER_SEC / 20;

		fx_sample(m, t, 100, 101, "worker", TT_ST_R, TT_SYSCALL_NONE, 0, FX_USTACK_HOT);
		if (i < 10)
			fx_sample(m, t, 100, 100, "app", TT_ST_S, 230, FX_KSTACK, FX_USTACK_SLEEP);
		else if (i < 15)
			fx_sample(m, t, 100, 100, "app", TT_ST_R, TT_SYSCALL_NONE, 0, 0);
	}
	model__advance(m, FX_T0 + 3 * NSEC_PER_SEC / 2);
	return m;
}

/*
 * The same with what the BPF source adds: 40 on-CPU samples of the worker
 * in the hot function and 8 of the main thread in the kernel, and 0.7 s of
 * off-CPU time of the main thread in 7 switches.
 */
static inline struct model *fx_model_traced(void)
{
	struct model *m = fx_model();
	struct tt_offcpu off = {
		.hdr = {TT_EV_OFFCPU, TT_OFFCPU_VERSION, sizeof(off), FX_T0 + NSEC_PER_SEC},
		.pid = 100,
		.tid = 100,
		.kstack_id = FX_KSTACK,
		.ustack_id = FX_USTACK_SLEEP,
		.total_ns = 700000000,
		.count = 7,
		.kind = TT_OFFCPU_BLOCKED,
		.comm = "app",
	};

	for (int i = 0; i < 48; i++) {
		struct tt_cpu_sample s = {
			.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s),
				FX_T0 + (uint64_t)i * NSEC_PER_SEC / 100},
			.pid = 100,
			.tid = i < 40 ? 101 : 100,
			.kstack_id = i < 40 ? 0 : FX_KSTACK,
			.ustack_id = i < 40 ? FX_USTACK_HOT : 0,
			.weight_us = 10000,
		};

		strcpy(s.comm, i < 40 ? "worker" : "app");
		model__ingest(m, &s.hdr);
	}
	model__ingest(m, &off.hdr);
	model__advance(m, FX_T0 + 3 * NSEC_PER_SEC / 2);
	return m;
}

/* Names the hot address with a hostile name, others "fn_ADDR" / "kfn_ADDR". */
static inline int fx_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel,
			  struct frame_name *ret)
{
	static char buf[64];

	if (addr == FX_HOT_ADDR)
		snprintf(buf, sizeof(buf), "%s", FX_HOSTILE);
	else
		snprintf(buf, sizeof(buf), "%s_%" PRIx64, kernel ? "kfn" : "fn", addr);
	*ret = (struct frame_name){
		.name = buf, .module = kernel ? "[kernel]" : "app", .kernel = kernel};
	return 0;
}

static const struct frame_namer fx_namer = {fx_name, NULL};

#endif /* TT_EXPORT_FIXTURE_H */
