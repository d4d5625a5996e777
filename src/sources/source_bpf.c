// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF source (see source_bpf.h): its operations and its life. At every
 * tick it runs the thread sampler once (the one-pass program, or the task
 * iterators with -p and on kernels before 6.7) and forwards what the ring
 * buffer holds (bpf_ring.c); at each interval's end it turns the kernel's
 * sums into records (bpf_sums.c). Loading and attaching the programs is
 * bpf_load.c's job; the files' split is in source_bpf_impl.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_drain.h"
#include "bpf_labels.h"
#include "bpf_ljvm.h"
#include "bpf_luajit.h"
#include "log.h"
#include "proc_info.h"
#include "source_bpf_impl.h"
#include "source_defaults.h"
#include "util.h"

#include "offcpu.skel.h"
#include "oncpu.skel.h"
#include "syscalls.skel.h"
#include "threads.skel.h"

#define SLOW_PASS_TEST_ENV "THREADTOP_TEST_SLOW_PASS_MS"

static struct bpf_source *to_bpf(struct source *src)
{
	return (struct bpf_source *)src;
}

static int bpf_fd(struct source *src)
{
	return ring_buffer__epoll_fd(to_bpf(src)->rb);
}

static int bpf_ready(struct source *src)
{
	int n = bpf_ring_drain__run(to_bpf(src));

	return n < 0 ? n : 0;
}

/* --- tick: one pass of the thread sampler ---------------------------------- */

/* The per-task sampler: one read of a task iterator (one per process with -p). */
int bpf_source_run_iter(struct bpf_link *link)
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

static int bpf_tick(struct source *src, uint64_t now)
{
	struct bpf_source *bs = to_bpf(src);
	struct tt_tick tick = {0};
	uint64_t start = monotonic_ns();
	int err = 0;

	/* The interval's sums before anything slow (source_clock.ends_interval):
	 * adopting the late programs, the pass, its unwinding. */
	if (src->clock.ends_interval)
		bpf_sums__harvest(bs);
	bpf_late__poll(bs);
	bs->threads->bss->tt_nr_samples = 0;
	bs->threads->bss->tt_pass_ns = start;
	bs->threads->bss->tt_task_order = 0;
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
		int e = bpf_source_run_iter(bs->iters[i]);

		if (e < 0 && !err)
			err = e;
	}
	bpf_ring_drain__run(bs); /* the pass's records, before its tick record */
	if (src->clock.ends_interval && bs->test_slow_pass_ms) {
		/* A test's pass as slow as a loaded box's unwinding makes it, once. */
		nanosleep(&(struct timespec){bs->test_slow_pass_ms / 1000,
					     (long)(bs->test_slow_pass_ms % 1000) * 1000000L},
			  NULL);
		bs->test_slow_pass_ms = 0;
	}
	bpf_thread_info__sweep(bs);
	if (bs->pinfo)
		proc_info__pass(bs->pinfo, start); /* timed as the pass's samples */
	source_strings_age(bs->strings, &src->sink, start, &bs->strings_aged_ns);
	bpf_unwind__end_pass(bs, start);
	source_tick_fill(src, &tick, now, 0, 0, 0);
	tick.nr_threads = bs->threads->bss->tt_nr_samples;
	tick.duration_ns = monotonic_ns() - start;
	sink_emit(&src->sink, &tick.hdr);
	return err;
}

static int bpf_flush(struct source *src, uint64_t now)
{
	struct bpf_source *bs = to_bpf(src);

	bpf_ring_drain__run(bs); /* stacks before the sums that name them */
	bpf_sums__flush(bs, now);
	bpf_unwind__expire(bs);
	return 0;
}

/* --- set-up and tear-down ------------------------------------------------- */

/*
 * For the log: how often the one-pass sampler had to walk the thread list,
 * or how much of the per-task iterator's work the repeats saved.
 */
static void report_passes(struct bpf_source *bs)
{
	if (!bs->threads || !bs->threads->bss)
		return;
	log_info("fd targets: %llu sent, %llu samples named one known, %llu went without "
		 "(ring short or full)",
		 (unsigned long long)bs->threads->bss->tt_fd_sent,
		 (unsigned long long)bs->threads->bss->tt_fd_known,
		 (unsigned long long)bs->threads->bss->tt_fd_skipped);
	if (!bs->one_pass) {
		log_info("thread sampler: the per-task iterator ran %llu times; it sent %llu "
			 "repeats of unchanged threads (%llu of threads asleep and not woken, "
			 "%s) and %llu full samples",
			 (unsigned long long)bs->threads->bss->tt_task_passes,
			 (unsigned long long)bs->threads->bss->tt_repeats_sent,
			 (unsigned long long)bs->threads->bss->tt_unwoken_repeats,
			 bs->wake_links[0] ? "the wakeup hooks ran" : "no wakeup hooks",
			 (unsigned long long)bs->threads->bss->tt_full_sent);
		return;
	}
	if (bs->wake_links[0]) {
		log_info(
			"thread sampler: %llu passes walked the thread list (at the start, every "
			"%u s, or after %llu overruns of a wakeup ring), %llu re-read the %u "
			"threads known, %llu only the blocks of woken threads (%llu blocks sent as "
			"unchanged)",
			(unsigned long long)bs->threads->bss->tt_walks,
			bs->threads->rodata->tt_walk_every_woken / bs->opts.hz,
			(unsigned long long)bs->threads->bss->tt_wake_overruns,
			(unsigned long long)bs->threads->bss->tt_rereads,
			bs->threads->bss->tt_nr_known,
			(unsigned long long)bs->threads->bss->tt_woken_passes,
			(unsigned long long)bs->threads->bss->tt_blocks_same);
		return;
	}
	log_info("thread sampler: %llu passes walked the thread list (a task was created, or "
		 "once a second), %llu re-read the %u threads known",
		 (unsigned long long)bs->threads->bss->tt_walks,
		 (unsigned long long)bs->threads->bss->tt_rereads, bs->threads->bss->tt_nr_known);
}

static void bpf_free(struct source *src)
{
	struct bpf_source *bs = to_bpf(src);

	if (!bs)
		return;
	bpf_late__stop(bs);
	bpf_unwind__report(bs);
	report_passes(bs);
	bpf_load__detach_wakeups(bs);
	bpf_ring__free(bs);
	bpf_unwind__free(bs);
	bpf_ring_drain__close(bs);
	bpf_labels__free(bs->labels);
	bpf_luajit__free(bs->luajit);
	bpf_ljvm__free(bs->ljvm);
	for (size_t i = 0; i < bs->nr_iters; i++)
		bpf_link__destroy(bs->iters[i]);
	free(bs->iters);
	for (int i = 0; i < bs->nr_cpus; i++) {
		/* A perf link owns its event: libbpf closes it with the link. */
		if (bs->perf_links && bs->perf_links[i])
			bpf_link__destroy(bs->perf_links[i]);
		else if (bs->perf_fds && bs->perf_fds[i] >= 0)
			close(bs->perf_fds[i]);
	}
	free(bs->perf_links);
	free(bs->perf_fds);
	bpf_drain__free(bs->sc_drain);
	bpf_drain__free(bs->oc_drain);
	free(bs->held);
	bpf_io__free(bs);
	offcpu_bpf__destroy(bs->offcpu);
	syscalls_bpf__destroy(bs->syscalls);
	oncpu_bpf__destroy(bs->oncpu);
	threads_bpf__destroy(bs->threads);
	threads_bpf__destroy(bs->threads_boot);
	if (bs->stats_fd >= 0)
		close(bs->stats_fd);
	bpf_thread_info__free(bs);
	free(bs->pids);
	free(bs);
}

static int bpf_start(struct source *src, uint64_t now)
{
	(void)now;
	bpf_sums__start(to_bpf(src));
	return 0;
}

static const struct source_ops bpf_ops = {
	.name = "bpf",
	.fd = bpf_fd,
	.tick = bpf_tick,
	.ready = bpf_ready,
	.flush = bpf_flush,
	.start = bpf_start,
	.free = bpf_free,
};

struct source *bpf_source__new(const struct bpf_source_opts *opts, struct event_sink sink,
			       char *err, size_t errlen)
{
	const char *slow;
	struct bpf_source *bs;
	int e;

	e = bpf_load__probe(err, errlen);
	if (e < 0) {
		errno = -e;
		return NULL;
	}
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
	bpf_unwind__init(bs);
	bpf_thread_info__init(bs);
	bs->nr_cpus = libbpf_num_possible_cpus();
	if (bs->nr_cpus <= 0) {
		e = bs->nr_cpus ? bs->nr_cpus : -EINVAL;
		snprintf(err, errlen, "BPF source: cannot count CPUs: %s", strerror(-e));
		goto fail;
	}
	e = bpf_load__all(bs, err, errlen);
	if (!e)
		e = bpf_load__attach(bs, err, errlen);
	if (e)
		goto fail;
	e = bpf_ring_drain__open(bs, bpf_map__fd(bs->threads->maps.tt_events));
	if (e < 0) {
		snprintf(err, errlen, "BPF source: cannot map the ring buffer: %s", strerror(-e));
		goto fail;
	}
	bpf_sums__open(bs);
	bpf_late__start(bs);
	slow = getenv(SLOW_PASS_TEST_ENV);
	bs->test_slow_pass_ms = slow ? (uint32_t)strtoul(slow, NULL, 10) : 0;
	return &bs->base;
fail:
	bpf_free(&bs->base);
	errno = -e;
	return NULL;
}
