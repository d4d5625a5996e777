// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF source's optional programs, loaded in the background (see
 * source_bpf_impl.h). On a loaded 2-CPU box the kernel verifier took 1.4 s
 * for the one-pass thread sampler and about a second more for the on-CPU
 * sampler and the LuaJIT probe, all before the TUI's first rows. The task
 * iterator sampler (0.44 s to verify) gives the first data alone, so the
 * others are verified on a thread of their own while the loop samples, and
 * the loop switches to them at the first pass after they are ready.
 *
 * The thread touches nothing the loop uses: it reads the source's options
 * and the thread sampler's object (to reuse its maps) and writes only its
 * own struct; the loop takes the results after seeing done. It holds the
 * capabilities the loop's thread had when it started (they are per thread),
 * and ends when loading does.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf_ljvm.h"
#include "bpf_luajit.h"
#include "log.h"
#include "source_bpf_impl.h"
#include "util.h"

#include "oncpu.skel.h"
#include "threads.skel.h"

struct bpf_late {
	pthread_t thread;
	atomic_bool done;
	bool joined;		     /* no thread ran: nothing to join */
	const struct bpf_source *bs; /* read only, by the thread */
	/* Results, the loop's once done is set. */
	struct threads_bpf *one_pass;
	const char *missing_kfunc; /* a kfunc the one-pass sampler needs and the kernel lacks */
	char one_pass_why[512];
	char *one_pass_log; /* libbpf's messages about it when it failed, or NULL */
	struct oncpu_bpf *oncpu;
	int oncpu_err;
	char oncpu_why[512];
	struct bpf_luajit *luajit;
	char luajit_why[PATH_MAX + 160];
	struct bpf_ljvm *ljvm;
	char ljvm_why[256];
	uint64_t start_ns, end_ns;
};

static void *late_main(void *arg)
{
	struct bpf_late *l = arg;
	const struct bpf_source *bs = l->bs;

	/* No hurry here: not the raised priority of the start-up it was created in. */
	errno = 0;
	if (getpriority(PRIO_PROCESS, 0) < 0 && !errno)
		setpriority(PRIO_PROCESS, 0, 0);

	/* The kernel's BTF is asked here, off the first data's path (15-60 ms of it). */
	if (bs->late_one_pass)
		l->missing_kfunc = bpf_load__missing_kfunc();
	if (bs->late_one_pass && !l->missing_kfunc &&
	    bpf_load__one_pass(bs, &l->one_pass, l->one_pass_why, sizeof(l->one_pass_why)) < 0)
		l->one_pass_log = xstrdup(bpf_source__libbpf_log()); /* the next load resets it */
	if (bs->opts.cpu_hz)
		l->oncpu_err = bpf_load__oncpu(bs, &l->oncpu, l->oncpu_why, sizeof(l->oncpu_why));
	if (l->oncpu)
		l->ljvm = bpf_load__ljvm(bs, l->oncpu, l->ljvm_why, sizeof(l->ljvm_why));
	l->luajit = bpf_luajit__new(bs->threads->obj, bs->opts.self_pid, bs->opts.nr_pids > 0,
				    l->luajit_why, sizeof(l->luajit_why));
	l->end_ns = monotonic_ns();
	atomic_store(&l->done, true);
	return NULL;
}

int bpf_late__start(struct bpf_source *bs)
{
	struct bpf_late *l;
	int e;

	if (!bs->late)
		return 0;
	l = xcalloc(1, sizeof(*l));
	l->bs = bs;
	l->start_ns = monotonic_ns();
	atomic_init(&l->done, false);
	e = thread_start_quiet(&l->thread, late_main, l);
	bs->late_load = l;
	if (e) { /* no thread: load them now, the first pass attaches them */
		late_main(l);
		l->joined = true;
	}
	return 0;
}

static void warn(const struct bpf_source *bs, const char *msg)
{
	if (bs->opts.warn)
		bs->opts.warn(msg);
}

/*
 * At a pass's start: the one-pass sampler takes over from the task
 * iterator. The iterator's object stays (its maps, the ring buffer's
 * first of all, are shared); its links go, so it no longer runs.
 */
static void switch_to_one_pass(struct bpf_source *bs, struct threads_bpf *one_pass)
{
	bpf_ring_drain__run(bs); /* the iterator's last records first */
	for (size_t i = 0; i < bs->nr_iters; i++)
		bpf_link__destroy(bs->iters[i]);
	free(bs->iters);
	bs->iters = NULL;
	bs->nr_iters = 0;
	one_pass->bss->tt_copies_paused = bs->threads->bss->tt_copies_paused;
	bs->threads_boot = bs->threads;
	bs->threads = one_pass;
	bs->one_pass = true;
	bpf_load__note_all(bs);
	bpf_load__detach_wakeups(bs); /* the iterator's */
	bpf_load__attach_wakeups(bs);
}

void bpf_late__poll(struct bpf_source *bs)
{
	struct bpf_late *l = bs->late_load;
	char err[256];

	if (!l || !atomic_load(&l->done))
		return;
	if (!l->joined)
		pthread_join(l->thread, NULL);
	bs->late_load = NULL;
	if (l->missing_kfunc) {
		bs->missing_kfunc = l->missing_kfunc;
		bpf_load__note_no_kfunc(bs->missing_kfunc); /* the expected fallback: no warning */
	} else if (l->one_pass) {
		bpf_load__log_checked(l->one_pass, true);
		switch_to_one_pass(bs, l->one_pass);
	} else if (bs->late_one_pass) {
		bpf_load__one_pass_failed(bs, l->one_pass_why, l->one_pass_log);
	}
	free(l->one_pass_log);
	bs->luajit = l->luajit;
	if (!bs->luajit)
		warn(bs, l->luajit_why);
	if (l->oncpu) {
		bs->oncpu = l->oncpu;
		bs->ljvm = l->ljvm;
		if (!bs->ljvm && *l->ljvm_why)
			warn(bs, l->ljvm_why);
		bpf_load__note_oncpu(bs);
		if (bpf_load__attach_perf(bs, err, sizeof(err)) < 0) {
			char msg[640];

			snprintf(msg, sizeof(msg), "%s: no on-CPU stacks in this run", err);
			warn(bs, msg);
		}
	} else if (bs->opts.cpu_hz) {
		char msg[640];

		snprintf(msg, sizeof(msg),
			 "%s: no on-CPU stacks in this run (--cpu-hz 0 says so "
			 "at start)",
			 l->oncpu_why);
		warn(bs, msg);
	}
	log_info("start-up: the on-CPU sampler and LuaJIT probe were verified in the background "
		 "in %.0f ms",
		 (double)(l->end_ns - l->start_ns) / 1e6);
	free(l);
}

void bpf_late__stop(struct bpf_source *bs)
{
	struct bpf_late *l = bs->late_load;

	if (!l)
		return;
	if (!l->joined)
		pthread_join(l->thread, NULL);
	bs->late_load = NULL;
	threads_bpf__destroy(l->one_pass);
	free(l->one_pass_log);
	bpf_ljvm__free(l->ljvm); /* first: its program is in oncpu's tail-call slot */
	oncpu_bpf__destroy(l->oncpu);
	bpf_luajit__free(l->luajit);
	free(l);
}
