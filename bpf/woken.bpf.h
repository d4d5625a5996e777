/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Which threads may have changed since the last pass, for the one-pass
 * thread sampler (threads.bpf.c, which includes this after its maps), and
 * for the per-task iterator (marks, below).
 *
 * A thread asleep at its last full sample (S, D, T, t, P, an idle kernel
 * thread) changes only after try_to_wake_up woke it, and that fires
 * sched_wakeup (sched_wakeup_new for a new thread). Two tp_btf programs put
 * each woken tid in their CPU's ring. A pass reads every CPU's ring and
 * rechecks only the blocks of tt_known (TT_REPEAT_BLOCK threads each) that
 * hold a woken thread, that changed at the pass before (their record then
 * differs from that pass's), or that hold a thread that can change without
 * a wakeup (R and Q: it runs or gets a CPU; Z: its parent reaps it; one
 * waiting for a stack copy). Every other block is sent as "the same as at
 * the pass before" in one TT_EV_THREAD_SAME record for the pass: a thread
 * that sleeps costs a pass nothing, where a reread of tt_known cost two
 * cache misses per thread (1.7 ms a pass for 10,000 threads here).
 *
 * The hooks cost a store and an atomic add per wakeup, and filter nothing:
 * a filter (this tid is in the ring already) races with the pass reading
 * the ring unless both sides fence, so the pass dedups instead.
 */
#ifndef THREADTOP_WOKEN_BPF_H
#define THREADTOP_WOKEN_BPF_H

struct wake_ring {
	__u64 head; /* tids put in since the start: written by the hooks */
	__u64 tail; /* tids the pass has read: written by the pass */
	__u32 tids[TT_WAKE_RING];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wake_ring);
} tt_woken SEC(".maps");

/* tid -> its index in tt_known, for a woken tid (kept while tt_wakeups_live). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TT_THREAD_MAPS_MIN); /* tt_known_max, set by the loader */
	__type(key, __u32);
	__type(value, __u32);
} tt_known_at SEC(".maps");

/* Per block of tt_known: the last pass (tt_pass_no) that rechecks it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TT_THREAD_MAPS_MIN / TT_REPEAT_BLOCK); /* set by the loader */
	__type(key, __u32);
	__type(value, __u32);
} tt_blocks SEC(".maps");

/* The pass's dedup of woken tids: tid | pass << 32, by tid. A clash costs a look-up. */
#define WOKEN_SEEN 16384

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WOKEN_SEEN);
	__type(key, __u32);
	__type(value, __u64);
} tt_woken_seen SEC(".maps");

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct same_buf {
	struct tt_thread_same rec; /* ranges follow */
	struct tt_block_range ranges[TT_SAME_RANGES];
};
#pragma clang diagnostic pop

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct same_buf);
} tt_same SEC(".maps");

/* Possible CPUs (set by the loader): the rings the pass reads. */
const volatile __u32 tt_nr_cpus = 1;
/* Set by user space once both hooks are attached; it asks for a walk then too. */
bool tt_wakeups_live = false;
/* Passes since the start (tt_blocks' unit), and the time of the last one's records. */
__u32 tt_pass_no = 0;
__u64 tt_prev_pass_ns = 0;
/* For the log: passes that rechecked only some blocks, blocks sent as the same, overruns. */
__u64 tt_woken_passes = 0;
__u64 tt_blocks_same = 0;
__u64 tt_wake_overruns = 0;

/*
 * For the per-task iterator (sample_tasks), which walks every thread anyway:
 * instead of the rings, a mark per slot of tt_last (tid & tt_last_mask), set
 * by the hooks and taken by the iterator with an atomic exchange before it
 * reads the thread. A thread whose slot has no mark and that slept at its
 * last check is repeated without reading the task further (its state, its
 * context switches and start time: two or three cache lines a thread). Two
 * tids of one slot share its mark: a wakeup of one costs the other a check.
 */
const volatile bool tt_wake_marks = false; /* set by the loader for sample_tasks */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TT_LAST_SLOTS); /* tt_last's slots, set by the loader */
	__type(key, __u32);
	__type(value, __u32);
} tt_woke SEC(".maps");

static __always_inline void push_woken(struct task_struct *p)
{
	struct wake_ring *r;
	__u32 zero = 0, slot, *mark;
	__u64 h;

	if (tt_wake_marks) {
		slot = p->pid & tt_last_mask;
		mark = bpf_map_lookup_elem(&tt_woke, &slot);
		/* Read first: a thread woken again does not dirty the line again. */
		if (mark && !*mark)
			*mark = 1;
		return;
	}
	r = bpf_map_lookup_elem(&tt_woken, &zero);
	if (!r)
		return;
	h = r->head;
	r->tids[h & (TT_WAKE_RING - 1)] = p->pid;
	/* A full barrier: who reads the new head sees the tid, and the wakeup before it. */
	__sync_fetch_and_add(&r->head, 1);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(note_wakeup, struct task_struct *p)
{
	push_woken(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(note_wakeup_new, struct task_struct *p)
{
	push_woken(p);
	return 0;
}

/* The block of tt_known's index idx is rechecked at pass (and until then). */
static __always_inline void recheck_at(__u32 idx, __u32 pass)
{
	__u32 b = idx / TT_REPEAT_BLOCK;
	__u32 *until = bpf_map_lookup_elem(&tt_blocks, &b);

	if (until && (__s32)(*until - pass) < 0)
		*until = pass;
}

/*
 * Sends the pass's "same" blocks. Refused by the ring, each of them is
 * rechecked at the next pass: its record of this pass never reached user
 * space, so the next pass's is not "the same" as it.
 */
__noinline int flush_same(void)
{
	__u32 zero = 0, nr;
	struct same_buf *s = bpf_map_lookup_elem(&tt_same, &zero);
	struct bpf_iter_num it;
	int *v;

	if (!s)
		return 0;
	nr = s->rec.nr;
	if (!nr || nr > TT_SAME_RANGES)
		return 0;
	s->rec.hdr.type = TT_EV_THREAD_SAME;
	s->rec.hdr.version = 1;
	s->rec.hdr.size = sizeof(s->rec) + nr * sizeof(s->ranges[0]);
	s->rec.hdr.time_ns = tt_pass_ns;
	s->rec.prev_ns = tt_prev_pass_ns;
	s->rec.nr = nr;
	if (emit(s, sizeof(s->rec) + nr * sizeof(s->ranges[0]))) {
		/* Rare (the ring is full): every block, rather than a walk of the ranges. */
		bpf_iter_num_new(&it, 0, (int)(tt_nr_known / TT_REPEAT_BLOCK + 1));
		while ((v = bpf_iter_num_next(&it)))
			recheck_at((__u32)*v * TT_REPEAT_BLOCK, tt_pass_no + 1);
		bpf_iter_num_destroy(&it);
	}
	s->rec.nr = 0;
	return 0;
}

/* Block b is the same as at the pass before: into the pass's record. */
static __always_inline void add_same(__u32 b)
{
	__u32 zero = 0, n;
	struct same_buf *s = bpf_map_lookup_elem(&tt_same, &zero);

	if (!s)
		return;
	tt_blocks_same++;
	n = s->rec.nr;
	if (n - 1 < TT_SAME_RANGES && s->ranges[n - 1].first + s->ranges[n - 1].nr == b) {
		s->ranges[n - 1].nr++;
		return;
	}
	if (n >= TT_SAME_RANGES) {
		flush_same();
		n = 0;
	}
	s->ranges[n].first = b;
	s->ranges[n].nr = 1;
	s->rec.nr = n + 1;
}

#endif /* THREADTOP_WOKEN_BPF_H */
