// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ring-buffer demultiplexer of the BPF source (source_bpf_impl.h): splits
 * each ring-buffer record into the event records it carries and sends them
 * to the sink, after what user space adds to them: a thread new to the model
 * is announced first (bpf_thread_info.c), a sample followed by its stack copy
 * gets the stack unwound from it (bpf_unwind.c) and its fd target's string
 * (bpf_targets.c), an agentless LuaJIT sample the stack of the CPU sample it
 * follows and its frames' names (bpf_ljvm.c), and a record of unchanged
 * threads is checked against what the model has, or sent as the full samples
 * it stands for when recording.
 */
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_ljvm.h"
#include "event_codec.h"
#include "source_bpf_impl.h"
#include "threads.shared.h"
#include "u64map.h"
#include "util.h"

#include "threads.skel.h"

/* A CPU sample, as it goes to the model: the agentless LuaJIT unwinder sees it first. */
static void cpu_sample(struct bpf_source *bs, const struct tt_cpu_sample *s)
{
	if (bs->ljvm)
		bpf_ljvm__on_cpu(bs->ljvm, s);
	sink_emit(&bs->base.sink, &s->hdr);
}

static void unwind_sample(struct bpf_source *bs, const struct tt_cpu_sample *in,
			  const struct tt_stack_copy *copy)
{
	struct tt_cpu_sample s = *in;
	uint32_t id = 0;

	s.flags &= (__u16)~TT_CPU_STACK_COPY;
	if (copy->pid == s.pid && copy->tid == s.tid)
		id = bpf_unwind__copy(bs, copy);
	if (id)
		s.ustack_id = id;
	cpu_sample(bs, &s);
}

/* The stack copy of a thread off CPU (thread sampler): unwound now, used by its sample. */
static void iter_copy(struct bpf_source *bs, const struct tt_stack_copy *copy)
{
	uint32_t id = bpf_unwind__copy(bs, copy);

	if (bs->pending)
		u64map__put(bs->pending, copy->tid, (void *)(uintptr_t)(id ? id : 1));
}

/* A thread sample, with the DWARF stack unwound from its copy, or the last one when resent. */
static void thread_sample(struct bpf_source *bs, const struct tt_thread_sample *in)
{
	struct seen_thread *seen = u64map__get(bs->seen, in->tid);
	struct tt_thread_sample s;
	uint32_t id = 0;
	void *p;

	if (!seen || !bs->pending) {
		sink_emit(&bs->base.sink, &in->hdr);
		return;
	}
	p = u64map__remove(bs->pending, in->tid);
	if (p) {
		id = (uint32_t)(uintptr_t)p == 1 ? 0 : (uint32_t)(uintptr_t)p;
		seen->fp_ustack_id = in->ustack_id;
		seen->dwarf_ustack_id = id;
	} else if ((in->flags & TT_SAMPLE_RESENT) && seen->dwarf_ustack_id &&
		   seen->fp_ustack_id == in->ustack_id) {
		id = seen->dwarf_ustack_id;
	}
	if (!id) {
		sink_emit(&bs->base.sink, &in->hdr);
		return;
	}
	s = *in;
	s.ustack_id = id;
	sink_emit(&bs->base.sink, &s.hdr);
}

/*
 * The kernel's list of threads unchanged since their last sample. On every
 * SWEEP_EVERY-th pass (and when recording) each tid is checked: it keeps its
 * thread_info entry alive, and a tid whose last sample never arrived (the
 * ring buffer was full) is dropped from the list, counted, and its kernel
 * slot cleared so that the next pass samples it in full. The other passes
 * cost nothing per thread here. When recording, each repeat is sent as the full sample it
 * stands for: a recording replays from any point without earlier samples. That sample
 * goes out as the kernel's resent ones do, so it gets its DWARF stack again (--unwind).
 */
static bool on_repeat(struct bpf_source *bs, const struct tt_thread_repeat *r)
{
	union { /* a repeat record with room for its tids (a flexible array member) */
		struct tt_thread_repeat rec;
		unsigned char room[sizeof(struct tt_thread_repeat) + TT_REPEAT_MAX * sizeof(__u32)];
	} out;
	int slots = bpf_map__fd(bs->threads->maps.tt_last);
	uint32_t n = 0;

	if (r->nr > TT_REPEAT_MAX || r->hdr.size != sizeof(*r) + r->nr * sizeof(__u32)) {
		bs->user_drops[TT_DROP_READ_ERROR]++;
		return false;
	}
	/* Most passes: straight to the model, which skips tids it has no sample of. */
	if (!bs->opts.full_samples && bs->generation % SWEEP_EVERY) {
		sink_emit(&bs->base.sink, &r->hdr);
		return true;
	}
	for (uint32_t i = 0; i < r->nr; i++) {
		struct seen_thread *seen = u64map__get(bs->seen, r->tids[i]);

		if (!seen || seen->last.tid != r->tids[i]) {
			__u32 slot = r->tids[i] & (bs->last_slots - 1);
			struct tt_last_seen none = {0};

			bpf_map_update_elem(slots, &slot, &none, BPF_ANY);
			bs->threads->bss->tt_walk_now =
				1; /* a pass without the walk skips tt_last */
			bs->user_drops[TT_DROP_RINGBUF_FULL]++;
			continue;
		}
		/* Its target's string stays while it is repeated (retired, it is resampled). */
		if (!bpf_targets__touch(bs, &seen->last, r->hdr.time_ns)) {
			__u32 slot = r->tids[i] & (bs->last_slots - 1);
			struct tt_last_seen none = {0};

			seen->last.syscall_target_id = 0;
			bpf_map_update_elem(slots, &slot, &none, BPF_ANY);
			bs->threads->bss->tt_walk_now = 1;
		}
		seen->generation = bs->generation;
		if (bs->opts.full_samples) {
			struct tt_thread_sample s = seen->last;

			s.hdr.time_ns = r->hdr.time_ns;
			s.flags |= TT_SAMPLE_RESENT;
			thread_sample(bs, &s);
		} else {
			out.rec.tids[n++] = r->tids[i];
		}
	}
	if (!n)
		return true;
	out.rec = *r;
	out.rec.nr = n;
	out.rec.hdr.size = (uint32_t)(sizeof(out.rec) + n * sizeof(__u32));
	sink_emit(&bs->base.sink, &out.rec.hdr);
	return true;
}

/* A block's last repeat record from the kernel (hdr.time_ns = that pass's time). */
struct kept_block {
	union { /* a repeat record with room for a block's tids (a flexible array member) */
		struct tt_thread_repeat rec;
		unsigned char
			room[sizeof(struct tt_thread_repeat) + TT_REPEAT_BLOCK * sizeof(__u32)];
	};
};

/* Blocks kept at most: every block of the largest thread maps. */
#define KEPT_MAX (TT_THREAD_MAPS_MAX / TT_REPEAT_BLOCK)

static struct kept_block *kept(struct bpf_source *bs, uint32_t block)
{
	if (block >= KEPT_MAX)
		return NULL;
	if (block >= bs->nr_kept) {
		uint32_t n = bs->nr_kept ? bs->nr_kept : 64;

		while (n <= block)
			n *= 2;
		if (n > KEPT_MAX)
			n = KEPT_MAX;
		bs->kept = xrealloc(bs->kept, (size_t)n * sizeof(*bs->kept));
		memset(bs->kept + bs->nr_kept, 0, (size_t)(n - bs->nr_kept) * sizeof(*bs->kept));
		bs->nr_kept = n;
	}
	return &bs->kept[block];
}

/* A repeat record of the one-pass sampler: kept for the passes that say "the same". */
static void keep_repeat(struct bpf_source *bs, const struct tt_thread_repeat *r)
{
	struct kept_block *k;

	if (!bs->one_pass || !(k = kept(bs, r->block)))
		return;
	if (r->nr > TT_REPEAT_BLOCK) { /* not the one-pass sampler's: never "the same" */
		k->rec.hdr.time_ns = 0;
		return;
	}
	memcpy(&k->rec, r, sizeof(*r) + r->nr * sizeof(__u32));
}

/*
 * Blocks whose record the kernel did not send, as it would list what it
 * listed at the pass before (struct tt_thread_same): their kept records go
 * on at this pass's time. A block with no record at that pass has none now.
 */
static void on_same(struct bpf_source *bs, const struct tt_thread_same *s)
{
	if (s->nr > TT_SAME_RANGES || s->hdr.size != sizeof(*s) + s->nr * sizeof(s->ranges[0])) {
		bs->user_drops[TT_DROP_READ_ERROR]++;
		return;
	}
	for (uint32_t i = 0; i < s->nr; i++) {
		uint32_t first = s->ranges[i].first, nr = s->ranges[i].nr;

		if (first >= KEPT_MAX || nr > KEPT_MAX - first) {
			bs->user_drops[TT_DROP_READ_ERROR]++;
			return;
		}
		for (uint32_t b = first; b < first + nr; b++) {
			struct kept_block *k = kept(bs, b);
			bool had = k->rec.hdr.time_ns == s->prev_ns && s->prev_ns;

			k->rec.hdr.time_ns = s->hdr.time_ns;
			if (!had)
				k->rec.nr = 0;
			else if (k->rec.nr)
				on_repeat(bs, &k->rec);
		}
	}
}

void bpf_ring__free(struct bpf_source *bs)
{
	bpf_targets__free(bs);
	free(bs->kept);
	bs->kept = NULL;
	bs->nr_kept = 0;
}

/* The stack copy that follows ev in the same ring-buffer record (size bytes from ev), or NULL. */
static const struct tt_stack_copy *copy_after(const struct tt_event_header *ev, size_t size)
{
	const struct tt_event_header *next = (const void *)((const char *)ev + ev->size);
	size_t rest = size - ev->size;

	if (rest < sizeof(*next) || next->type != TT_EV_STACK_COPY ||
	    tt_event_validate(next, rest) < 0)
		return NULL;
	return (const struct tt_stack_copy *)next;
}

int bpf_ring__on_record(void *ctx, void *data, size_t size)
{
	struct bpf_source *bs = ctx;
	const struct tt_event_header *ev = data;

	/* One ring-buffer record may carry several event records back to back. */
	while (size) {
		if (size < sizeof(*ev) || ev->size < sizeof(*ev) || ev->size > size) {
			bs->user_drops[TT_DROP_READ_ERROR]++;
			return 0;
		}
		if (ev->type == TT_EV_THREAD_SAMPLE &&
		    ev->size == sizeof(struct tt_thread_sample)) {
			struct tt_thread_sample s = *(const struct tt_thread_sample *)ev;

			/* The kernel's target id becomes a string's before anything keeps it. */
			bpf_targets__translate(bs, &s);
			bpf_thread_info__note(bs, &s);
			thread_sample(bs, &s);
			size -= ev->size;
			ev = (const struct tt_event_header *)((const char *)ev + ev->size);
			continue;
		}
		if (ev->type == TT_EV_CPU_SAMPLE && ev->size == sizeof(struct tt_cpu_sample) &&
		    (((const struct tt_cpu_sample *)ev)->flags & TT_CPU_STACK_COPY)) {
			const struct tt_stack_copy *next = copy_after(ev, size);

			/* A copy that does not check out leaves the sample as it is. */
			if (!next) {
				struct tt_cpu_sample s = *(const struct tt_cpu_sample *)ev;

				s.flags &= (__u16)~TT_CPU_STACK_COPY;
				cpu_sample(bs, &s);
				bs->user_drops[TT_DROP_READ_ERROR]++;
				return 0;
			}
			unwind_sample(bs, (const struct tt_cpu_sample *)ev, next);
			size -= ev->size + next->hdr.size;
			ev = (const struct tt_event_header *)((const char *)next + next->hdr.size);
			continue;
		}
		if (ev->type == TT_EV_OFFCPU_SITE && ev->size == sizeof(struct tt_offcpu_site)) {
			const struct tt_stack_copy *next = copy_after(ev, size);

			/* A copy that does not check out leaves the site to frame pointers. */
			if (!next) {
				bs->user_drops[TT_DROP_READ_ERROR]++;
				return 0;
			}
			bpf_unwind__site(bs, (const struct tt_offcpu_site *)ev, next);
			size -= ev->size + next->hdr.size;
			ev = (const struct tt_event_header *)((const char *)next + next->hdr.size);
			continue;
		}
		if (ev->type == TT_EV_STACK_COPY) { /* a thread off CPU: its sample comes later */
			if (tt_event_validate(ev, size) < 0) {
				bs->user_drops[TT_DROP_READ_ERROR]++;
				return 0;
			}
			iter_copy(bs, (const struct tt_stack_copy *)ev);
		} else if (ev->type == TT_EV_FD_TARGET) {
			bpf_targets__on_record(bs, ev, ev->size);
		} else if (ev->type == TT_EV_IO_WAIT && ev->size == sizeof(struct tt_io_wait)) {
			bpf_io__on_wait(bs, (const struct tt_io_wait *)ev);
		} else if (ev->type == TT_EV_THREAD_REPEAT &&
			   ev->size >= sizeof(struct tt_thread_repeat)) {
			const struct tt_thread_repeat *r = (const struct tt_thread_repeat *)ev;

			if (on_repeat(bs, r))
				keep_repeat(bs, r);
		} else if (ev->type == TT_EV_THREAD_SAME &&
			   ev->size >= sizeof(struct tt_thread_same)) {
			on_same(bs, (const struct tt_thread_same *)ev);
		} else if (ev->type == TT_EV_CPU_SAMPLE &&
			   ev->size == sizeof(struct tt_cpu_sample)) {
			cpu_sample(bs, (const struct tt_cpu_sample *)ev);
		} else if (ev->type == TT_EV_LUAJIT_FUNC && bs->ljvm &&
			   ev->size >= sizeof(struct tt_luajit_func)) {
			/* Only the library names functions in the ring (the
			 * unwinder names its own in user space): its first names
			 * come before its first sample. */
			bpf_ljvm__on_library(bs->ljvm, ((const struct tt_luajit_func *)ev)->pid);
			sink_emit(&bs->base.sink, ev);
		} else if (ev->type == TT_EV_LUAJIT_SAMPLE && bs->ljvm &&
			   ev->size >= sizeof(struct tt_luajit_sample)) {
			bpf_ljvm__on_sample(bs->ljvm, (const struct tt_luajit_sample *)ev,
					    &bs->base.sink);
		} else {
			sink_emit(&bs->base.sink, ev);
		}
		size -= ev->size;
		ev = (const struct tt_event_header *)((const char *)ev + ev->size);
	}
	return 0;
}
