/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model of the call-tree tests, from synthetic records: thread 11
 * computing (R) 6 times in main > work > compute, thread 12 waiting (D) 3
 * times in main > work > io with the kernel stack read > wait, and, when
 * asked, thread 13 asleep once without stacks. Process pid 10, one second.
 */
#ifndef TT_CALLTREE_FIXTURE_H
#define TT_CALLTREE_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)

/* User frames main > work > compute | io; kernel frames read > wait. */
#define U_MAIN 0x1000
#define U_WORK 0x1100
#define U_COMPUTE 0x1200
#define U_IO 0x1300
#define K_READ 0xffffffff81000100ull
#define K_WAIT 0xffffffff81000200ull

static inline void ct_stack(struct model *m, uint32_t id, bool kernel, const uint64_t *ips, int nr)
{
	size_t size = sizeof(struct tt_stack) + (size_t)nr * sizeof(uint64_t);
	struct tt_stack *st = calloc(1, size);

	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION, (uint32_t)size, T0};
	st->id = id;
	st->pid = 10;
	st->nr = (uint16_t)nr;
	st->flags = kernel ? TT_STACK_KERNEL : 0;
	memcpy(st->ips, ips, (size_t)nr * sizeof(uint64_t));
	/* Callers as samplers send them: return addresses, one past where the
	 * model names them (frame_lookup_addr), so the model holds ips. */
	for (size_t i = 1; i < (size_t)nr; i++)
		st->ips[i]++;
	model__ingest(m, &st->hdr);
	free(st);
}

static inline void ct_sample(struct model *m, uint32_t tid, enum tt_state state, uint32_t k,
			     uint32_t u)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), T0 + SEC / 2},
		.pid = 10,
		.tid = tid,
		.start_time_ns = 1,
		.weight_us = 50000,
		.syscall_nr = TT_SYSCALL_NONE,
		.state = (uint8_t)state,
		.kstack_id = k,
		.ustack_id = u,
		.comm = "app",
	};

	model__ingest(m, &s.hdr);
}

static inline void ct_fill(struct model *m, bool with_sleeper)
{
	static const uint64_t compute[] = {U_COMPUTE, U_WORK, U_MAIN}; /* leaf first */
	static const uint64_t io[] = {U_IO, U_WORK, U_MAIN};
	static const uint64_t kio[] = {K_WAIT, K_READ};

	model__advance(m, T0);
	ct_stack(m, 1, false, compute, 3);
	ct_stack(m, 2, false, io, 3);
	ct_stack(m, 3, true, kio, 2);
	for (int i = 0; i < 6; i++)
		ct_sample(m, 11, TT_ST_R, 0, 1);
	for (int i = 0; i < 3; i++)
		ct_sample(m, 12, TT_ST_D, 3, 2);
	if (with_sleeper)
		ct_sample(m, 13, TT_ST_S, 0, 0);
	model__advance(m, T0 + SEC);
}

#endif /* TT_CALLTREE_FIXTURE_H */
