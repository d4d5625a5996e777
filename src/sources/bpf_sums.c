// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF source's interval end (source_bpf_impl.h): the kernel's ever-growing
 * sums of the syscall, off-CPU and block I/O (bpf_io.c) tracers become records
 * of the interval's differences (bpf_drain.c), and so do the run time of each
 * program and the drops of every stage. The stack dedup set is emptied when it fills up.
 */
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_drain.h"
#include "source_bpf_impl.h"
#include "util.h"

/* The kernel's side (bpf/): after threadtop/events.h, which they use. */
#include "common.shared.h"
#include "offcpu.shared.h"
#include "syscalls.shared.h"

#include "io.skel.h"
#include "offcpu.skel.h"
#include "syscalls.skel.h"
#include "threads.skel.h"

/* Each held record starts 8-byte aligned, as its fields want, after the
 * off-CPU site its user stack is named by (0 = none). */
#define HELD_ROUND(n) (((size_t)(n) + 7) & ~(size_t)7)
#define HELD_SITE sizeof(uint64_t)

/* An off-CPU record sent now: its site's unwound stack, or its own. */
static void emit_offcpu(struct bpf_source *bs, const struct tt_event_header *hdr, uint64_t site)
{
	struct tt_offcpu rec;

	memcpy(&rec, hdr, sizeof(rec));
	rec.ustack_id = bpf_unwind__site_stack(bs, site, rec.ustack_id);
	sink_emit(&bs->base.sink, &rec.hdr);
}

static void held_emit(struct bpf_source *bs, const struct tt_event_header *hdr, uint64_t site)
{
	size_t room = HELD_SITE + HELD_ROUND(hdr->size);

	if (!bs->sums_holding) {
		if (hdr->type == TT_EV_OFFCPU)
			emit_offcpu(bs, hdr, site);
		else
			sink_emit(&bs->base.sink, hdr);
		return;
	}
	if (bs->held_len + room > bs->held_cap) {
		bs->held_cap = (bs->held_len + room) * 2;
		bs->held = xrealloc(bs->held, bs->held_cap);
	}
	memcpy(bs->held + bs->held_len, &site, HELD_SITE);
	memcpy(bs->held + bs->held_len + HELD_SITE, hdr, hdr->size);
	bs->held_len += room;
}

void bpf_sums__emit(struct bpf_source *bs, const struct tt_event_header *hdr)
{
	held_emit(bs, hdr, 0);
}

static bool syscall_delta(void *ctx, const void *k, const void *v, const void *p, uint32_t *ret_pid,
			  uint32_t *ret_tid)
{
	struct bpf_source *bs = ctx;
	const struct tt_sc_key *key = k;
	const struct tt_sc_val *val = v, *prev = p;
	struct tt_syscall_stats rec = {0};

	*ret_pid = val->pid;
	*ret_tid = key->tid;
	if (val->count == prev->count)
		return false;
	if (bs->sums_baseline)
		return true;
	rec.hdr = (struct tt_event_header){TT_EV_SYSCALL_STATS, TT_SYSCALL_STATS_VERSION,
					   sizeof(rec), monotonic_ns()};
	rec.pid = val->pid;
	rec.tid = key->tid;
	rec.nr = key->nr;
	rec.count = val->count - prev->count;
	rec.total_ns = val->total_ns - prev->total_ns;
	for (int i = 0; i < TT_SYSCALL_HIST_BUCKETS; i++)
		rec.hist[i] = val->hist[i] - prev->hist[i];
	bpf_sums__emit(bs, &rec.hdr);
	return true;
}

static bool offcpu_delta(void *ctx, const void *k, const void *v, const void *p, uint32_t *ret_pid,
			 uint32_t *ret_tid)
{
	struct bpf_source *bs = ctx;
	const struct tt_oc_key *key = k;
	const struct tt_oc_val *val = v, *prev = p;
	struct tt_offcpu rec = {0};

	*ret_pid = key->pid;
	*ret_tid = key->tid;
	/* Time settled at an interval's end comes without a switch: compare both. */
	if (val->count == prev->count && val->total_ns == prev->total_ns)
		return false;
	if (bs->sums_baseline)
		return true;
	rec.hdr = (struct tt_event_header){TT_EV_OFFCPU, TT_OFFCPU_VERSION, sizeof(rec),
					   monotonic_ns()};
	rec.pid = key->pid;
	rec.tid = key->tid;
	rec.labels_hash = key->labels_hash;
	rec.kstack_id = key->kstack_id;
	rec.kind = key->kind;
	rec.total_ns = val->total_ns - prev->total_ns;
	rec.count = val->count - prev->count;
	memcpy(rec.comm, val->comm, TT_COMM_LEN);
	rec.comm[TT_COMM_LEN - 1] = '\0';
	/* A blocking site's stack is unwound from a copy still in the ring when
	 * the sums are harvested: named when the record is sent. */
	rec.ustack_id = key->ustack_id;
	held_emit(bs, &rec.hdr, key->site);
	return true;
}

/* The tracers' sums read now: syscalls, off-CPU time (what is still running
 * counted up to now: each interval gets its part) and block I/O. */
static void read_sums(struct bpf_source *bs)
{
	if (bs->sc_drain)
		bpf_drain__run(bs->sc_drain, syscall_delta, bs);
	if (bs->oc_drain && bs->offcpu->links.settle_offcpu)
		bpf_source_run_iter(bs->offcpu->links.settle_offcpu);
	if (bs->oc_drain)
		bpf_drain__run(bs->oc_drain, offcpu_delta, bs);
	bpf_io__drain(bs);
}

void bpf_sums__harvest(struct bpf_source *bs)
{
	/* Map reads only: the ring (whose unwinding can take a loaded box
	 * a quarter of a second) is drained after, before the release. */
	bs->sums_holding = true;
	read_sums(bs);
	bs->sums_holding = false;
	bs->sums_harvested = true;
}

/* The held records, in the order they were read. */
static void release_held(struct bpf_source *bs)
{
	for (size_t off = 0; off < bs->held_len;) {
		const struct tt_event_header *hdr = (const void *)(bs->held + off + HELD_SITE);
		uint64_t site;

		memcpy(&site, bs->held + off, HELD_SITE);
		if (hdr->type == TT_EV_OFFCPU)
			emit_offcpu(bs, hdr, site);
		else
			sink_emit(&bs->base.sink, hdr);
		off += HELD_SITE + HELD_ROUND(hdr->size);
	}
	bs->held_len = 0;
}

static void flush_prog_stats(struct bpf_source *bs, uint64_t now)
{
	if (bs->stats_fd < 0)
		return;
	for (int i = 0; i < bs->nr_progs; i++) {
		struct prog_snap *ps = &bs->progs[i];
		struct bpf_prog_info info = {0};
		struct tt_prog_stats rec = {0};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(ps->fd, &info, &len) < 0)
			continue;
		rec.hdr = (struct tt_event_header){TT_EV_PROG_STATS, TT_PROG_STATS_VERSION,
						   sizeof(rec), now};
		rec.run_cnt = info.run_cnt - ps->run_cnt;
		rec.run_time_ns = info.run_time_ns - ps->run_time_ns;
		rec.recursion_misses = info.recursion_misses - ps->misses;
		memcpy(rec.name, ps->name, TT_COMM_LEN);
		ps->run_cnt = info.run_cnt;
		ps->run_time_ns = info.run_time_ns;
		ps->misses = info.recursion_misses;
		sink_emit(&bs->base.sink, &rec.hdr);
	}
}

static void flush_drops(struct bpf_source *bs, uint64_t now)
{
	int fd = bpf_map__fd(bs->threads->maps.tt_drops);
	struct tt_drops rec = {0};
	uint64_t *vals = xcalloc((size_t)bs->nr_cpus, sizeof(uint64_t));
	bool any = false;

	for (__u32 r = 0; r < TT_DROP_MAX; r++) {
		uint64_t sum = 0;

		if (bpf_map_lookup_elem(fd, &r, vals) == 0)
			for (int c = 0; c < bs->nr_cpus; c++)
				sum += vals[c];
		/* A thread sample the ring refused makes its thread resampled (forget_batch). */
		rec.count[r] = sum - bs->drops_prev[r] + bs->user_drops[r];
		bs->drops_prev[r] = sum;
		bs->user_drops[r] = 0;
		any |= rec.count[r] != 0;
	}
	free(vals);
	if (!any)
		return;
	rec.hdr = (struct tt_event_header){TT_EV_DROPS, TT_DROPS_VERSION, sizeof(rec), now};
	sink_emit(&bs->base.sink, &rec.hdr);
}

/*
 * The stack dedup set is bounded. When it is three quarters full it is
 * emptied: ids already sent stay valid in the model, stacks seen again are
 * sent again under new ids. In between, a full set makes the kernel send
 * stacks undeduplicated (counted as dedup_full). The block I/O tracer's
 * paths forget their stacks then, so that no id it cached outlives the
 * horizon (events.h): they are walked again, under new ids.
 */
static void maybe_reset_stack_ids(struct bpf_source *bs)
{
	int cfd = bpf_map__fd(bs->threads->maps.tt_counters);
	int sfd = bpf_map__fd(bs->threads->maps.tt_stack_ids);
	__u32 slot = TT_COUNTER_INSERTED;
	uint64_t inserted = 0, key, next;
	bool first = true;

	if (bpf_map_lookup_elem(cfd, &slot, &inserted) < 0 ||
	    inserted < bpf_map__max_entries(bs->threads->maps.tt_stack_ids) / 4 * 3)
		return;
	while (bpf_map_get_next_key(sfd, first ? NULL : &key, &next) == 0) {
		if (!first)
			bpf_map_delete_elem(sfd, &key);
		key = next;
		first = false;
	}
	if (!first)
		bpf_map_delete_elem(sfd, &key);
	inserted = 0;
	bpf_map_update_elem(cfd, &slot, &inserted, BPF_ANY);
	if (bs->io)
		bs->io->bss->tt_io_paths_gen++;
}

void bpf_sums__open(struct bpf_source *bs)
{
	if (bs->syscalls)
		bs->sc_drain = bpf_drain__new(bpf_map__fd(bs->syscalls->maps.tt_sc_stats),
					      sizeof(struct tt_sc_key), sizeof(struct tt_sc_val));
	if (bs->offcpu)
		bs->oc_drain = bpf_drain__new(bpf_map__fd(bs->offcpu->maps.tt_oc_agg),
					      sizeof(struct tt_oc_key), sizeof(struct tt_oc_val));
	bpf_io__open(bs);
	/* Run-time statistics are a bonus: without them bpf_stats stays empty. */
	if (bs->opts.bpf_stats)
		bs->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
}

void bpf_sums__start(struct bpf_source *bs)
{
	/* What the tracers summed while threadtop was starting is no interval's. */
	bs->sums_baseline = true;
	read_sums(bs);
	bs->sums_baseline = false;
}

void bpf_sums__flush(struct bpf_source *bs, uint64_t now)
{
	/* Read at the start of the pass that ended the interval (bpf_tick), sent
	 * now: after the ring's records, whose stacks the sums name. */
	if (bs->sums_harvested)
		release_held(bs);
	else
		read_sums(bs);
	bs->sums_harvested = false;
	flush_prog_stats(bs, now);
	flush_drops(bs, now);
	maybe_reset_stack_ids(bs);
}
