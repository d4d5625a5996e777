/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The block request a thread sampled in D waits on (issue #30, --io). The
 * block I/O tracer (io.bpf.c) keeps every request in flight in a slot of
 * tt_io_inflight, and per thread, in tt_io_live, the latest request it
 * made: the one a thread blocked in a read or an fsync waits on (behind a
 * page fault's readahead, the last of its requests rather than the first;
 * the oldest still in flight was tried, and one whose completion went
 * unseen pinned itself there for a second). The thread sampler
 * (threads.bpf.c) looks up the entry of a thread in D and, while that
 * request is still in its slot and still the thread's, sends a
 * TT_EV_IO_WAIT with the sample. Requests an io_uring worker makes are not
 * noted: their owner does not wait in D for them.
 *
 * Both objects include this file; the maps are the thread sampler's, which
 * the tracer reuses (bpf_load.c), with one entry each when --io is off. The
 * two programs write and read them without locks: a slot or entry read
 * while another CPU rewrites it fails the checks (address and thread) or
 * names a request for one sample; nothing else depends on it.
 */
#ifndef THREADTOP_IO_WAIT_BPF_H
#define THREADTOP_IO_WAIT_BPF_H

#include "common.bpf.h"
#include "io.shared.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TT_IO_INFLIGHT_SLOTS); /* set by the loader: 1 without --io */
	__type(key, __u32);
	__type(value, struct tt_io_inflight_val);
} tt_io_inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TT_IO_LIVE_MAX); /* set by the loader: 1 without --io */
	__type(key, __u32);
	__type(value, struct tt_io_live);
} tt_io_live SEC(".maps");

/* Slot k, if it still holds request rq of thread tid. */
static __always_inline struct tt_io_inflight_val *io_live_slot(__u32 k, __u64 rq, __u32 tid)
{
	struct tt_io_inflight_val *s;

	k &= TT_IO_INFLIGHT_SLOTS - 1;
	s = bpf_map_lookup_elem(&tt_io_inflight, &k);
	return s && rq && s->rq == rq && s->tid == tid ? s : NULL;
}

#ifndef TT_IO_TRACER
/* Set by the loader with --io. */
const volatile bool tt_io_on = false;

/*
 * The TT_EV_IO_WAIT of thread tid of process pid, sampled in D at time_ns,
 * when a request it made is in flight. A global function: checked by the
 * verifier once, not on every path of the samplers (see stack_id_of).
 */
__noinline int io_wait_send(__u32 pid, __u32 tid, __u64 time_ns)
{
	struct tt_io_inflight_val *s;
	struct tt_io_wait w = {};
	struct tt_io_live *l;
	__u32 key = tid;
	__u64 now;

	if (!tt_io_on)
		return 0;
	l = bpf_map_lookup_elem(&tt_io_live, &key);
	if (!l)
		return 0;
	s = io_live_slot(l->slot, l->rq, tid);
	if (!s)
		return 0;
	/* Its age now, not at the pass's start: on a loaded box a pass takes
	 * milliseconds, and a request made since is still the one waited on. */
	now = bpf_ktime_get_ns();
	if (!s->start_ns || s->start_ns > now)
		return 0;
	w.age_ns = now - s->start_ns;
	w.hdr.type = TT_EV_IO_WAIT;
	w.hdr.version = TT_IO_WAIT_VERSION;
	w.hdr.size = sizeof(w);
	w.hdr.time_ns = time_ns;
	w.pid = pid;
	w.tid = tid;
	w.major = s->dev >> TT_IO_MINOR_BITS;
	w.minor = s->dev & TT_IO_MINOR_MASK;
	w.op = s->op < TT_IO_OP_MAX ? s->op : TT_IO_OTHER;
	w.flags = s->issue_ns ? TT_IO_WAIT_ISSUED : 0;
	w.bytes = s->bytes;
	emit(&w, sizeof(w));
	return 0;
}
#endif

#endif /* THREADTOP_IO_WAIT_BPF_H */
