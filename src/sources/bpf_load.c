// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading of the BPF source (source_bpf_impl.h): says what the kernel lacks
 * before libbpf tries (the kfuncs of the one-pass thread sampler are looked
 * up in the kernel's BTF, so the sampler that fits loads first time), opens
 * the skeletons of bpf/, sizes and configures their maps and rodata, loads
 * them (the thread sampler first: it owns the shared maps, which the others
 * reuse) and attaches them. libbpf's messages about the object being loaded
 * are kept for the error report (bpf_source__libbpf_log): a failure names the
 * map or program libbpf named, not one of an object loaded before.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf_labels.h"
#include "bpf_ljvm.h"
#include "bpf_luajit.h"
#include "log.h"
#include "source_bpf_impl.h"
#include "util.h"

#include "io.shared.h"
#include "io.skel.h"
#include "offcpu.skel.h"
#include "oncpu.skel.h"
#include "syscalls.skel.h"
#include "threads.shared.h"
#include "threads.skel.h"

#define RINGBUF_BYTES (16u << 20)
#define RINGBUF_TEST_ENV "THREADTOP_TEST_RINGBUF_KB"
#define BOX_THREADS_TEST_ENV "THREADTOP_TEST_BOX_THREADS"
#define WALK_TEST_ENV "THREADTOP_TEST_WALK_EVERY"
/* Set: no wakeup hooks, every pass rereads every thread (benchmarks, tests of that path). */
#define NO_WAKEUPS_TEST_ENV "THREADTOP_TEST_NO_WAKEUPS"
/* Walks of the thread list while the wakeup hooks tell of new threads: one in 30 s. */
#define WALK_WOKEN_SECONDS 30
#define NO_KFUNC_TEST_ENV "THREADTOP_TEST_NO_KFUNC"
/* Set: the thread sampler resolves no fd targets (to measure what they cost). */
#define NO_FD_TARGETS_TEST_ENV "THREADTOP_TEST_NO_FD_TARGETS"
#define STACK_IDS_MAX 65536
/* The model forgets stacks this many ids old (events.h): the set is emptied sooner. */
_Static_assert(STACK_IDS_MAX / 4 * 3 <= TT_STACK_ID_HORIZON, "stack ids outlive the horizon");
#define TRACE_MAP_MAX 32768
#define PID_ITERS_MAX 64 /* -p with more processes walks all tasks, filtered */
#define LIBBPF_LOG_MAX (256 * 1024)

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

/* Before each object: its failure is told from its own messages only. */
static void libbpf_log_reset(void)
{
	libbpf_log[0] = '\0';
	libbpf_log_len = 0;
}

/* The kernel functions the one-pass sampler calls (threads.bpf.c). */
static const char *const one_pass_kfuncs[] = {
	"bpf_iter_task_new", "bpf_iter_task_next", "bpf_iter_task_destroy", "bpf_task_from_pid",
	"bpf_task_acquire",  "bpf_task_release",   "bpf_rcu_read_lock",	    "bpf_rcu_read_unlock",
	"bpf_iter_num_new",  "bpf_iter_num_next",  "bpf_iter_num_destroy",
};

/* Whether THREADTOP_TEST_NO_KFUNC (names, comma-separated) hides kfunc name, for the tests. */
static bool hidden_for_test(const char *name)
{
	const char *s = getenv(NO_KFUNC_TEST_ENV);
	size_t n = strlen(name);

	for (; s && *s; s += strcspn(s, ","), s += *s == ',') {
		if (!strncmp(s, name, n) && (s[n] == ',' || !s[n]))
			return true;
	}
	return false;
}

const char *bpf_load__missing_kfunc(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const char *missing = NULL;

	for (size_t i = 0; i < sizeof(one_pass_kfuncs) / sizeof(one_pass_kfuncs[0]); i++) {
		const char *name = one_pass_kfuncs[i];

		if (hidden_for_test(name) ||
		    (btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) <= 0)) {
			missing = name;
			break;
		}
	}
	btf__free(btf);
	return missing;
}

void bpf_load__note_no_kfunc(const char *name)
{
	log_info("BPF source: this kernel has no kfunc %s (the one-pass thread sampler's, "
		 "Linux 6.7+): threads are sampled by the per-task iterator",
		 name);
}

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

/* skel's map NAME is first's. */
#define REUSE_MAP(skel, first, name) \
	bpf_map__reuse_fd((skel)->maps.name, bpf_map__fd((first)->maps.name))

#define REUSE_SHARED(skel, first) \
	(bpf_map__reuse_fd((skel)->maps.tt_events, bpf_map__fd((first)->maps.tt_events)) ?:  \
	 bpf_map__reuse_fd((skel)->maps.tt_drops, bpf_map__fd((first)->maps.tt_drops)) ?:    \
	 bpf_map__reuse_fd((skel)->maps.tt_tgids, bpf_map__fd((first)->maps.tt_tgids)) ?:    \
	 bpf_map__reuse_fd((skel)->maps.tt_stack_ids,                                        \
			   bpf_map__fd((first)->maps.tt_stack_ids)) ?:                       \
	 bpf_map__reuse_fd((skel)->maps.tt_counters, bpf_map__fd((first)->maps.tt_counters)))

/*
 * The name in the first libbpf message of the form PREFIX NAME' SUFFIX
 * ("map 'tt_events': failed to create"), or NULL.
 */
static const char *named_in_log(const char *prefix, const char *suffix, char *buf, size_t len)
{
	size_t plen = strlen(prefix), n;
	const char *p;

	for (p = strstr(libbpf_log, prefix); p; p = strstr(p + 1, prefix)) {
		n = strcspn(p + plen, "'\n");
		if (p[plen + n] != '\'' || strncmp(p + plen + n + 1, suffix, strlen(suffix)))
			continue;
		if (n >= len)
			n = len - 1;
		memcpy(buf, p + plen, n);
		buf[n] = '\0';
		return buf;
	}
	return NULL;
}

/* What a map costs the kernel, roughly: entries x (key + value), per CPU for per-CPU maps. */
static uint64_t map_bytes(const struct bpf_map *map)
{
	uint64_t entries = bpf_map__max_entries(map);
	uint64_t value = bpf_map__value_size(map);
	int cpus;

	switch (bpf_map__type(map)) {
	case BPF_MAP_TYPE_RINGBUF:
		return entries;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		cpus = libbpf_num_possible_cpus();
		value *= cpus > 0 ? (uint64_t)cpus : 1;
		break;
	default:
		break;
	}
	return entries * (bpf_map__key_size(map) + value);
}

#define MEMORY_HINT                                                                           \
	"BPF memory counts against the memory cgroup's limit (memory.max) and, before Linux " \
	"5.11, ulimit -l (RLIMIT_MEMLOCK)"

/*
 * The one-line error of a failed load of bpf/<object>.bpf.c (obj: its open
 * object, or NULL): the map or the program libbpf's messages name, and why.
 * The log holds that object's messages only (libbpf_log_reset).
 */
static int load_failed(const char *object, const struct bpf_object *obj, int e, char *err,
		       size_t errlen)
{
	const struct bpf_map *map;
	char name[64];

	if (named_in_log("map '", ": failed to create", name, sizeof(name))) {
		map = obj ? bpf_object__find_map_by_name(obj, name) : NULL;
		if (map && (e == ENOMEM || e == EPERM) &&
		    bpf_map__type(map) == BPF_MAP_TYPE_RINGBUF)
			snprintf(
				err, errlen,
				"BPF source: cannot create map %s of bpf/%s.bpf.c (a ring buffer of "
				"%u KiB): %s; " MEMORY_HINT,
				name, object, bpf_map__max_entries(map) >> 10, strerror(e));
		else if (map && (e == ENOMEM || e == EPERM))
			snprintf(err, errlen,
				 "BPF source: cannot create map %s of bpf/%s.bpf.c (%u entries, "
				 "about %" PRIu64 " KiB): %s; " MEMORY_HINT,
				 name, object, bpf_map__max_entries(map),
				 (map_bytes(map) + 1023) / 1024, strerror(e));
		else
			snprintf(err, errlen,
				 "BPF source: cannot create map %s of bpf/%s.bpf.c: %s", name,
				 object, strerror(e));
	} else if (named_in_log("prog '", ": BPF program load failed", name, sizeof(name)) ||
		   named_in_log("prog '", ": failed to load", name, sizeof(name))) {
		if (e == ENOMEM)
			snprintf(
				err, errlen,
				"BPF source: cannot load program %s (bpf/%s.bpf.c): %s; " MEMORY_HINT,
				name, object, strerror(e));
		else if (e == EACCES || e == EINVAL)
			snprintf(err, errlen,
				 "BPF source: the kernel verifier rejected program %s "
				 "(bpf/%s.bpf.c): %s",
				 name, object, strerror(e));
		else if (e == E2BIG) /* "Argument list too long" would say nothing true */
			snprintf(err, errlen,
				 "BPF source: program %s (bpf/%s.bpf.c) is too large for this "
				 "kernel's verifier (past its 1,000,000 instructions checked); "
				 "please report it with the kernel version (uname -r)",
				 name, object);
		else
			snprintf(err, errlen,
				 "BPF source: cannot load program %s (bpf/%s.bpf.c): %s", name,
				 object, strerror(e));
	} else {
		snprintf(err, errlen, "BPF source: cannot load bpf/%s.bpf.c: %s%s", object,
			 strerror(e), e == ENOMEM ? "; " MEMORY_HINT : "");
	}
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

/* A number at the start of /proc/sys/kernel/FILE, or 0. */
static uint64_t kernel_number(const char *file)
{
	char path[64], buf[32];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", file);
	return read_file_at(AT_FDCWD, path, buf, sizeof(buf)) > 0 ? strtoull(buf, NULL, 10) : 0;
}

/*
 * Threads on the box now: the N of "R/N" in /proc/loadavg, or 0; or
 * THREADTOP_TEST_BOX_THREADS, for the test of the maps' sizes (bpf_sizes.sh).
 */
static uint64_t box_threads(void)
{
	const char *test = getenv(BOX_THREADS_TEST_ENV);
	char buf[128], *slash;

	if (test)
		return strtoull(test, NULL, 10);

	if (read_file_at(AT_FDCWD, "/proc/loadavg", buf, sizeof(buf)) <= 0 ||
	    !(slash = strchr(buf, '/')))
		return 0;
	return strtoull(slash + 1, NULL, 10);
}

/* The least power of two >= n, within [lo, hi] (both powers of two). */
static uint32_t pow2_within(uint64_t n, uint32_t lo, uint32_t hi)
{
	uint64_t p = lo;

	while (p < n && p < hi)
		p <<= 1;
	return (uint32_t)p;
}

/*
 * The thread maps follow the box (issue #23): with 100,000 threads, maps
 * sized for 65,536 dropped a third of them from the view. Sized at start
 * from the threads present; a box that grows far past it later loses
 * threads (counted as map_full), never correctness.
 */
static void size_thread_maps(struct bpf_source *bs)
{
	uint64_t threads = box_threads(), pids = kernel_number("pid_max");

	bs->thread_maps = pow2_within(2 * threads, TT_THREAD_MAPS_MIN, TT_THREAD_MAPS_MAX);
	/* tids below pid_max each get a slot when that is not much more than the threads. */
	bs->last_slots =
		pow2_within(pids ? pids : TT_LAST_SLOTS, TT_LAST_SLOTS, TT_THREAD_MAPS_MAX);
	if (bs->last_slots > 4 * bs->thread_maps)
		bs->last_slots = 4 * bs->thread_maps;
}

/*
 * The ring's size: RINGBUF_BYTES, more when one full pass over the threads
 * the maps are sized for would not fit, or THREADTOP_TEST_RINGBUF_KB (a power of two
 * from 4 to 16384) for the tests that must fill it (bpf_drops.sh).
 */
static uint32_t ringbuf_bytes(const struct bpf_source *bs)
{
	const char *s = getenv(RINGBUF_TEST_ENV);
	unsigned long kb;
	char *end;

	if (!s)
		return pow2_within((uint64_t)bs->thread_maps / 2 * sizeof(struct tt_thread_sample),
				   RINGBUF_BYTES, 1u << 28);
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

/* Opens, configures and loads a thread sampler; reuse: the maps of another one to share. */
static int open_threads(const struct bpf_source *bs, bool one_pass, const struct threads_bpf *reuse,
			struct threads_bpf **ret, char *err, size_t errlen)
{
	struct threads_bpf *t;
	int e;

	libbpf_log_reset();
	t = threads_bpf__open();
	if (!t)
		return load_failed("threads", NULL, errno, err, errlen);
	CONFIGURE(t, bs, 1000000u / bs->opts.hz);
	t->rodata->tt_unwind_mode = bs->opts.unwind;
	t->rodata->tt_stack_bytes = bs->opts.stack_bytes;
	t->rodata->tt_fd_targets = !getenv(NO_FD_TARGETS_TEST_ENV);
	/* The block I/O tracer's requests in flight, which D-state samples name (io_wait.bpf.h). */
	t->rodata->tt_io_on = bs->opts.io;
	bpf_map__set_max_entries(t->maps.tt_io_inflight, bs->opts.io ? TT_IO_INFLIGHT_SLOTS : 1);
	bpf_map__set_max_entries(t->maps.tt_io_live, bs->opts.io ? TT_IO_LIVE_MAX : 1);
	bpf_program__set_autoload(t->progs.sample_threads, one_pass);
	bpf_program__set_autoload(t->progs.sample_tasks, !one_pass);
	/* Both samplers have the wakeup hooks: rings for one, marks for the other (woken.bpf.h). */
	t->rodata->tt_wake_marks = !one_pass;
	t->rodata->tt_walk_every = walk_every(bs);
	t->rodata->tt_walk_every_woken =
		getenv(WALK_TEST_ENV) ? walk_every(bs) : bs->opts.hz * WALK_WOKEN_SECONDS;
	t->rodata->tt_nr_cpus = (__u32)bs->nr_cpus;
	if (one_pass && bs->opts.nr_pids && bs->opts.nr_pids <= TT_WALK_PIDS_MAX) {
		for (size_t i = 0; i < bs->opts.nr_pids; i++)
			t->rodata->tt_walk_pids[i] = (__u32)bs->opts.pids[i];
		t->rodata->tt_nr_walk_pids = (__u32)bs->opts.nr_pids;
	}
	bpf_map__set_max_entries(t->maps.tt_last, bs->last_slots);
	bpf_map__set_max_entries(t->maps.tt_woke, one_pass ? 1 : bs->last_slots);
	t->rodata->tt_last_mask = bs->last_slots - 1;
	/* The per-task iterator sorts threads against tt_last too, but keeps no list. */
	bpf_map__set_max_entries(t->maps.tt_known, one_pass ? bs->thread_maps : 1);
	bpf_map__set_max_entries(t->maps.tt_changed, one_pass ? bs->thread_maps : 1);
	bpf_map__set_max_entries(t->maps.tt_known_at, one_pass ? bs->thread_maps : 1);
	bpf_map__set_max_entries(t->maps.tt_blocks,
				 one_pass ? bs->thread_maps / TT_REPEAT_BLOCK : 1);
	t->rodata->tt_known_max = one_pass ? bs->thread_maps : 1;
	/* The two samplers share their fd targets too (one id space, each target
	 * sent once), and the block requests in flight. */
	if (reuse && (e = REUSE_SHARED(t, reuse) ?: REUSE_MAP(t, reuse, tt_fd_ids)
					 ?: REUSE_MAP(t, reuse, tt_fd_next)
					 ?: REUSE_MAP(t, reuse, tt_io_inflight)
					 ?: REUSE_MAP(t, reuse, tt_io_live)) < 0) {
		e = load_failed("threads", t->obj, -e, err, errlen);
		goto destroy;
	}
	if (threads_bpf__load(t)) {
		e = load_failed("threads", t->obj, errno, err, errlen);
		goto destroy;
	}
	*ret = t;
	return 0;
destroy:
	threads_bpf__destroy(t);
	return e;
}

/*
 * The address range of __schedule in /proc/kallsyms: from its address to the
 * next symbol's. The off-CPU tracer cuts its stacks there (offcpu.bpf.c).
 * 0 when not found (no root, kptr_restrict): stacks then keep the tracer's
 * frames, which the symbolizer drops by name.
 */
static void sched_range(uint64_t *ret_lo, uint64_t *ret_hi)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	uint64_t lo = 0, hi = UINT64_MAX, addr;
	char line[512], type, name[256];

	*ret_lo = *ret_hi = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		if (!lo && !strcmp(name, "__schedule"))
			lo = addr;
	}
	if (lo && !fseek(f, 0, SEEK_SET)) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%" SCNx64, &addr) == 1 && addr > lo && addr < hi)
				hi = addr;
	}
	fclose(f);
	if (lo && hi != UINT64_MAX && hi - lo < (1u << 20)) {
		*ret_lo = lo;
		*ret_hi = hi;
	}
}

/*
 * How close a thread sampler came to the kernel's limit of a million
 * instructions checked per program (BPF_COMPLEXITY_LIMIT_INSNS): past it the
 * program does not load, and sample_threads once went past it on one build
 * of a kernel and not on another, costing every run the slower sampler.
 * integration.bpf_load_margin reads this line. Linux 5.16+ counts them.
 */
void bpf_load__log_checked(const struct threads_bpf *t, bool one_pass)
{
	const struct bpf_program *prog = one_pass ? t->progs.sample_threads : t->progs.sample_tasks;
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);

	if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) && info.verified_insns)
		log_info("BPF source: %s passed the kernel's program check in %u instructions "
			 "(its limit: 1000000)",
			 bpf_program__name(prog), info.verified_insns);
}

static int load_threads(struct bpf_source *bs, char *err, size_t errlen)
{
	int e = open_threads(bs, bs->one_pass, NULL, &bs->threads, err, errlen);

	if (!e)
		bpf_load__log_checked(bs->threads, bs->one_pass);
	return e;
}

int bpf_load__one_pass(const struct bpf_source *bs, struct threads_bpf **ret, char *err,
		       size_t errlen)
{
	return open_threads(bs, true, bs->threads, ret, err, errlen);
}

void bpf_load__one_pass_failed(const struct bpf_source *bs, const char *why, const char *log)
{
	char msg[640];

	/* The kernel has its kfuncs, so this is not the expected fallback: a warning. */
	snprintf(msg, sizeof(msg), "%s; the per-task iterator samples threads instead", why);
	if (bs->opts.warn)
		bs->opts.warn(msg);
	if (log && *log && log_file_text(log) < 0)
		log_info("BPF source: rerun with --log FILE to keep libbpf's log of the one-pass "
			 "thread sampler");
}

void bpf_load__note_all(struct bpf_source *bs)
{
	bs->nr_progs = 0;
	note_progs(bs, bs->threads->obj);
	if (bs->oncpu)
		note_progs(bs, bs->oncpu->obj);
	if (bs->ljvm)
		note_progs(bs, bpf_ljvm__object(bs->ljvm));
	if (bs->syscalls)
		note_progs(bs, bs->syscalls->obj);
	if (bs->offcpu)
		note_progs(bs, bs->offcpu->obj);
	if (bs->io)
		note_progs(bs, bs->io->obj);
}

int bpf_load__oncpu(const struct bpf_source *bs, struct oncpu_bpf **ret, char *err, size_t errlen)
{
	unsigned cpu_weight = 1000000u / bs->opts.cpu_hz;
	bool labels_on = bs->opts.labels && bs->opts.labels->nr_defs;
	struct oncpu_bpf *oncpu;
	int e;

	libbpf_log_reset();
	oncpu = oncpu_bpf__open();
	if (!oncpu)
		return load_failed("oncpu", NULL, errno, err, errlen);
	CONFIGURE(oncpu, bs, cpu_weight);
	oncpu->rodata->tt_unwind_mode = bs->opts.unwind;
	oncpu->rodata->tt_stack_bytes = bs->opts.stack_bytes;
	bpf_map__set_max_entries(oncpu->maps.tt_copy_bufs,
				 bs->opts.unwind == TT_UNWIND_FP ? 1 : (__u32)bs->nr_cpus);
	oncpu->rodata->tt_labels_on = labels_on;
	if ((e = REUSE_SHARED(oncpu, bs->threads)) < 0) {
		e = load_failed("oncpu", oncpu->obj, -e, err, errlen);
		goto destroy;
	}
	if (oncpu_bpf__load(oncpu)) {
		e = load_failed("oncpu", oncpu->obj, errno, err, errlen);
		goto destroy;
	}
	*ret = oncpu;
	return 0;
destroy:
	oncpu_bpf__destroy(oncpu);
	return e;
}

struct bpf_ljvm *bpf_load__ljvm(const struct bpf_source *bs, struct oncpu_bpf *oncpu, char *why,
				size_t whylen)
{
	const char *off = getenv("THREADTOP_NO_LJVM");

	*why = 0;
	if (off && !strcmp(off, "1"))
		return NULL; /* asked for: an A/B switch for benchmarks, or a way out */
	return bpf_ljvm__new(bs->threads->obj, bpf_map__fd(oncpu->maps.tt_lj_tail),
			     &(struct bpf_ljvm_opts){
				     .self_pid = bs->opts.self_pid,
				     .filter_tgids = bs->opts.nr_pids > 0,
				     .oncpu_weight_us = 1000000u / bs->opts.cpu_hz,
				     .maps = bs->opts.maps,
				     .warn = bs->opts.warn,
			     },
			     why, whylen);
}

void bpf_load__note_oncpu(struct bpf_source *bs)
{
	note_progs(bs, bs->oncpu->obj);
	if (bs->ljvm)
		note_progs(bs, bpf_ljvm__object(bs->ljvm));
	bs->dwarf_tgids_fd = bpf_map__fd(bs->oncpu->maps.tt_dwarf_tgids);
}

/* Whether the kernel's BTF has tracepoint NAME (for tp_btf), as THREADTOP_TEST_NO_KFUNC allows. */
static bool kernel_has_tracepoint(const char *name)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char type[96];
	bool has;

	snprintf(type, sizeof(type), "btf_trace_%s", name);
	has = btf && !hidden_for_test(name) &&
	      btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return has;
}

/* The last lines libbpf said (the verifier's verdict ends its log), a line each to --log. */
static void log_libbpf_tail(const char *who, int lines)
{
	const char *p = libbpf_log + libbpf_log_len, *end;

	while (p > libbpf_log && lines >= 0)
		if (*--p == '\n')
			lines--;
	for (; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		if (end > p)
			log_info("%s: libbpf: %.*s", who, (int)(end - p), p);
	}
}

/* Says in one line why --io traces nothing; the run goes on without it. */
static void io_unavailable(struct bpf_source *bs, const char *what, int e)
{
	char msg[256];

	/* libbpf's ESRCH: no BTF type btf_trace_block_rq_* (the tracepoints are not there). */
	snprintf(msg, sizeof(msg),
		 "--io: cannot %s tp_btf/block_rq_issue, block_rq_complete (%s): no block I/O "
		 "figures in this run",
		 what, e == ESRCH ? "the kernel has no such tracepoints" : strerror(e));
	if (bs->opts.warn)
		bs->opts.warn(msg);
	log_libbpf_tail("--io", 40);
	bpf_io__free(bs);
}

/* The block I/O tracer: a kernel without its tracepoints (or BTF for them) only warns. */
static void load_io(struct bpf_source *bs)
{
	int e;

	libbpf_log_reset();
	bs->io = io_bpf__open();
	if (!bs->io) {
		io_unavailable(bs, "open", errno);
		return;
	}
	CONFIGURE(bs->io, bs, 0);
	bpf_map__set_max_entries(bs->io->maps.tt_io_stats, TRACE_MAP_MAX);
	bs->io->rodata->tt_unwind_mode = bs->opts.unwind;
	bs->io->rodata->tt_stack_bytes = bs->opts.stack_bytes;
	bpf_map__set_max_entries(bs->io->maps.tt_io_copy_bufs,
				 bs->opts.unwind == TT_UNWIND_FP ? 1 : (__u32)bs->nr_cpus);
	/* block_io_start (6.5+) names who made a request; without it, who issued it. */
	bs->io->rodata->tt_io_made = kernel_has_tracepoint("block_io_start");
	bpf_program__set_autoload(bs->io->progs.io_start, bs->io->rodata->tt_io_made);
	if (!bs->io->rodata->tt_io_made)
		log_info("--io: this kernel has no tracepoint block_io_start (Linux 6.5+): a "
			 "request is counted for the thread that issued it to the driver");
	if ((e = REUSE_SHARED(bs->io, bs->threads) ?: REUSE_MAP(bs->io, bs->threads, tt_io_inflight)
						     ?: REUSE_MAP(bs->io, bs->threads, tt_io_live)) < 0) {
		io_unavailable(bs, "load", -e);
		return;
	}
	if (io_bpf__load(bs->io)) {
		io_unavailable(bs, "load", errno);
		return;
	}
	note_progs(bs, bs->io->obj);
}

int bpf_load__all(struct bpf_source *bs, char *err, size_t errlen)
{
	bool labels_on = bs->opts.labels && bs->opts.labels->nr_defs;
	uint64_t lo, hi;
	int e;

	size_thread_maps(bs);
	bs->ring_bytes = ringbuf_bytes(bs);
	if (bs->thread_maps > TT_THREAD_MAPS_MIN)
		log_info("BPF source: thread maps sized for %u threads: %u tt_last slots, a %u MiB "
			 "ring buffer",
			 bs->thread_maps, bs->last_slots, bs->ring_bytes >> 20);
	/* Nothing loaded later reads the on-CPU sampler's label slots: it may wait. */
	bs->late = bs->opts.defer_optional && !labels_on && !bs->opts.offcpu;
	/*
	 * The one-pass sampler; with -p it walks only those processes' threads.
	 * Deferring, the task iterator samples first (0.44 s in the verifier on a
	 * loaded box, against 1.4 s): the one-pass one replaces it once verified.
	 * A kernel without its kfuncs (before 6.7) gets the task iterator at
	 * once: an expected choice, said once in the log, not a warning.
	 */
	/* Reading the kernel's BTF for it costs 15-60 ms: deferring, bpf_late.c asks. */
	bs->missing_kfunc = bs->late ? NULL : bpf_load__missing_kfunc();
	if (bs->missing_kfunc)
		bpf_load__note_no_kfunc(bs->missing_kfunc);
	bs->one_pass = !bs->late && !bs->missing_kfunc;
	bs->late_one_pass = bs->late;
	/* Short of memory, the per-task iterator would be too: no fallback then. */
	if ((e = load_threads(bs, err, errlen)) < 0 && bs->one_pass && e != -ENOMEM &&
	    e != -EPERM) {
		bpf_load__one_pass_failed(bs, err, libbpf_log);
		bs->one_pass = false;
		e = load_threads(bs, err, errlen);
	}
	if (e < 0)
		return e;
	note_progs(bs, bs->threads->obj);

	if (bs->opts.cpu_hz && !bs->late && (e = bpf_load__oncpu(bs, &bs->oncpu, err, errlen)) < 0)
		return e;
	if (bs->oncpu) {
		char why[256];

		bs->ljvm = bpf_load__ljvm(bs, bs->oncpu, why, sizeof(why));
		if (!bs->ljvm && *why && bs->opts.warn)
			bs->opts.warn(why);
		bpf_load__note_oncpu(bs);
	}
	if (bs->opts.syscalls) {
		libbpf_log_reset();
		bs->syscalls = syscalls_bpf__open();
		if (!bs->syscalls)
			return load_failed("syscalls", NULL, errno, err, errlen);
		CONFIGURE(bs->syscalls, bs, 0);
		bpf_map__set_max_entries(bs->syscalls->maps.tt_sc_stats, TRACE_MAP_MAX);
		if ((e = REUSE_SHARED(bs->syscalls, bs->threads)) < 0)
			return load_failed("syscalls", bs->syscalls->obj, -e, err, errlen);
		if (syscalls_bpf__load(bs->syscalls))
			return load_failed("syscalls", bs->syscalls->obj, errno, err, errlen);
		note_progs(bs, bs->syscalls->obj);
	}
	if (bs->opts.offcpu) {
		libbpf_log_reset();
		bs->offcpu = offcpu_bpf__open();
		if (!bs->offcpu)
			return load_failed("offcpu", NULL, errno, err, errlen);
		CONFIGURE(bs->offcpu, bs, 0);
		bpf_map__set_max_entries(bs->offcpu->maps.tt_oc_agg, TRACE_MAP_MAX);
		bs->offcpu->rodata->tt_labels_on = labels_on;
		bs->offcpu->rodata->tt_unwind_mode = bs->opts.unwind;
		bs->offcpu->rodata->tt_stack_bytes = bs->opts.stack_bytes;
		bpf_map__set_max_entries(bs->offcpu->maps.tt_oc_copy_bufs,
					 bs->opts.unwind == TT_UNWIND_FP ? 1 : (__u32)bs->nr_cpus);
		sched_range(&lo, &hi);
		bs->offcpu->rodata->tt_sched_lo = lo;
		bs->offcpu->rodata->tt_sched_hi = hi;
		if ((e = REUSE_SHARED(bs->offcpu, bs->threads)) < 0 ||
		    (bs->oncpu &&
		     (e = bpf_map__reuse_fd(bs->offcpu->maps.tt_labels,
					    bpf_map__fd(bs->oncpu->maps.tt_labels))) < 0))
			return load_failed("offcpu", bs->offcpu->obj, -e, err, errlen);
		if (offcpu_bpf__load(bs->offcpu))
			return load_failed("offcpu", bs->offcpu->obj, errno, err, errlen);
		note_progs(bs, bs->offcpu->obj);
	}
	if (bs->opts.io)
		load_io(bs);
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

/*
 * The on-CPU sampler's events, one CPU clock per CPU, opened disabled (the
 * attach enables them). Opened while threadtop still has all its
 * privileges: Debian's kernels (perf_event_paranoid 3, their
 * SECURITY_PERF_EVENTS_RESTRICT patch) refuse perf_event_open without
 * CAP_SYS_ADMIN, which is dropped once the sources are set up, before a
 * deferred on-CPU sampler (the TUI's) is attached. On failure the message is
 * in err and kept for the attach (bs->perf_open_err).
 */
int bpf_load__open_perf(struct bpf_source *bs, char *err, size_t errlen)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = bs->opts.cpu_hz,
		.freq = 1,
		.disabled = 1,
	};

	bs->perf_links = xcalloc((size_t)bs->nr_cpus, sizeof(*bs->perf_links));
	bs->perf_fds = xmalloc((size_t)bs->nr_cpus * sizeof(int));
	for (int cpu = 0; cpu < bs->nr_cpus; cpu++)
		bs->perf_fds[cpu] = -1;
	for (int cpu = 0; cpu < bs->nr_cpus; cpu++) {
		int fd =
			(int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0 && errno == ENODEV)
			continue; /* offline CPU */
		if (fd < 0) {
			bs->perf_open_e = -errno;
			snprintf(bs->perf_open_err, sizeof(bs->perf_open_err),
				 "BPF source: perf_event_open (CPU clock, CPU %d): %s; "
				 "use --cpu-hz 0 to go without on-CPU stacks",
				 cpu, strerror(-bs->perf_open_e));
			snprintf(err, errlen, "%s", bs->perf_open_err);
			return bs->perf_open_e;
		}
		bs->perf_fds[cpu] = fd;
	}
	return 0;
}

/* Attaches the on-CPU sampler to its events (opened now unless they were). */
int bpf_load__attach_perf(struct bpf_source *bs, char *err, size_t errlen)
{
	int attached = 0, e;

	if (bs->perf_open_e) {
		snprintf(err, errlen, "%s", bs->perf_open_err);
		return bs->perf_open_e;
	}
	if (!bs->perf_fds && (e = bpf_load__open_perf(bs, err, errlen)) < 0)
		return e;
	for (int cpu = 0; cpu < bs->nr_cpus; cpu++) {
		int fd = bs->perf_fds[cpu];

		if (fd < 0)
			continue;
		bs->perf_links[cpu] =
			bpf_program__attach_perf_event(bs->oncpu->progs.sample_cpu, fd);
		if (!bs->perf_links[cpu]) {
			e = -errno;
			snprintf(err, errlen, "BPF source: cannot attach the on-CPU sampler: %s",
				 strerror(-e));
			return e;
		}
		attached++;
	}
	return attached ? 0 : -ENODEV;
}

/*
 * The block I/O tracer, completions first: a request made or issued while
 * its completion went unwatched would hold its slot (and, for a D-state
 * sample of its maker, pass for in flight) until its address came again.
 * Sets errno on failure.
 */
static int attach_io(struct io_bpf *io)
{
	io->links.io_complete = bpf_program__attach(io->progs.io_complete);
	if (!io->links.io_complete)
		return -1;
	io->links.io_issue = bpf_program__attach(io->progs.io_issue);
	if (!io->links.io_issue)
		return -1;
	if (io->rodata->tt_io_made) {
		io->links.io_start = bpf_program__attach(io->progs.io_start);
		if (!io->links.io_start)
			return -1;
	}
	return 0;
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
	if (bs->io && attach_io(bs->io) < 0) {
		io_unavailable(bs, "attach", errno);
		bpf_load__note_all(bs); /* without the programs just freed */
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

int bpf_load__probe(char *err, size_t errlen)
{
	int e;

	libbpf_log[0] = '\0';
	libbpf_log_len = 0;
	e = probe(err, errlen);
	if (e < 0)
		return e;
	libbpf_set_print(capture_libbpf);
	return 0;
}

/*
 * The thread sampler's wakeup hooks (woken.bpf.h): with them a pass of the
 * one-pass sampler rechecks only the threads woken since the last, and the
 * per-task iterator reads no more of a thread asleep and unwoken than its
 * tid. Without (a kernel that refuses them, or THREADTOP_TEST_NO_WAKEUPS),
 * every pass rereads every thread, as it can: said once in the log.
 */
void bpf_load__attach_wakeups(struct bpf_source *bs)
{
	struct threads_bpf *t = bs->threads;
	int e;

	if (bs->wake_links[0])
		return;
	if (getenv(NO_WAKEUPS_TEST_ENV)) {
		log_info("BPF source: " NO_WAKEUPS_TEST_ENV
			 " set: every pass rereads every thread");
		return;
	}
	bs->wake_links[0] = bpf_program__attach(t->progs.note_wakeup);
	e = errno;
	if (bs->wake_links[0]) {
		bs->wake_links[1] = bpf_program__attach(t->progs.note_wakeup_new);
		e = errno;
	}
	if (!bs->wake_links[1]) {
		bpf_link__destroy(bs->wake_links[0]);
		bs->wake_links[0] = NULL;
		log_info(
			"BPF source: cannot attach the sched_wakeup hooks (%s): every pass rereads "
			"every thread",
			strerror(e));
		return;
	}
	t->bss->tt_wakeups_live = true;
	t->bss->tt_walk_now = 1; /* what woke before the hooks: a walk sees it */
}

void bpf_load__detach_wakeups(struct bpf_source *bs)
{
	for (size_t i = 0; i < 2; i++) {
		bpf_link__destroy(bs->wake_links[i]);
		bs->wake_links[i] = NULL;
	}
}

int bpf_load__attach(struct bpf_source *bs, char *err, size_t errlen)
{
	const struct bpf_source_opts *opts = &bs->opts;
	int e = attach_iters(bs, err, errlen);

	if (!e)
		bpf_load__attach_wakeups(bs);
	if (!e && opts->labels && opts->labels->nr_defs) {
		char why[256];

		bs->labels = bpf_labels__new(opts->labels, bs->threads->obj, labels_map_fd(bs),
					     opts->self_pid, opts->nr_pids > 0, opts->warn, why,
					     sizeof(why));
		if (!bs->labels && opts->warn)
			opts->warn(why);
	}
	if (!e && !bs->late) { /* LuaJIT samples are a bonus: say why they are missing, go on */
		char why[PATH_MAX + 160];

		bs->luajit = bpf_luajit__new(bs->threads->obj, opts->self_pid, opts->nr_pids > 0,
					     why, sizeof(why));
		if (!bs->luajit && opts->warn)
			opts->warn(why);
	}
	if (!e && bs->oncpu)
		e = bpf_load__attach_perf(bs, err, errlen);
	else if (!e && bs->late && bs->opts.cpu_hz) {
		char why[256];

		/* Now, with the privileges it needs; attached when verified (bpf_late.c). */
		bpf_load__open_perf(bs, why, sizeof(why));
	}
	if (!e)
		e = attach_tracing(bs, err, errlen);
	return e;
}
