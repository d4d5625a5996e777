// SPDX-License-Identifier: GPL-2.0-only
/*
 * DWARF unwinding for the BPF source (source_bpf_impl.h): the samplers send
 * a copy of a thread's user registers and stack where frame pointers fail
 * (--unwind auto) or always (dwarf); it is unwound here with libunwind's
 * remote accessors, and each new stack sent once as a TT_EV_STACK under an
 * id of the user range. Unwinding stays within a CPU budget per second.
 */
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common.shared.h"
#include "hash.h"
#include "source_bpf_impl.h"
#include "threads.shared.h"
#include "u64map.h"
#include "unwind_dwarf.h"
#include "util.h"

#include "io.skel.h"
#include "offcpu.skel.h"
#include "oncpu.skel.h"
#include "threads.skel.h"

#define USTACKS_MAX 65536  /* unwound stacks remembered for dedup */
#define OC_SITES_MAX 65536 /* blocking sites remembered (keys of the off-CPU tracer) */
/* The model forgets stacks this many ids old (events.h): the set is emptied sooner. */
_Static_assert(USTACKS_MAX <= TT_STACK_ID_HORIZON, "unwound stack ids outlive the horizon");
#define UNWIND_IDLE_ROUNDS 60

/*
 * DWARF unwinding may cost at most --unwind-budget of a core (1% unless set):
 * past it, stacks keep their frame-pointer walk and the kernel stops copying
 * until the next second. A busy box full of processes built without frame
 * pointers (a compile farm) would otherwise make threadtop its busiest
 * process: a new process's first unwind reads its maps and files (~50 us).
 */
#define UNWIND_BUDGET_NS(bs) ((uint64_t)((bs)->opts.unwind_budget_pct * 1e7))

/* A stack unwound in user space and already sent under id. */
struct ustack {
	uint32_t id, pid;
	size_t nr;
	uint64_t ips[];
};

void bpf_unwind__init(struct bpf_source *bs)
{
	if (bs->opts.unwind == TT_UNWIND_FP)
		return;
	/* Sharing the symbolizer's maps: a new process's are read once. */
	bs->unwinder = unwinder__new(bs->opts.maps);
	if (!bs->unwinder)
		bs->unwinder = unwinder__new(NULL); /* no room to share: its own */
	bs->ustacks = u64map__new();
	bs->pending = u64map__new();
	bs->oc_sites = u64map__new();
	bs->next_ustack_id = TT_USER_STACK_ID_BASE;
}

/*
 * The dedup key of a user stack: a word step per frame, each folding its high
 * bits back down, from a start that separates processes and depths.
 */
static uint64_t ustack_hash(uint32_t pid, const uint64_t *ips, size_t nr)
{
	uint64_t h = HASH_INIT ^ pid ^ (uint64_t)nr << 32;

	for (size_t i = 0; i < nr; i++) {
		h = hash_word(h, ips[i]);
		h ^= h >> 29;
	}
	return h;
}

static void forget_ustacks(struct bpf_source *bs)
{
	size_t pos = 0;
	uint64_t key;
	void *val;

	while (u64map__next(bs->ustacks, &pos, &key, &val))
		free(val);
	u64map__free(bs->ustacks);
	bs->ustacks = u64map__new();
}

/* The id of this user stack, sent as a TT_EV_STACK the first time it is seen. */
static uint32_t intern_ustack(struct bpf_source *bs, uint32_t pid, const uint64_t *ips, size_t nr,
			      uint64_t time_ns)
{
	uint64_t h = ustack_hash(pid, ips, nr);
	struct ustack *us = u64map__get(bs->ustacks, h);
	_Alignas(8) unsigned char buf[sizeof(struct tt_stack) + TT_MAX_STACK_DEPTH * 8];
	struct tt_stack *st = (struct tt_stack *)buf;

	if (us && us->pid == pid && us->nr == nr && !memcmp(us->ips, ips, nr * 8))
		return us->id;
	/* Out of ids (events.h): the sample keeps its frame-pointer stack. */
	if (bs->next_ustack_id < TT_USER_STACK_ID_BASE ||
	    bs->next_ustack_id > TT_USER_STACK_ID_LAST) {
		bs->user_drops[TT_DROP_DEDUP_FULL]++;
		return 0;
	}
	/* Ids already sent stay valid in the model: a full set just starts again. */
	if (u64map__count(bs->ustacks) >= USTACKS_MAX)
		forget_ustacks(bs);
	us = xmalloc(sizeof(*us) + nr * 8);
	us->id = bs->next_ustack_id++;
	us->pid = pid;
	us->nr = nr;
	memcpy(us->ips, ips, nr * 8);
	free(u64map__put(bs->ustacks, h, us));
	memset(st, 0, sizeof(*st));
	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION,
					   (uint32_t)(sizeof(*st) + nr * 8), time_ns};
	st->id = us->id;
	st->pid = pid;
	st->nr = (uint16_t)nr;
	memcpy(st->ips, ips, nr * 8);
	sink_emit(&bs->base.sink, &st->hdr);
	return us->id;
}

/*
 * Unwinds a stack copy. A DWARF stack that reached the outermost frame
 * (_start, clone3) wins, and so does one of two frames or more against a
 * frame-pointer walk that ran to the depth limit; else its sample keeps the
 * frame-pointer stack it has (0) when that is deeper (dwarf mode) or at
 * least as deep (auto mode), or when the budget is spent. In auto mode each
 * unwind tells the kernel whether DWARF beat the process's frame-pointer
 * stacks (tt_dwarf_tgids): if it did, every sample of it is copied from
 * then on.
 */
uint32_t bpf_unwind__copy(struct bpf_source *bs, const struct tt_stack_copy *copy)
{
	uint64_t ips[TT_MAX_STACK_DEPTH], regs[TT_UREG_NR];
	enum unwind_result res;
	bool whole, runaway, dwarf_won;
	size_t nr = 0;
	uint64_t start, spent;

	if (!bs->unwinder)
		return 0;
	if (bs->budget_used_ns >= UNWIND_BUDGET_NS(bs)) {
		bs->over_budget++;
		return 0;
	}
	memcpy(regs, copy->regs, sizeof(regs));
	/* CPU time, as the budget says: on a saturated box the wall time of an
	 * unwind holds the time the loop waited for a CPU, which spent the
	 * budget on nothing and left every stack to frame pointers. */
	start = thread_self_cpu_ns();
	res = unwinder__unwind(bs->unwinder, copy->pid, regs, copy->data, copy->len, ips,
			       TT_MAX_STACK_DEPTH, &nr);
	spent = thread_self_cpu_ns() - start;
	bs->budget_used_ns += spent;
	bs->unwind_spent_ns += spent;
	if (spent > bs->unwind_max_ns)
		bs->unwind_max_ns = spent;
	/* The frame-pointer walk stops in glibc, at __libc_start_call_main or start_thread. */
	whole = res == UNWIND_OK && nr > 1;
	/*
	 * A frame-pointer walk that ran to the depth limit went through code
	 * built without frame pointers and on through stack data (fio: 120
	 * "frames" in [heap] under its 3 real ones); the DWARF frames, however
	 * few, are real.
	 */
	runaway = copy->fp_frames >= TT_MAX_STACK_DEPTH && nr > 1;
	dwarf_won = (nr > TT_AUTO_MAX_FP_FRAMES && copy->fp_frames <= TT_AUTO_MAX_FP_FRAMES) ||
		    (whole && nr != copy->fp_frames) || runaway;
	if (bs->opts.unwind == TT_UNWIND_AUTO && bs->dwarf_tgids_fd >= 0 && nr) {
		__u8 verdict = dwarf_won ? TT_AUTO_DWARF : TT_AUTO_FP;

		/* Once DWARF won in a process it stays: other paths may not show it. */
		bpf_map_update_elem(bs->dwarf_tgids_fd, &copy->pid, &verdict,
				    dwarf_won ? BPF_ANY : BPF_NOEXIST);
	}
	if (!nr || (!whole && !runaway &&
		    (nr < copy->fp_frames ||
		     (nr == copy->fp_frames && bs->opts.unwind != TT_UNWIND_DWARF))))
		return 0;
	return intern_ustack(bs, copy->pid, ips, nr, copy->hdr.time_ns);
}

void bpf_unwind__site(struct bpf_source *bs, const struct tt_offcpu_site *site,
		      const struct tt_stack_copy *copy)
{
	uint32_t id;

	if (!bs->oc_sites || copy->pid != site->pid || copy->tid != site->tid || !site->site)
		return;
	id = bpf_unwind__copy(bs, copy);
	if (!id)
		return; /* the site keeps its frame-pointer stack */
	/* Forgotten sites fall back to their frame-pointer stacks: never wrong, less deep. */
	if (u64map__count(bs->oc_sites) >= OC_SITES_MAX) {
		u64map__free(bs->oc_sites);
		bs->oc_sites = u64map__new();
	}
	u64map__put(bs->oc_sites, site->site, (void *)(uintptr_t)id);
}

uint32_t bpf_unwind__site_stack(const struct bpf_source *bs, uint64_t site, uint32_t fp_ustack_id)
{
	void *p = site && bs->oc_sites ? u64map__get(bs->oc_sites, site) : NULL;

	return p ? (uint32_t)(uintptr_t)p : fp_ustack_id;
}

/*
 * Once a pass: a new second renews the unwinding budget; a spent one stops
 * the copies. The budget is checked before each unwind, so the last one of
 * a second may overrun it: by a few microseconds, or by the first unwind of
 * a process's files (their CFI read: 0.2 ms measured, twice what 0.01%
 * allows a second). The overrun is paid from the next second, so that over
 * a run the time spent stays within the budget asked (bpf_unwind.sh).
 */
static void pace_copies(struct bpf_source *bs, uint64_t now)
{
	uint64_t budget = UNWIND_BUDGET_NS(bs);
	bool pause;

	if (now - bs->budget_start_ns >= 1000000000ull) {
		bs->budget_start_ns = now;
		bs->budget_used_ns = bs->budget_used_ns > budget ? bs->budget_used_ns - budget : 0;
		bs->budget_seconds++;
	}
	pause = bs->budget_used_ns >= budget;
	if (pause == bs->copies_paused)
		return;
	bs->copies_paused = pause;
	bs->threads->bss->tt_copies_paused = pause;
	if (bs->oncpu)
		bs->oncpu->bss->tt_copies_paused = pause;
	if (bs->offcpu)
		bs->offcpu->bss->tt_copies_paused = pause;
	if (bs->io)
		bs->io->bss->tt_copies_paused = pause;
}

/* One line on how DWARF unwinding went, for the log. */
void bpf_unwind__report(struct bpf_source *bs)
{
	struct unwinder_stats st;
	char line[512];
	int n;

	if (!bs->unwinder || !bs->opts.warn)
		return;
	unwinder__stats(bs->unwinder, &st);
	if (!st.samples)
		return;
	n = snprintf(line, sizeof(line),
		     "DWARF unwinding: %llu samples, %.1f frames and %llu ns per sample, "
		     "%llu files; outcomes:",
		     (unsigned long long)st.samples, (double)st.frames / (double)st.samples,
		     (unsigned long long)(st.ns / st.samples), (unsigned long long)st.files);
	for (int r = 0; r < UNWIND_RESULT_MAX && n > 0 && (size_t)n < sizeof(line); r++)
		if (st.result[r])
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %s %llu",
				      unwind_result_name((enum unwind_result)r),
				      (unsigned long long)st.result[r]);
	if (bs->copies_capped && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      "; %llu threads off CPU left to frame pointers for a pass (%u copies "
			      "per pass)",
			      (unsigned long long)bs->copies_capped, TT_COPIES_PER_PASS);
	if (bs->over_budget && n > 0 && (size_t)n < sizeof(line))
		snprintf(
			line + n, sizeof(line) - (size_t)n,
			"; %llu stacks left to frame pointers by the unwinding budget (%g%% of a core, "
			"--unwind-budget): %llu us spent in %llu s, the longest unwind %llu us",
			(unsigned long long)bs->over_budget, bs->opts.unwind_budget_pct,
			(unsigned long long)(bs->unwind_spent_ns / 1000),
			(unsigned long long)bs->budget_seconds,
			(unsigned long long)(bs->unwind_max_ns / 1000));
	bs->opts.warn(line);
}

void bpf_unwind__end_pass(struct bpf_source *bs, uint64_t now)
{
	if (!bs->pending)
		return;
	/* Copies whose samples were lost. */
	u64map__free(bs->pending);
	bs->pending = u64map__new();
	bs->copies_capped += bs->threads->bss->tt_copies_capped;
	bs->threads->bss->tt_copies_capped = 0;
	bs->threads->bss->tt_nr_copies = 0;
	bs->threads->bss->tt_copy_claims = 0;
	pace_copies(bs, now);
}

void bpf_unwind__expire(struct bpf_source *bs)
{
	if (bs->unwinder)
		unwinder__expire(bs->unwinder, UNWIND_IDLE_ROUNDS);
}

void bpf_unwind__free(struct bpf_source *bs)
{
	unwinder__free(bs->unwinder);
	u64map__free(bs->pending);
	u64map__free(bs->oc_sites);
	if (bs->ustacks)
		forget_ustacks(bs);
	u64map__free(bs->ustacks);
}
