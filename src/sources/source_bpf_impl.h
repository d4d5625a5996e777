/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the files of the BPF source (source_bpf.h) share: struct bpf_source
 * and the functions each file has for the others, named for their file.
 *   source_bpf.c       the source's operations (tick, flush), set-up, tear-down
 *   bpf_load.c         probing, opening, sizing, loading, attaching the programs
 *   bpf_ring.c         the ring-buffer demultiplexer: kernel records into events
 *   bpf_ring_drain.c   the ring buffer, read in drains of what it held when each began
 *   bpf_thread_info.c  what the model was told of each thread: its command line
 *   bpf_unwind.c       DWARF unwinding of stack copies, within its CPU budget
 *   bpf_sums.c         the kernel's sums and counters, as records at each flush
 *   bpf_targets.c      the thread sampler's fd targets: kernel ids into strings
 *   bpf_ljvm.c         agentless LuaJIT: Lua stacks of unmodified VMs (bpf_ljvm.h)
 * Internal to the BPF source.
 */
#ifndef THREADTOP_SOURCE_BPF_IMPL_H
#define THREADTOP_SOURCE_BPF_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source_bpf.h"
#include "threadtop/events.h"
#include "threadtop/source.h"

#define IO_NAMES_MAX 64 /* block devices named by bpf_io.c */
#define MAX_PROGS 24	/* programs whose run time is reported (--bpf-stats) */
#define SWEEP_EVERY 64	/* passes between checks of the repeated threads */

struct bpf_drain;
struct bpf_labels;
struct bpf_link;
struct bpf_luajit;
struct bpf_ljvm;
struct offcpu_bpf;
struct oncpu_bpf;
struct ring_buffer;
struct strtab;
struct syscalls_bpf;
struct io_bpf;
struct threads_bpf;
struct u64map;
struct unwinder;

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
	int *pids;	      /* the copy opts.pids points to */
	uint32_t ring_bytes;  /* of the shared ring buffer (bpf_load.c) */
	uint32_t thread_maps; /* entries of tt_known and tt_changed (bpf_load.c) */
	uint32_t last_slots;  /* of tt_last, a power of two */
	struct threads_bpf *threads;
	struct oncpu_bpf *oncpu;
	struct syscalls_bpf *syscalls;
	struct offcpu_bpf *offcpu;
	struct io_bpf *io; /* --io, NULL when not asked or the kernel cannot (bpf_io.c) */
	struct bpf_link **iters;
	size_t nr_iters;
	struct bpf_labels *labels;
	struct bpf_luajit *luajit; /* LuaJIT samples (bpf_luajit.c), NULL = none */
	struct bpf_ljvm *ljvm;	   /* agentless LuaJIT (bpf_ljvm.c), NULL = none */
	struct bpf_link **perf_links;
	int *perf_fds;		 /* -1: an offline CPU */
	int perf_open_e;	 /* why they could not be opened: -errno, 0 = they were */
	char perf_open_err[256]; /* and what to say */
	int nr_cpus;
	struct ring_buffer *rb;
	/* The ring's consumer and producer positions, a page each, read-only (bpf_ring_drain.c). */
	const unsigned long *ring_pos;
	size_t ring_page;
	unsigned long drain_end; /* the producer's position when the drain began */
	uint64_t drained;	 /* records the drain forwarded */
	int stats_fd;
	/* The interval's sums (bpf_sums.c). */
	struct bpf_drain *sc_drain, *oc_drain, *io_drain;
	/* Block devices named so far (bpf_io.c), dev_t -> name; full, slots are reused. */
	struct io_devname {
		uint32_t dev;
		char name[TT_IO_DISK_LEN];
	} io_names[IO_NAMES_MAX];
	uint32_t nr_io_names;
	struct prog_snap progs[MAX_PROGS];
	int nr_progs;
	uint64_t drops_prev[TT_DROP_MAX];
	uint64_t user_drops[TT_DROP_MAX];
	/* Thread info (command lines) for threads new to the model (bpf_thread_info.c). */
	struct strtab *strings;
	uint64_t strings_aged_ns; /* source_strings_age's */
	struct u64map *seen;
	uint32_t generation;
	bool sums_baseline; /* bpf_sums__start: drains take the sums as they are, send nothing */
	/* bpf_sums__harvest: the sums read at a pass's start, held until the flush. */
	bool sums_holding, sums_harvested;
	/* THREADTOP_TEST_SLOW_PASS_MS: the first pass that ends an interval
	 * sleeps this long after its records (tests of harvest timing). */
	uint32_t test_slow_pass_ms;
	unsigned char *held;
	size_t held_len, held_cap;
	bool one_pass; /* sample_threads (one run per pass) is loaded, else sample_tasks */
	const char
		*missing_kfunc; /* a kfunc of sample_threads the kernel lacks (static), or NULL */
	int cmdline_pid;
	uint32_t cmdline_id;
	int proc_fd;		 /* /proc, for the process records */
	struct proc_info *pinfo; /* process records (proc_info.c) */
	/* DWARF unwinding of stack copies (--unwind dwarf|auto, bpf_unwind.c). */
	struct unwinder *unwinder;
	struct u64map *ustacks; /* hash of (pid, frames) -> struct ustack */
	uint32_t next_ustack_id;
	struct u64map *pending; /* tid -> unwound stack id of its coming sample (1 = none) */
	uint64_t copies_capped; /* threads off CPU left to frame pointers by the per-pass cap */
	int dwarf_tgids_fd;	/* auto: processes to copy stacks of on every sample */
	/* The unwinding budget: CPU spent unwinding in the current second. */
	uint64_t budget_start_ns, budget_used_ns;
	uint64_t budget_seconds; /* budgets given (seconds begun), for the exit line */
	uint64_t unwind_spent_ns, unwind_max_ns; /* in all, and the longest unwind */
	uint64_t over_budget; /* copies left unwound because the budget was spent */
	bool copies_paused;
	/* The optional programs, loaded in the background (bpf_late.c). */
	bool late;	    /* they are (or were) */
	bool late_one_pass; /* the one-pass sampler is among them (replacing the iterator) */
	struct threads_bpf *threads_boot; /* the iterator sampler it replaced: owns the ring */
	struct bpf_late *late_load;	  /* the loading thread, NULL = none running */
	/* --offcpu: blocking-site key (tt_offcpu_site.site) -> its unwound user stack id. */
	struct u64map *oc_sites;
	/* The wakeup hooks of the one-pass sampler (woken.bpf.h), NULL = not attached. */
	struct bpf_link *wake_links[2];
	/* Per block of its order, its last repeat record, for TT_EV_THREAD_SAME (bpf_ring.c). */
	struct kept_block *kept;
	uint32_t nr_kept;
	/* The thread sampler's fd targets: kernel id -> struct fd_text (bpf_targets.c). */
	struct u64map *fd_texts;
};

/*
 * bpf_targets.c. A TT_EV_FD_TARGET record (size bytes) of the thread sampler:
 * its text is kept under its kernel id (a record that does not check out is
 * counted, dropped). Translating a sample from the kernel replaces that id
 * in syscall_target_id by a TT_EV_STRING id of the text (sent when new), 0
 * when unknown. Touching a kept sample's string keeps it from being retired
 * while the thread is repeated; false when it was retired.
 */
void bpf_targets__on_record(struct bpf_source *bs, const struct tt_event_header *ev, size_t size);
void bpf_targets__translate(struct bpf_source *bs, struct tt_thread_sample *s);
bool bpf_targets__touch(struct bpf_source *bs, const struct tt_thread_sample *s, uint64_t now_ns);
void bpf_targets__free(struct bpf_source *bs);

/* bpf_ring.c: the kept repeat records of the blocks. */
void bpf_ring__free(struct bpf_source *bs);

/* bpf_load.c. Each returns 0, or negative errno with a one-line reason in err. */
/* source_bpf.c: one run of a task iterator (a create, a read to the end). 0 or -errno. */
int bpf_source_run_iter(struct bpf_link *link);
/* Whether BPF can work here (root, BTF); starts capturing libbpf's messages. */
int bpf_load__probe(char *err, size_t errlen);
/* Opens, sizes, configures and loads the programs bs->opts asks for. */
int bpf_load__all(struct bpf_source *bs, char *err, size_t errlen);
/* Attaches them; the label probes and LuaJIT samples only warn when they fail. */
int bpf_load__attach(struct bpf_source *bs, char *err, size_t errlen);
/* The one-pass sampler's wakeup hooks: attached when it is, logged when they cannot be. */
void bpf_load__attach_wakeups(struct bpf_source *bs);
void bpf_load__detach_wakeups(struct bpf_source *bs);
/* The on-CPU sampler: loads it into bs->oncpu (any thread); notes its
 * programs and maps (the loop's thread); attaches it to every CPU. */
int bpf_load__oncpu(const struct bpf_source *bs, struct oncpu_bpf **ret, char *err, size_t errlen);
/*
 * The agentless LuaJIT unwinder chained to oncpu (bpf_ljvm.h), or NULL with
 * why it is not there in why (nothing when THREADTOP_NO_LJVM=1 says so).
 */
struct bpf_ljvm *bpf_load__ljvm(const struct bpf_source *bs, struct oncpu_bpf *oncpu, char *why,
				size_t whylen);
void bpf_load__note_oncpu(struct bpf_source *bs);
/* The one-pass thread sampler, sharing bs->threads' maps (any thread). */
int bpf_load__one_pass(const struct bpf_source *bs, struct threads_bpf **ret, char *err,
		       size_t errlen);
/*
 * Says why the one-pass sampler did not load on a kernel that has its kfuncs
 * (why: its error; log: libbpf's messages about it, to the log file).
 */
void bpf_load__one_pass_failed(const struct bpf_source *bs, const char *why, const char *log);
/*
 * The first kfunc of the one-pass sampler the kernel's BTF lacks (static
 * storage), or NULL: all there, or no BTF to ask (the verifier decides).
 * THREADTOP_TEST_NO_KFUNC=NAME[,NAME...] makes it report those missing.
 */
const char *bpf_load__missing_kfunc(void);
/*
 * Says in the log how many instructions the kernel checked to load t's
 * thread sampler (the loop's thread: the log is not shared with others).
 */
void bpf_load__log_checked(const struct threads_bpf *t, bool one_pass);
/* Says in the log that the kernel lacks kfunc name: the per-task iterator samples. */
void bpf_load__note_no_kfunc(const char *name);
/* Notes the programs of every loaded object again (the thread sampler changed). */
void bpf_load__note_all(struct bpf_source *bs);
int bpf_load__open_perf(struct bpf_source *bs, char *err, size_t errlen);
int bpf_load__attach_perf(struct bpf_source *bs, char *err, size_t errlen);

/*
 * bpf_late.c: with bs->late, the programs that first data does not need
 * (the on-CPU sampler, the LuaJIT probe) are verified on a thread of their
 * own while the loop samples threads, and attached by the loop when done.
 */
/* Starts the thread (after the thread sampler is attached). Returns 0 or -errno. */
int bpf_late__start(struct bpf_source *bs);
/* At each pass: attaches what the thread finished loading; warns what failed. */
void bpf_late__poll(struct bpf_source *bs);
/* Waits for the thread (the source is being freed). */
void bpf_late__stop(struct bpf_source *bs);

/* bpf_ring.c: the ring buffer's callback (ctx is the source). */
int bpf_ring__on_record(void *ctx, void *data, size_t size);

/*
 * bpf_ring_drain.c. Open maps the ring buffer of map_fd (bs->rb and the
 * positions): 0 or -errno. A drain forwards (bpf_ring__on_record) the records
 * the ring held when it began, none written after: it returns how many, or
 * -errno. Close accepts what open did not make.
 */
int bpf_ring_drain__open(struct bpf_source *bs, int map_fd);
int bpf_ring_drain__run(struct bpf_source *bs);
void bpf_ring_drain__close(struct bpf_source *bs);

/* bpf_thread_info.c */
void bpf_thread_info__init(struct bpf_source *bs);
/* Remembers s; a thread new to the model is announced with its command line first. */
void bpf_thread_info__note(struct bpf_source *bs, const struct tt_thread_sample *s);
/* At a pass's end: forgets the threads the last passes did not see. */
void bpf_thread_info__sweep(struct bpf_source *bs);
void bpf_thread_info__free(struct bpf_source *bs);

/* bpf_unwind.c: all do nothing unless --unwind is dwarf or auto. */
void bpf_unwind__init(struct bpf_source *bs);
/* The id of the stack unwound from copy, 0 = keep the frame-pointer one. */
uint32_t bpf_unwind__copy(struct bpf_source *bs, const struct tt_stack_copy *copy);
/* A blocking site's copy: unwound now, its stack kept for the site's key. */
void bpf_unwind__site(struct bpf_source *bs, const struct tt_offcpu_site *site,
		      const struct tt_stack_copy *copy);
/* The unwound user stack of a blocking site's key, or fp_ustack_id. */
uint32_t bpf_unwind__site_stack(const struct bpf_source *bs, uint64_t site, uint32_t fp_ustack_id);
/* At a pass's end (now: its start): forgets its copies, paces the next. */
void bpf_unwind__end_pass(struct bpf_source *bs, uint64_t now);
/* At each flush: forgets the processes not seen for a while. */
void bpf_unwind__expire(struct bpf_source *bs);
/* One line on how unwinding went, to opts.warn. */
void bpf_unwind__report(struct bpf_source *bs);
void bpf_unwind__free(struct bpf_source *bs);

/* bpf_io.c: the block I/O tracer's sums (--io), drained by bpf_sums.c. */
void bpf_io__open(struct bpf_source *bs);
void bpf_io__drain(struct bpf_source *bs);
/* A TT_EV_IO_WAIT from the thread sampler, its device named, to the sink. */
void bpf_io__on_wait(struct bpf_source *bs, const struct tt_io_wait *w);
void bpf_io__free(struct bpf_source *bs);
/* The DEVNAME of a uevent file's text into out (NUL-padded): its length, or -errno. */
int io_devname_parse(const char *uevent, char *out, size_t cap);

/* bpf_sums.c */
/* After loading: the drains of the tracers' sums, run-time statistics on request. */
void bpf_sums__open(struct bpf_source *bs);
/*
 * At the start of a pass that ends an interval (source_clock.ends_interval):
 * the tracers' sums are read now, where the pass's samples are taken, and
 * held, to be sent by the flush after the pass's records.
 */
void bpf_sums__harvest(struct bpf_source *bs);
/* A sums record: to the sink, or held while harvesting. */
void bpf_sums__emit(struct bpf_source *bs, const struct tt_event_header *hdr);
/* The sums (as harvested, or read now), program run times and drops of the interval as records. */
void bpf_sums__flush(struct bpf_source *bs, uint64_t now);
/* The clock starts: the tracers' sums so far become the baseline, sent to no interval. */
void bpf_sums__start(struct bpf_source *bs);

#endif /* THREADTOP_SOURCE_BPF_IMPL_H */
