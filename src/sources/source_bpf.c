// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF source (see source_bpf.h): probes what the kernel offers, loads the
 * skeletons of bpf/ (the first one owns the shared maps, the others reuse
 * them), attaches them, runs the task iterator on every tick and forwards
 * ring-buffer records to the sink. At each interval's end it turns the
 * kernel's sums (syscalls, off-CPU time, drops, program run time) into
 * records.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_drain.h"
#include "bpf_labels.h"
#include "bpf_luajit.h"
#include "common.h"
#include "hash.h"
#include "event_codec.h"
#include "log.h"
#include "offcpu.h"
#include "source_bpf.h"
#include "source_defaults.h"
#include "strtab.h"
#include "syscalls.h"
#include "threads.h"
#include "u64map.h"
#include "unwind_dwarf.h"
#include "util.h"

#include "offcpu.skel.h"
#include "oncpu.skel.h"
#include "syscalls.skel.h"
#include "threads.skel.h"

#define RINGBUF_BYTES (16u << 20)
#define RINGBUF_TEST_ENV "THREADTOP_TEST_RINGBUF_KB"
#define WALK_TEST_ENV "THREADTOP_TEST_WALK_EVERY"
#define STACK_IDS_MAX 65536
#define TRACE_MAP_MAX 32768
#define PID_ITERS_MAX 64 /* -p with more processes walks all tasks, filtered */
#define MAX_PROGS 8
#define LIBBPF_LOG_MAX (256 * 1024)
#define SWEEP_EVERY 64	  /* passes between checks of the repeated threads */
#define USTACKS_MAX 65536 /* unwound stacks remembered for dedup */
#define UNWIND_IDLE_ROUNDS 60

struct prog_snap {
	int fd;
	char name[TT_COMM_LEN];
	uint64_t run_cnt, run_time_ns, misses;
};

/* What the source last told the model about a thread. */
struct seen_thread {
	uint64_t start_time_ns;
	uint32_t generation;
	/* The last DWARF stack of the thread off CPU and the frame-pointer stack
	 * it replaced: a resent sample with that stack gets it again. */
	uint32_t fp_ustack_id, dwarf_ustack_id;
	struct tt_thread_sample last; /* its last full sample (repeats when recording) */
};

struct bpf_source {
	struct source base;
	struct bpf_source_opts opts;
	int *pids;	     /* the copy opts.pids points to */
	uint32_t ring_bytes; /* of the shared ring buffer (ringbuf_bytes) */
	struct threads_bpf *threads;
	struct oncpu_bpf *oncpu;
	struct syscalls_bpf *syscalls;
	struct offcpu_bpf *offcpu;
	struct bpf_link **iters;
	size_t nr_iters;
	struct bpf_labels *labels;
	struct bpf_luajit *luajit; /* LuaJIT samples (bpf_luajit.c), NULL = none */
	struct bpf_link **perf_links;
	int *perf_fds;
	int nr_cpus;
	struct ring_buffer *rb;
	int stats_fd;
	struct bpf_drain *sc_drain, *oc_drain;
	struct prog_snap progs[MAX_PROGS];
	int nr_progs;
	uint64_t drops_prev[TT_DROP_MAX];
	uint64_t user_drops[TT_DROP_MAX];
	/* Thread info (command lines) for threads new to the model. */
	struct strtab *strings;
	struct u64map *seen;
	uint32_t generation;
	bool one_pass; /* sample_threads (one run per pass) is loaded, else sample_tasks */
	int cmdline_pid;
	uint32_t cmdline_id;
	/* DWARF unwinding of stack copies (--unwind dwarf|auto). */
	struct unwinder *unwinder;
	struct u64map *ustacks; /* hash of (pid, frames) -> struct ustack */
	uint32_t next_ustack_id;
	struct u64map *pending; /* tid -> unwound stack id of its coming sample (1 = none) */
	uint64_t copies_capped; /* threads off CPU left to frame pointers by the per-pass cap */
	int dwarf_tgids_fd;	/* auto: processes to copy stacks of on every sample */
	/* The unwinding budget: CPU spent unwinding in the current second. */
	uint64_t budget_start_ns, budget_used_ns;
	uint64_t over_budget; /* copies left unwound because the budget was spent */
	bool copies_paused;
};

/*
 * DWARF unwinding may cost at most --unwind-budget of a core (default 1%):
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

static char libbpf_log[LIBBPF_LOG_MAX];
static size_t libbpf_log_len;

__attribute__((format(printf, 2, 0))) static int capture_libbpf(enum libbpf_print_level level,
								const char *fmt, va_list ap)
{
	int n;

	if (level == LIBBPF_DEBUG || libbpf_log_len >= sizeof(libbpf_log) - 1)
		return 0;
	n = vsnprintf(libbpf_log + libbpf_log_len, sizeof(libbpf_log) - libbpf_log_len, fmt, ap);
	if (n > 0)
		libbpf_log_len += (size_t)n;
	if (libbpf_log_len >= sizeof(libbpf_log))
		libbpf_log_len = sizeof(libbpf_log) - 1;
	return n;
}

const char *bpf_source__libbpf_log(void)
{
	return libbpf_log;
}

static struct bpf_source *to_bpf(struct source *src)
{
	return (struct bpf_source *)src;
}

/* --- thread info ---------------------------------------------------------- */

/* The command line of pid as a string id (NULs as spaces), 0 when unreadable. */
static uint32_t cmdline_id(struct bpf_source *bs, uint32_t pid, uint64_t now)
{
	char path[32], buf[TT_MAX_STRING_LEN];
	ssize_t n;

	if (bs->cmdline_pid == (int)pid)
		return bs->cmdline_id;
	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	n = read_file_at(AT_FDCWD, path, buf, sizeof(buf));
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	bs->cmdline_pid = (int)pid;
	bs->cmdline_id =
		n > 0 ? source_intern(bs->strings, &bs->base.sink, buf, (size_t)n, now) : 0;
	return bs->cmdline_id;
}

static void note_thread(struct bpf_source *bs, const struct tt_thread_sample *s)
{
	struct seen_thread *seen = u64map__get(bs->seen, s->tid);
	struct tt_thread_info info = {0};

	if (seen && seen->start_time_ns == s->start_time_ns) {
		seen->generation = bs->generation;
		seen->last = *s;
		return;
	}
	if (!seen) {
		seen = xcalloc(1, sizeof(*seen));
		u64map__put(bs->seen, s->tid, seen);
	}
	seen->start_time_ns = s->start_time_ns;
	seen->generation = bs->generation;
	seen->last = *s;
	info.hdr = (struct tt_event_header){TT_EV_THREAD_INFO, TT_THREAD_INFO_VERSION, sizeof(info),
					    s->hdr.time_ns};
	info.pid = s->pid;
	info.tid = s->tid;
	info.start_time_ns = s->start_time_ns;
	if (!(s->flags & TT_SAMPLE_KTHREAD))
		info.cmdline_id = cmdline_id(bs, s->pid, s->hdr.time_ns);
	info.flags = (s->flags & TT_SAMPLE_KTHREAD) ? TT_INFO_KTHREAD : 0;
	memcpy(info.comm, s->comm, TT_COMM_LEN);
	sink_emit(&bs->base.sink, &info.hdr);
}

/*
 * Forgets threads the last passes did not see, so a reused tid is noticed.
 * Repeated threads are marked seen only on every SWEEP_EVERY-th pass: the
 * sweep runs then.
 */
static void sweep_seen(struct bpf_source *bs)
{
	struct seen_thread *seen;
	uint64_t tid;
	size_t pos = 0;

	if (bs->one_pass && bs->generation % SWEEP_EVERY)
		return;

	while (u64map__next(bs->seen, &pos, &tid, (void **)&seen)) {
		if (bs->generation - seen->generation > 2) {
			u64map__remove_at(bs->seen, &pos);
			free(seen);
		}
	}
}

/* --- DWARF unwinding ------------------------------------------------------ */

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
 * A sample followed by its stack copy: unwinds the copy and sends the sample
 * with the unwound stack, unless the frame-pointer stack it already has is
 * deeper (dwarf mode) or at least as deep (auto mode). In auto mode a
 * process whose DWARF stacks beat its frame-pointer ones gets a copy on every
 * sample from then on.
 */
static uint32_t unwind_copy(struct bpf_source *bs, const struct tt_stack_copy *copy)
{
	uint64_t ips[TT_MAX_STACK_DEPTH], regs[TT_UREG_NR];
	size_t nr = 0;

	uint64_t start;

	if (!bs->unwinder)
		return 0;
	if (bs->budget_used_ns >= UNWIND_BUDGET_NS(bs)) {
		bs->over_budget++;
		return 0;
	}
	memcpy(regs, copy->regs, sizeof(regs));
	start = monotonic_ns();
	unwinder__unwind(bs->unwinder, copy->pid, regs, copy->data, copy->len, ips,
			 TT_MAX_STACK_DEPTH, &nr);
	bs->budget_used_ns += monotonic_ns() - start;
	if (!nr || nr < copy->fp_frames ||
	    (nr == copy->fp_frames && bs->opts.unwind != TT_UNWIND_DWARF))
		return 0;
	if (bs->opts.unwind == TT_UNWIND_AUTO && bs->dwarf_tgids_fd >= 0 &&
	    nr > TT_AUTO_MAX_FP_FRAMES && copy->fp_frames <= TT_AUTO_MAX_FP_FRAMES) {
		__u8 one = 1;

		bpf_map_update_elem(bs->dwarf_tgids_fd, &copy->pid, &one, BPF_NOEXIST);
	}
	return intern_ustack(bs, copy->pid, ips, nr, copy->hdr.time_ns);
}

static void unwind_sample(struct bpf_source *bs, const struct tt_cpu_sample *in,
			  const struct tt_stack_copy *copy)
{
	struct tt_cpu_sample s = *in;
	uint32_t id = 0;

	s.flags &= (__u16)~TT_CPU_STACK_COPY;
	if (copy->pid == s.pid && copy->tid == s.tid)
		id = unwind_copy(bs, copy);
	if (id)
		s.ustack_id = id;
	sink_emit(&bs->base.sink, &s.hdr);
}

/* The stack copy of a thread off CPU (task iterator): unwound now, used by its sample. */
static void iter_copy(struct bpf_source *bs, const struct tt_stack_copy *copy)
{
	uint32_t id = unwind_copy(bs, copy);

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
static void on_repeat(struct bpf_source *bs, const struct tt_thread_repeat *r)
{
	union { /* a repeat record with room for its tids (a flexible array member) */
		struct tt_thread_repeat rec;
		unsigned char room[sizeof(struct tt_thread_repeat) + TT_REPEAT_MAX * sizeof(__u32)];
	} out;
	int slots = bpf_map__fd(bs->threads->maps.tt_last);
	uint32_t n = 0;

	if (r->nr > TT_REPEAT_MAX || r->hdr.size != sizeof(*r) + r->nr * sizeof(__u32)) {
		bs->user_drops[TT_DROP_READ_ERROR]++;
		return;
	}
	/* Most passes: straight to the model, which skips tids it has no sample of. */
	if (!bs->opts.full_samples && bs->generation % SWEEP_EVERY) {
		sink_emit(&bs->base.sink, &r->hdr);
		return;
	}
	for (uint32_t i = 0; i < r->nr; i++) {
		struct seen_thread *seen = u64map__get(bs->seen, r->tids[i]);

		if (!seen || seen->last.tid != r->tids[i]) {
			__u32 slot = r->tids[i] & (TT_LAST_SLOTS - 1);
			struct tt_last_seen none = {0};

			bpf_map_update_elem(slots, &slot, &none, BPF_ANY);
			bs->threads->bss->tt_walk_now =
				1; /* a pass without the walk skips tt_last */
			bs->user_drops[TT_DROP_RINGBUF_FULL]++;
			continue;
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
		return;
	out.rec = *r;
	out.rec.nr = n;
	out.rec.hdr.size = (uint32_t)(sizeof(out.rec) + n * sizeof(__u32));
	sink_emit(&bs->base.sink, &out.rec.hdr);
}

/* --- ring buffer ---------------------------------------------------------- */

static int on_record(void *ctx, void *data, size_t size)
{
	struct bpf_source *bs = ctx;
	const struct tt_event_header *ev = data;

	/* One ring-buffer record may carry several event records back to back. */
	while (size) {
		if (size < sizeof(*ev) || ev->size < sizeof(*ev) || ev->size > size) {
			bs->user_drops[TT_DROP_READ_ERROR]++;
			return 0;
		}
		if (ev->type == TT_EV_THREAD_SAMPLE && ev->size == sizeof(struct tt_thread_sample))
			note_thread(bs, (const struct tt_thread_sample *)ev);
		if (ev->type == TT_EV_CPU_SAMPLE && ev->size == sizeof(struct tt_cpu_sample) &&
		    (((const struct tt_cpu_sample *)ev)->flags & TT_CPU_STACK_COPY)) {
			const struct tt_event_header *next =
				(const void *)((const char *)ev + ev->size);
			size_t rest = size - ev->size;

			/* A copy that does not check out leaves the sample as it is. */
			if (rest < sizeof(*next) || next->type != TT_EV_STACK_COPY ||
			    tt_event_validate(next, rest) < 0) {
				struct tt_cpu_sample s = *(const struct tt_cpu_sample *)ev;

				s.flags &= (__u16)~TT_CPU_STACK_COPY;
				sink_emit(&bs->base.sink, &s.hdr);
				bs->user_drops[TT_DROP_READ_ERROR]++;
				return 0;
			}
			unwind_sample(bs, (const struct tt_cpu_sample *)ev,
				      (const struct tt_stack_copy *)next);
			size -= ev->size + next->size;
			ev = (const struct tt_event_header *)((const char *)next + next->size);
			continue;
		}
		if (ev->type == TT_EV_STACK_COPY) { /* a thread off CPU: its sample comes later */
			if (tt_event_validate(ev, size) < 0) {
				bs->user_drops[TT_DROP_READ_ERROR]++;
				return 0;
			}
			iter_copy(bs, (const struct tt_stack_copy *)ev);
		} else if (ev->type == TT_EV_THREAD_SAMPLE &&
			   ev->size == sizeof(struct tt_thread_sample)) {
			thread_sample(bs, (const struct tt_thread_sample *)ev);
		} else if (ev->type == TT_EV_THREAD_REPEAT &&
			   ev->size >= sizeof(struct tt_thread_repeat)) {
			on_repeat(bs, (const struct tt_thread_repeat *)ev);
		} else {
			sink_emit(&bs->base.sink, ev);
		}
		size -= ev->size;
		ev = (const struct tt_event_header *)((const char *)ev + ev->size);
	}
	return 0;
}

static int bpf_fd(struct source *src)
{
	return ring_buffer__epoll_fd(to_bpf(src)->rb);
}

static int bpf_ready(struct source *src)
{
	int n = ring_buffer__consume(to_bpf(src)->rb);

	return n < 0 ? n : 0;
}

/* --- tick: one pass of the task iterator ---------------------------------- */

static int run_iter(struct bpf_link *link)
{
	char buf[64];
	ssize_t n;
	int fd = bpf_iter_create(bpf_link__fd(link));

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		n = -errno;
	close(fd);
	return (int)n;
}

/* The one-pass sampler: one run of the syscall program. */
static int run_pass(struct bpf_source *bs)
{
	DECLARE_LIBBPF_OPTS(bpf_test_run_opts, o);

	if (bpf_prog_test_run_opts(bpf_program__fd(bs->threads->progs.sample_threads), &o) < 0)
		return -errno;
	return 0;
}

/* Once a pass: a new second renews the unwinding budget; a spent one stops the copies. */
static void pace_copies(struct bpf_source *bs, uint64_t now)
{
	bool pause;

	if (now - bs->budget_start_ns >= 1000000000ull) {
		bs->budget_start_ns = now;
		bs->budget_used_ns = 0;
	}
	pause = bs->budget_used_ns >= UNWIND_BUDGET_NS(bs);
	if (pause == bs->copies_paused)
		return;
	bs->copies_paused = pause;
	bs->threads->bss->tt_copies_paused = pause;
	if (bs->oncpu)
		bs->oncpu->bss->tt_copies_paused = pause;
}

static int bpf_tick(struct source *src, uint64_t now)
{
	struct bpf_source *bs = to_bpf(src);
	struct tt_tick tick = {0};
	uint64_t start = monotonic_ns();
	int err = 0;

	bs->threads->bss->tt_nr_samples = 0;
	bs->threads->bss->tt_pass_ns = start;
	bs->generation++;
	bs->cmdline_pid = 0;
	/* Labels first: the samples of this pass carry what they say. */
	if (bs->labels)
		err = bpf_labels__tick(bs->labels, &src->sink, now);
	if (bs->one_pass) {
		int e = run_pass(bs);

		if (e < 0 && !err)
			err = e;
	}
	for (size_t i = 0; i < bs->nr_iters; i++) {
		int e = run_iter(bs->iters[i]);

		if (e < 0 && !err)
			err = e;
	}
	ring_buffer__consume(bs->rb);
	sweep_seen(bs);
	if (bs->pending) { /* copies whose samples were lost */
		u64map__free(bs->pending);
		bs->pending = u64map__new();
		bs->copies_capped += bs->threads->bss->tt_copies_capped;
		bs->threads->bss->tt_copies_capped = 0;
		bs->threads->bss->tt_nr_copies = 0;
		pace_copies(bs, start);
	}
	tick.hdr = (struct tt_event_header){TT_EV_TICK, TT_TICK_VERSION, sizeof(tick), now};
	tick.weight_us = 1000000u / bs->opts.hz;
	tick.nr_threads = bs->threads->bss->tt_nr_samples;
	tick.duration_ns = monotonic_ns() - start;
	sink_emit(&src->sink, &tick.hdr);
	return err;
}

/* --- flush: the kernel's sums as records ---------------------------------- */

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
	rec.hdr = (struct tt_event_header){TT_EV_SYSCALL_STATS, TT_SYSCALL_STATS_VERSION,
					   sizeof(rec), monotonic_ns()};
	rec.pid = val->pid;
	rec.tid = key->tid;
	rec.nr = key->nr;
	rec.count = val->count - prev->count;
	rec.total_ns = val->total_ns - prev->total_ns;
	for (int i = 0; i < TT_SYSCALL_HIST_BUCKETS; i++)
		rec.hist[i] = val->hist[i] - prev->hist[i];
	sink_emit(&bs->base.sink, &rec.hdr);
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
	if (val->count == prev->count)
		return false;
	rec.hdr = (struct tt_event_header){TT_EV_OFFCPU, TT_OFFCPU_VERSION, sizeof(rec),
					   monotonic_ns()};
	rec.pid = key->pid;
	rec.tid = key->tid;
	rec.labels_hash = key->labels_hash;
	rec.kstack_id = key->kstack_id;
	rec.ustack_id = key->ustack_id;
	rec.kind = key->kind;
	rec.total_ns = val->total_ns - prev->total_ns;
	rec.count = val->count - prev->count;
	memcpy(rec.comm, val->comm, TT_COMM_LEN);
	rec.comm[TT_COMM_LEN - 1] = '\0';
	sink_emit(&bs->base.sink, &rec.hdr);
	return true;
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
		rec.count[r] = sum - bs->drops_prev[r] + bs->user_drops[r];
		/* Samples may be lost: the next pass samples every thread in full. */
		if (r == TT_DROP_RINGBUF_FULL && rec.count[r] && bs->one_pass)
			bs->threads->bss->tt_epoch++;
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
 * stacks undeduplicated (counted as dedup_full).
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
}

static int bpf_flush(struct source *src, uint64_t now)
{
	struct bpf_source *bs = to_bpf(src);

	ring_buffer__consume(bs->rb); /* stacks before the sums that name them */
	if (bs->sc_drain)
		bpf_drain__run(bs->sc_drain, syscall_delta, bs);
	if (bs->oc_drain)
		bpf_drain__run(bs->oc_drain, offcpu_delta, bs);
	flush_prog_stats(bs, now);
	flush_drops(bs, now);
	maybe_reset_stack_ids(bs);
	if (bs->unwinder)
		unwinder__expire(bs->unwinder, UNWIND_IDLE_ROUNDS);
	return 0;
}

/* --- set-up and tear-down ------------------------------------------------- */

/* One line on how DWARF unwinding went, for the log. */
static void report_unwinding(struct bpf_source *bs)
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
			"--unwind-budget)",
			(unsigned long long)bs->over_budget, bs->opts.unwind_budget_pct);
	bs->opts.warn(line);
}

/* For the log: how often the one-pass sampler had to walk the thread list. */
static void report_passes(struct bpf_source *bs)
{
	if (!bs->threads || !bs->one_pass || !bs->threads->bss)
		return;
	log_info("thread sampler: %llu passes walked the thread list (a task was created, or "
		 "once a second), %llu re-read the %u threads known",
		 (unsigned long long)bs->threads->bss->tt_walks,
		 (unsigned long long)bs->threads->bss->tt_rereads, bs->threads->bss->tt_nr_known);
}

static void bpf_free(struct source *src)
{
	struct bpf_source *bs = to_bpf(src);
	struct seen_thread *seen;
	uint64_t tid;
	size_t pos = 0;

	if (!bs)
		return;
	report_unwinding(bs);
	report_passes(bs);
	unwinder__free(bs->unwinder);
	u64map__free(bs->pending);
	if (bs->ustacks)
		forget_ustacks(bs);
	u64map__free(bs->ustacks);
	ring_buffer__free(bs->rb);
	bpf_labels__free(bs->labels);
	bpf_luajit__free(bs->luajit);
	for (size_t i = 0; i < bs->nr_iters; i++)
		bpf_link__destroy(bs->iters[i]);
	free(bs->iters);
	for (int i = 0; i < bs->nr_cpus; i++) {
		if (bs->perf_links)
			bpf_link__destroy(bs->perf_links[i]);
		if (bs->perf_fds && bs->perf_fds[i] >= 0)
			close(bs->perf_fds[i]);
	}
	free(bs->perf_links);
	free(bs->perf_fds);
	bpf_drain__free(bs->sc_drain);
	bpf_drain__free(bs->oc_drain);
	offcpu_bpf__destroy(bs->offcpu);
	syscalls_bpf__destroy(bs->syscalls);
	oncpu_bpf__destroy(bs->oncpu);
	threads_bpf__destroy(bs->threads);
	if (bs->stats_fd >= 0)
		close(bs->stats_fd);
	while (u64map__next(bs->seen, &pos, &tid, (void **)&seen))
		free(seen);
	u64map__free(bs->seen);
	strtab__free(bs->strings);
	free(bs->pids);
	free(bs);
}

static const struct source_ops bpf_ops = {
	.name = "bpf",
	.fd = bpf_fd,
	.tick = bpf_tick,
	.ready = bpf_ready,
	.flush = bpf_flush,
	.free = bpf_free,
};

/* Every object's copy of the shared maps and config, set the same way. */
#define CONFIGURE(skel, bs, weight)                                                           \
	do {                                                                                  \
		(skel)->rodata->tt_self_tgid = (__u32)(bs)->opts.self_pid;                    \
		(skel)->rodata->tt_filter_tgids = (bs)->opts.nr_pids > 0;                     \
		(skel)->rodata->tt_weight_us = (weight);                                      \
		(skel)->rodata->tt_wakeup_bytes = (bs)->ring_bytes / 4;                       \
		bpf_map__set_max_entries((skel)->maps.tt_events, (bs)->ring_bytes);           \
		bpf_map__set_max_entries((skel)->maps.tt_stack_ids, STACK_IDS_MAX);           \
		bpf_map__set_max_entries((skel)->maps.tt_tgids,                               \
					 (bs)->opts.nr_pids ? (__u32)(bs)->opts.nr_pids : 1); \
	} while (0)

#define REUSE_SHARED(skel, first) \
	(bpf_map__reuse_fd((skel)->maps.tt_events, bpf_map__fd((first)->maps.tt_events)) ?:  \
	 bpf_map__reuse_fd((skel)->maps.tt_drops, bpf_map__fd((first)->maps.tt_drops)) ?:    \
	 bpf_map__reuse_fd((skel)->maps.tt_tgids, bpf_map__fd((first)->maps.tt_tgids)) ?:    \
	 bpf_map__reuse_fd((skel)->maps.tt_stack_ids,                                        \
			   bpf_map__fd((first)->maps.tt_stack_ids)) ?:                       \
	 bpf_map__reuse_fd((skel)->maps.tt_counters, bpf_map__fd((first)->maps.tt_counters)))

/* "prog 'NAME'" of the first libbpf message about a failed program, or NULL. */
static const char *failed_prog(char *buf, size_t len)
{
	const char *p = strstr(libbpf_log, "prog '");
	size_t n;

	if (!p)
		return NULL;
	p += 6;
	n = strcspn(p, "'");
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

static int load_failed(const char *object, int e, char *err, size_t errlen)
{
	char prog[64];

	if (failed_prog(prog, sizeof(prog)) && strstr(libbpf_log, "load failed"))
		snprintf(err, errlen,
			 "BPF source: the kernel verifier rejected program %s (bpf/%s.bpf.c): %s",
			 prog, object, strerror(e));
	else
		snprintf(err, errlen, "BPF source: cannot load bpf/%s.bpf.c: %s", object,
			 strerror(e));
	return -e;
}

static void note_progs(struct bpf_source *bs, struct bpf_object *obj)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj)
	{
		if (bs->nr_progs == MAX_PROGS || bpf_program__fd(prog) < 0)
			continue;
		bs->progs[bs->nr_progs].fd = bpf_program__fd(prog);
		/* Either thread sampler is "sample_threads" to users (bpf_stats). */
		snprintf(bs->progs[bs->nr_progs].name, TT_COMM_LEN, "%s",
			 prog == bs->threads->progs.sample_tasks ? "sample_threads"
								 : bpf_program__name(prog));
		bs->nr_progs++;
	}
}

/*
 * The ring's size: RINGBUF_BYTES, or THREADTOP_TEST_RINGBUF_KB (a power of
 * two from 4 to 16384) for the tests that must fill it (bpf_drops.sh).
 */
static uint32_t ringbuf_bytes(void)
{
	const char *s = getenv(RINGBUF_TEST_ENV);
	unsigned long kb;
	char *end;

	if (!s)
		return RINGBUF_BYTES;
	errno = 0;
	kb = strtoul(s, &end, 10);
	if (errno || end == s || *end || kb < 4 || kb > 16384 || (kb & (kb - 1))) {
		log_msg(RINGBUF_TEST_ENV ": need a power of two from 4 to 16384 (KiB); using the "
					 "default %u KiB",
			RINGBUF_BYTES >> 10);
		return RINGBUF_BYTES;
	}
	log_msg(RINGBUF_TEST_ENV ": a %lu KiB ring buffer (a testing setting: expect drops)", kb);
	return (uint32_t)(kb << 10);
}

/*
 * Passes between walks of the thread list when no task is created: -F (a
 * second), or THREADTOP_TEST_WALK_EVERY for bpf_known.sh, which must see the
 * passes in between do the work alone.
 */
static uint32_t walk_every(const struct bpf_source *bs)
{
	const char *s = getenv(WALK_TEST_ENV);
	unsigned long n;
	char *end;

	if (!s)
		return bs->opts.hz;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || n < 1 || n > 1000000) {
		log_msg(WALK_TEST_ENV ": need a number of passes from 1 to 1000000; using %u (-F)",
			bs->opts.hz);
		return bs->opts.hz;
	}
	return (uint32_t)n;
}

static int load_threads(struct bpf_source *bs, char *err, size_t errlen)
{
	bs->threads = threads_bpf__open();
	if (!bs->threads)
		return load_failed("threads", errno, err, errlen);
	CONFIGURE(bs->threads, bs, 1000000u / bs->opts.hz);
	bs->threads->rodata->tt_unwind_mode = bs->opts.unwind;
	bs->threads->rodata->tt_stack_bytes = bs->opts.stack_bytes;
	bpf_program__set_autoload(bs->threads->progs.sample_threads, bs->one_pass);
	bpf_program__set_autoload(bs->threads->progs.sample_tasks, !bs->one_pass);
	bs->threads->rodata->tt_walk_every = walk_every(bs);
	if (!bs->one_pass) {
		bpf_map__set_max_entries(bs->threads->maps.tt_last, 1);
		bpf_map__set_max_entries(bs->threads->maps.tt_pass, 1);
		bpf_map__set_max_entries(bs->threads->maps.tt_known, 1);
	}
	if (threads_bpf__load(bs->threads))
		return load_failed("threads", errno, err, errlen);
	return 0;
}

static int load_all(struct bpf_source *bs, char *err, size_t errlen)
{
	unsigned cpu_weight = bs->opts.cpu_hz ? 1000000u / bs->opts.cpu_hz : 0;
	bool labels_on = bs->opts.labels && bs->opts.labels->nr_defs;
	int e;

	bs->ring_bytes = ringbuf_bytes();
	/* The one-pass sampler walks every thread: -p keeps the per-process walk. */
	bs->one_pass = !bs->opts.nr_pids;
	if ((e = load_threads(bs, err, errlen)) < 0 && bs->one_pass) {
		if (bs->opts.warn)
			bs->opts.warn("BPF source: the one-pass thread sampler did not load "
				      "(kernel 6.7+ task iterator kfuncs); sampling task by task");
		threads_bpf__destroy(bs->threads);
		bs->one_pass = false;
		e = load_threads(bs, err, errlen);
	}
	if (e < 0)
		return e;
	note_progs(bs, bs->threads->obj);

	if (bs->opts.cpu_hz) {
		bs->oncpu = oncpu_bpf__open();
		if (!bs->oncpu)
			return load_failed("oncpu", errno, err, errlen);
		CONFIGURE(bs->oncpu, bs, cpu_weight);
		bs->oncpu->rodata->tt_unwind_mode = bs->opts.unwind;
		bs->oncpu->rodata->tt_stack_bytes = bs->opts.stack_bytes;
		bpf_map__set_max_entries(bs->oncpu->maps.tt_copy_bufs,
					 bs->opts.unwind == TT_UNWIND_FP ? 1 : (__u32)bs->nr_cpus);
		bs->oncpu->rodata->tt_labels_on = labels_on;
		if ((e = REUSE_SHARED(bs->oncpu, bs->threads)) < 0)
			return load_failed("oncpu", -e, err, errlen);
		if (oncpu_bpf__load(bs->oncpu))
			return load_failed("oncpu", errno, err, errlen);
		note_progs(bs, bs->oncpu->obj);
		bs->dwarf_tgids_fd = bpf_map__fd(bs->oncpu->maps.tt_dwarf_tgids);
	}
	if (bs->opts.syscalls) {
		bs->syscalls = syscalls_bpf__open();
		if (!bs->syscalls)
			return load_failed("syscalls", errno, err, errlen);
		CONFIGURE(bs->syscalls, bs, 0);
		bpf_map__set_max_entries(bs->syscalls->maps.tt_sc_stats, TRACE_MAP_MAX);
		if ((e = REUSE_SHARED(bs->syscalls, bs->threads)) < 0)
			return load_failed("syscalls", -e, err, errlen);
		if (syscalls_bpf__load(bs->syscalls))
			return load_failed("syscalls", errno, err, errlen);
		note_progs(bs, bs->syscalls->obj);
	}
	if (bs->opts.offcpu) {
		bs->offcpu = offcpu_bpf__open();
		if (!bs->offcpu)
			return load_failed("offcpu", errno, err, errlen);
		CONFIGURE(bs->offcpu, bs, 0);
		bpf_map__set_max_entries(bs->offcpu->maps.tt_oc_agg, TRACE_MAP_MAX);
		bs->offcpu->rodata->tt_labels_on = labels_on;
		if ((e = REUSE_SHARED(bs->offcpu, bs->threads)) < 0 ||
		    (bs->oncpu &&
		     (e = bpf_map__reuse_fd(bs->offcpu->maps.tt_labels,
					    bpf_map__fd(bs->oncpu->maps.tt_labels))) < 0))
			return load_failed("offcpu", -e, err, errlen);
		if (offcpu_bpf__load(bs->offcpu))
			return load_failed("offcpu", errno, err, errlen);
		note_progs(bs, bs->offcpu->obj);
	}
	return 0;
}

/* The label slots the samplers read, which the label probes then fill; -1 = none loaded. */
static int labels_map_fd(const struct bpf_source *bs)
{
	if (bs->oncpu)
		return bpf_map__fd(bs->oncpu->maps.tt_labels);
	return bs->offcpu ? bpf_map__fd(bs->offcpu->maps.tt_labels) : -1;
}

static int attach_iters(struct bpf_source *bs, char *err, size_t errlen)
{
	struct bpf_program *prog =
		bs->one_pass ? bs->threads->progs.sample_threads : bs->threads->progs.sample_tasks;
	size_t n = bs->opts.nr_pids && bs->opts.nr_pids <= PID_ITERS_MAX ? bs->opts.nr_pids : 1;
	int fd = bpf_map__fd(bs->threads->maps.tt_tgids);
	__u8 one = 1;

	for (size_t i = 0; i < bs->opts.nr_pids; i++) {
		__u32 tgid = (__u32)bs->opts.pids[i];

		bpf_map_update_elem(fd, &tgid, &one, BPF_ANY);
	}
	if (bs->one_pass) /* a syscall program: run_pass runs it, nothing to attach */
		return 0;
	bs->iters = xcalloc(n, sizeof(*bs->iters));
	for (size_t i = 0; i < n; i++) {
		DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, o);
		union bpf_iter_link_info linfo = {0};

		/* One process: the kernel walks only its threads (6.1+). */
		if (n == bs->opts.nr_pids) {
			linfo.task.pid = (__u32)bs->opts.pids[i];
			o.link_info = &linfo;
			o.link_info_len = sizeof(linfo);
		}
		bs->iters[i] = bpf_program__attach_iter(prog, &o);
		if (!bs->iters[i]) {
			int e = errno;

			snprintf(err, errlen, "BPF source: cannot attach the task iterator: %s",
				 strerror(e));
			return -e;
		}
		bs->nr_iters++;
	}
	return 0;
}

static int attach_perf(struct bpf_source *bs, char *err, size_t errlen)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = bs->opts.cpu_hz,
		.freq = 1,
	};
	int attached = 0;

	bs->perf_links = xcalloc((size_t)bs->nr_cpus, sizeof(*bs->perf_links));
	bs->perf_fds = xcalloc((size_t)bs->nr_cpus, sizeof(int));
	for (int cpu = 0; cpu < bs->nr_cpus; cpu++) {
		int fd =
			(int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		bs->perf_fds[cpu] = fd;
		if (fd < 0) {
			if (errno == ENODEV)
				continue; /* offline CPU */
			int e = errno;

			snprintf(err, errlen,
				 "BPF source: perf_event_open (CPU clock, CPU %d): %s; "
				 "use --cpu-hz 0 to go without on-CPU stacks",
				 cpu, strerror(e));
			return -e;
		}
		bs->perf_links[cpu] =
			bpf_program__attach_perf_event(bs->oncpu->progs.sample_cpu, fd);
		if (!bs->perf_links[cpu]) {
			int e = errno;

			snprintf(err, errlen, "BPF source: cannot attach the on-CPU sampler: %s",
				 strerror(e));
			return -e;
		}
		attached++;
	}
	return attached ? 0 : -ENODEV;
}

static int attach_tracing(struct bpf_source *bs, char *err, size_t errlen)
{
	if (bs->syscalls && syscalls_bpf__attach(bs->syscalls)) {
		int e = errno;

		snprintf(err, errlen, "BPF source: cannot attach tp_btf/sys_enter, sys_exit: %s",
			 strerror(e));
		return -e;
	}
	if (bs->offcpu && offcpu_bpf__attach(bs->offcpu)) {
		int e = errno;

		snprintf(err, errlen,
			 "BPF source: cannot attach tp_btf/sched_switch, sched_wakeup: %s",
			 strerror(e));
		return -e;
	}
	return 0;
}

/* Says precisely what is missing before libbpf tries. */
static int probe(char *err, size_t errlen)
{
	if (geteuid() != 0) {
		snprintf(err, errlen,
			 "BPF source: not root (BPF needs CAP_BPF, CAP_PERFMON and "
			 "CAP_SYS_RESOURCE); run as root or use --source proc");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0) {
		snprintf(err, errlen,
			 "BPF source: the kernel has no BTF (/sys/kernel/btf/vmlinux: %s); "
			 "a kernel built with CONFIG_DEBUG_INFO_BTF=y is needed",
			 strerror(errno));
		return -ENOTSUP;
	}
	return 0;
}

struct source *bpf_source__new(const struct bpf_source_opts *opts, struct event_sink sink,
			       char *err, size_t errlen)
{
	struct bpf_source *bs;
	int e;

	libbpf_log[0] = '\0';
	libbpf_log_len = 0;
	e = probe(err, errlen);
	if (e < 0) {
		errno = -e;
		return NULL;
	}
	libbpf_set_print(capture_libbpf);
	bs = xcalloc(1, sizeof(*bs));
	bs->base.ops = &bpf_ops;
	bs->base.sink = sink;
	bs->opts = *opts;
	bs->opts.pids = NULL;
	if (!bs->opts.hz)
		bs->opts.hz = SOURCE_DEFAULT_HZ;
	if (opts->nr_pids) {
		bs->pids = xcalloc(opts->nr_pids, sizeof(int));
		memcpy(bs->pids, opts->pids, opts->nr_pids * sizeof(int));
		bs->opts.pids = bs->pids;
	}
	bs->stats_fd = -1;
	bs->dwarf_tgids_fd = -1;
	if (bs->opts.unwind > TT_UNWIND_AUTO)
		bs->opts.unwind = TT_UNWIND_AUTO;
	if (!bs->opts.stack_bytes || bs->opts.stack_bytes > TT_STACK_COPY_MAX)
		bs->opts.stack_bytes = SOURCE_DEFAULT_STACK_BYTES;
	if (!(bs->opts.unwind_budget_pct > 0) || bs->opts.unwind_budget_pct > 100)
		bs->opts.unwind_budget_pct = SOURCE_DEFAULT_UNWIND_BUDGET_PCT;
	if (bs->opts.unwind != TT_UNWIND_FP) {
		/* Sharing the symbolizer's maps: a new process's are read once. */
		bs->unwinder = unwinder__new(bs->opts.maps);
		if (!bs->unwinder)
			bs->unwinder = unwinder__new(NULL); /* no room to share: its own */
		bs->ustacks = u64map__new();
		bs->pending = u64map__new();
		bs->next_ustack_id = TT_USER_STACK_ID_BASE;
	}
	bs->strings = strtab__new();
	bs->seen = u64map__new();
	bs->nr_cpus = libbpf_num_possible_cpus();
	if (bs->nr_cpus <= 0) {
		e = bs->nr_cpus ? bs->nr_cpus : -EINVAL;
		snprintf(err, errlen, "BPF source: cannot count CPUs: %s", strerror(-e));
		goto fail;
	}
	e = load_all(bs, err, errlen);
	if (!e)
		e = attach_iters(bs, err, errlen);
	if (!e && opts->labels && opts->labels->nr_defs) {
		char why[256];

		bs->labels = bpf_labels__new(opts->labels, bs->threads->obj, labels_map_fd(bs),
					     opts->self_pid, opts->nr_pids > 0, opts->warn, why,
					     sizeof(why));
		if (!bs->labels && opts->warn)
			opts->warn(why);
	}
	if (!e) { /* LuaJIT samples are a bonus: say why they are missing, go on */
		char why[PATH_MAX + 160];

		bs->luajit = bpf_luajit__new(bs->threads->obj, opts->self_pid, opts->nr_pids > 0,
					     why, sizeof(why));
		if (!bs->luajit && opts->warn)
			opts->warn(why);
	}
	if (!e && bs->oncpu)
		e = attach_perf(bs, err, errlen);
	if (!e)
		e = attach_tracing(bs, err, errlen);
	if (e)
		goto fail;
	bs->rb = ring_buffer__new(bpf_map__fd(bs->threads->maps.tt_events), on_record, bs, NULL);
	if (!bs->rb) {
		e = -errno;
		snprintf(err, errlen, "BPF source: cannot map the ring buffer: %s", strerror(-e));
		goto fail;
	}
	if (bs->syscalls)
		bs->sc_drain = bpf_drain__new(bpf_map__fd(bs->syscalls->maps.tt_sc_stats),
					      sizeof(struct tt_sc_key), sizeof(struct tt_sc_val));
	if (bs->offcpu)
		bs->oc_drain = bpf_drain__new(bpf_map__fd(bs->offcpu->maps.tt_oc_agg),
					      sizeof(struct tt_oc_key), sizeof(struct tt_oc_val));
	/* Run-time statistics are a bonus: without them bpf_stats stays empty. */
	if (opts->bpf_stats)
		bs->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	return &bs->base;
fail:
	bpf_free(&bs->base);
	errno = -e;
	return NULL;
}
