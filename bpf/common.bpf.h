/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What every threadtop BPF object shares: the ring buffer all records travel
 * through, drop counters, the process filter, the stack dedup set and the
 * configuration in rodata. Each object defines these maps; the loader makes
 * the later objects reuse the first object's maps (bpf_map__reuse_fd), so
 * there is one ring buffer, one dedup set and one id space.
 */
#ifndef THREADTOP_COMMON_BPF_H
#define THREADTOP_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "threadtop/events.h"
#include "common.shared.h"

#define PF_KTHREAD 0x00200000
#define PAGE 4096
#ifndef EEXIST
#define EEXIST 17
#endif
#ifndef ENOMEM
#define ENOMEM 12
#endif
#ifndef E2BIG
#define E2BIG 7
#endif

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Configuration, set by the loader before load. */
const volatile __u32 tt_self_tgid = 0;		/* threadtop itself: never sampled */
const volatile bool tt_filter_tgids = false;	/* only processes in tt_tgids (-p) */
const volatile __u32 tt_weight_us = 0;		/* period of this object's samples */
const volatile __u64 tt_wakeup_bytes = 1 << 20; /* wake the reader past this backlog */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* set by the loader */
} tt_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TT_DROP_MAX);
	__type(key, __u32);
	__type(value, __u64);
} tt_drops SEC(".maps");

/* -p: the processes (tgids) to sample. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024); /* set by the loader */
	__type(key, __u32);
	__type(value, __u8);
} tt_tgids SEC(".maps");

/* Stack dedup: hash of the frames -> stack id already sent. Bounded. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536); /* set by the loader */
	__type(key, __u64);
	__type(value, __u32);
} tt_stack_ids SEC(".maps");

/* Counters user space reads too: the slots TT_COUNTER_* (common.shared.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TT_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} tt_counters SEC(".maps");

/* A stack record under construction: ips is the record's tail (leaf first). */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct tt_stack_buf {
	struct tt_stack rec;
	__u64 ips[TT_MAX_STACK_DEPTH];
};
#pragma clang diagnostic pop

static __always_inline void count_drop(__u32 reason)
{
	__u64 *c = bpf_map_lookup_elem(&tt_drops, &reason);

	if (c)
		__sync_fetch_and_add(c, 1);
}

static __always_inline bool want_tgid(__u32 tgid)
{
	if (tgid == tt_self_tgid)
		return false;
	if (tt_filter_tgids && !bpf_map_lookup_elem(&tt_tgids, &tgid))
		return false;
	return true;
}

/*
 * Records of this object's programs the ring refused. tt_drops counts them
 * per CPU for user space; this tells a program that a record it depends on
 * (the stack a sample names) did not go out.
 */
__u32 tt_ring_refused = 0;

/* Copies a record into the ring buffer; wakes the reader only past a backlog. */
static __always_inline long emit(void *data, __u64 size)
{
	__u64 flags = BPF_RB_NO_WAKEUP;
	long err;

	if (bpf_ringbuf_query(&tt_events, BPF_RB_AVAIL_DATA) > tt_wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	err = bpf_ringbuf_output(&tt_events, data, size, flags);
	if (err) {
		count_drop(TT_DROP_RINGBUF_FULL);
		__sync_fetch_and_add(&tt_ring_refused, 1);
	}
	return err;
}

/* The user registers DWARF CFI may need to unwind a stack copy (TT_UREG_*). */
static __always_inline void copy_user_regs(struct pt_regs *regs, __u64 *out)
{
	out[TT_UREG_IP] = BPF_CORE_READ(regs, ip);
	out[TT_UREG_SP] = BPF_CORE_READ(regs, sp);
	out[TT_UREG_BP] = BPF_CORE_READ(regs, bp);
	out[TT_UREG_BX] = BPF_CORE_READ(regs, bx);
	out[TT_UREG_R12] = BPF_CORE_READ(regs, r12);
	out[TT_UREG_R13] = BPF_CORE_READ(regs, r13);
	out[TT_UREG_R14] = BPF_CORE_READ(regs, r14);
	out[TT_UREG_R15] = BPF_CORE_READ(regs, r15);
}

/*
 * Fills a TT_EV_STACK_COPY record but for its time, pid and tid: task's user
 * registers, and up to want bytes of its user stack in data, read page by
 * page from sp up so that a stack whose top is nearer than want still gives
 * what it has. data must hold TT_STACK_COPY_MAX + PAGE bytes: the verifier
 * sees every page-sized read stay inside it. sleepable (a constant, folded
 * by clang) reads with bpf_copy_from_user_task, which may fault pages in and
 * needs a sleepable program, else with bpf_probe_read_user. Returns the
 * stack bytes copied, at most TT_STACK_COPY_MAX.
 */
static __always_inline __u64 fill_stack_copy(struct tt_stack_copy *copy, __u8 *data,
					     struct task_struct *task, struct pt_regs *regs,
					     __u64 want, long fp_bytes, const bool sleepable)
{
	__u64 sp = BPF_CORE_READ(regs, sp), got = 0, chunk, off;
	long err;

	if (want > TT_STACK_COPY_MAX)
		want = TT_STACK_COPY_MAX;
	copy_user_regs(regs, copy->regs);
	for (int i = 0; i < TT_STACK_COPY_MAX / PAGE + 2; i++) {
		if (got >= want)
			break;
		chunk = PAGE - ((sp + got) & (PAGE - 1));
		if (chunk > want - got)
			chunk = want - got;
		off = got & 0xffff;
		if (chunk > PAGE || off > TT_STACK_COPY_MAX)
			break;
		if (sleepable)
			err = bpf_copy_from_user_task(data + off, chunk, (const void *)(sp + got),
						      task, 0);
		else
			err = bpf_probe_read_user(data + off, chunk, (const void *)(sp + got));
		if (err)
			break;
		got += chunk;
	}
	got &= 0xffff;
	if (got > TT_STACK_COPY_MAX)
		got = TT_STACK_COPY_MAX;
	copy->hdr.type = TT_EV_STACK_COPY;
	copy->hdr.version = TT_STACK_COPY_VERSION;
	copy->hdr.size = sizeof(*copy) + got;
	copy->len = got;
	copy->fp_frames = fp_bytes > 0 ? (__u32)((__u64)fp_bytes >> 3) : 0;
	return got;
}

/* The log2 bucket of v, the last of nr taking what is larger. */
static __always_inline __u32 log2_bucket(__u64 v, __u32 nr)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r < nr ? r : nr - 1;
}

static __always_inline __u64 mix64(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/*
 * Turns the bytes bpf_get_*stack wrote into buf->ips into a stack id: the
 * hash covers every frame, the depth, the kind and (user stacks) the tgid.
 * A stack seen for the first time is sent once as a TT_EV_STACK record.
 * When the dedup set is full the stack is still sent, under a fresh id, and
 * the miss is counted: costlier, never wrong. Past TT_KSTACK_ID_LAST no id
 * is handed out (counted as dedup_full). Returns 0 for "no stack".
 */
static __always_inline __u32 stack_id(struct tt_stack_buf *buf, long bytes, __u32 tgid, bool kernel)
{
	__u32 nr, last_id = TT_COUNTER_LAST_ID, inserted_slot = TT_COUNTER_INSERTED, *found, id;
	__u64 h, n, size, *next, *inserted;
	bool in_set = true;
	long err;

	if (bytes <= 0)
		return 0;
	nr = bytes / 8;
	if (nr > TT_MAX_STACK_DEPTH)
		nr = TT_MAX_STACK_DEPTH;
	h = mix64(((__u64)nr << 1 | kernel) ^ (kernel ? 0 : (__u64)tgid << 32));
	for (__u32 i = 0; i < TT_MAX_STACK_DEPTH; i++) {
		if (i >= nr)
			break;
		h = mix64(h ^ buf->ips[i]) + i;
	}
	if (!h)
		h = 1;
	found = bpf_map_lookup_elem(&tt_stack_ids, &h);
	if (found)
		return *found;
	next = bpf_map_lookup_elem(&tt_counters, &last_id);
	if (!next)
		return 0;
	n = __sync_fetch_and_add(next, 1) + 1;
	if (n > TT_KSTACK_ID_LAST) { /* out of ids (events.h): not into the next space */
		count_drop(TT_DROP_DEDUP_FULL);
		return 0;
	}
	id = (__u32)n;
	err = bpf_map_update_elem(&tt_stack_ids, &h, &id, BPF_NOEXIST);
	if (err == -EEXIST) {
		found = bpf_map_lookup_elem(&tt_stack_ids, &h);
		return found ? *found : 0;
	}
	if (err) {
		count_drop(err == -E2BIG || err == -ENOMEM ? TT_DROP_DEDUP_FULL : TT_DROP_MAP_FULL);
		in_set = false;
	} else {
		inserted = bpf_map_lookup_elem(&tt_counters, &inserted_slot);
		if (inserted)
			__sync_fetch_and_add(inserted, 1);
	}
	size = sizeof(buf->rec) + (__u64)nr * 8;
	buf->rec.hdr.type = TT_EV_STACK;
	buf->rec.hdr.version = TT_STACK_VERSION;
	buf->rec.hdr.size = size;
	buf->rec.hdr.time_ns = bpf_ktime_get_ns();
	buf->rec.id = id;
	buf->rec.pid = kernel ? 0 : tgid;
	buf->rec.nr = nr;
	buf->rec.flags = kernel ? TT_STACK_KERNEL : 0;
	buf->rec.reserved = 0;
	if (size > sizeof(*buf) || emit(buf, size)) {
		/* Not sent: forget it so that the next sighting sends it. */
		if (in_set)
			bpf_map_delete_elem(&tt_stack_ids, &h);
		return 0;
	}
	return id;
}

#endif /* THREADTOP_COMMON_BPF_H */
