// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /proc thread sampler (see source_proc.h). Every read is bounded and a
 * thread that vanishes between the directory scan and its reads is counted
 * as a drop, never an error: processes exit all the time.
 *
 * What it costs decides what it reads. A pass first reads each process's
 * CPU clock (one clock_gettime: the kernel sums its threads' run time, a
 * hundredth of the cost of reading one file per thread): a process whose
 * sum has not moved since a pass that found all its threads asleep has had
 * no thread run, so none can have changed where it sleeps, nor started or
 * ended a thread. Its threads' last samples are sent again, nothing read.
 * In the other processes, each thread's schedstat is read (three numbers,
 * through an fd kept open: the cheapest file /proc has per thread); a
 * thread whose run time and run count have not moved since a pass that
 * found it asleep, and whose stat still says so, is asleep in the same
 * place: its last sample is sent again without reading syscall or wchan,
 * and after a second of that without reading stat either
 * (long_sleep_passes says why not at once).
 * Neither clock tells a thread woken but still waiting for a CPU from one
 * asleep (they move when it runs), nor one put on a CPU since the last
 * scheduler tick: only stat says R. So the threads sent again unread are
 * kept to the end of the pass, and checked against the box's count of
 * runnable threads (/proc/loadavg): when it has more than the pass found,
 * the stat of a share of them is read, in turn, until the missing ones are
 * found (settle_deferred); stat alone, as nothing else can have moved.
 * Every per-thread file is read through an fd kept open (struct
 * seen_thread), within a bound on fds, as a pread costs half of an openat,
 * a read and a close.
 * Each pass's own CPU time is measured; when passes at -F would spend more
 * than the budget (--proc-budget, % of one core), the source takes every
 * n-th tick instead, says so in its ticks (target period, ticks missed) and
 * once in the log, and goes back up when passes get cheaper.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fd_target.h"
#include "proc_info.h"
#include "proc_targets.h"
#include "procfs.h"
#include "source_defaults.h"
#include "source_proc.h"
#include "strtab.h"
#include "u64map.h"
#include "util.h"

#define CMDLINE_MAX 4096
#define FDS_RESERVED 256    /* of RLIMIT_NOFILE, for everything but the kept fds */
#define FDS_MAX 16384	    /* per-thread and task directory fds kept open at most */
#define COST_EWMA_SHIFT 2   /* the pass cost estimate moves 1/4 of the way each pass */
#define RAISE_MARGIN_PCT 90 /* a faster rate must fit in 90% of the budget */
#define RESCAN_MIN_PASSES 4 /* lists are read again after a second, and 4 passes at least */
#define QUEUE_MAX 4096	    /* full samples held back to the pass's end at most */

/*
 * A thread's files read through fds kept open (a pread, not an openat, a
 * read and a close: half the cost). schedstat and stat while the thread is
 * known; syscall and wchan while it is read in full, closed once it is held
 * (deferred). Each costs the kernel a page once read (the seq_file buffer).
 */
enum kept_file { KEPT_SCHEDSTAT, KEPT_STAT, KEPT_SYSCALL, KEPT_WCHAN, NR_KEPT };

static const char *const kept_names[NR_KEPT] = {"schedstat", "stat", "syscall", "wchan"};

/* What the source last told the model about a thread. */
struct seen_thread {
	uint64_t start_ticks;
	char comm[TT_COMM_LEN];
	uint32_t generation; /* tick that last saw it */
	int fd[NR_KEPT];     /* kept open; -1 = none (opened per read past max_fds) */
	/* Its schedstat at the last pass: time on a CPU (ns) and times it ran. */
	uint64_t run_ns, pcount;
	/* Passes since it last ran that found it in the same sleep (stat read). */
	unsigned asleep;
	bool have_last; /* last holds a sample that can be sent again */
	bool skipped;	/* the last full read left it out (an idle kernel thread) */
	struct tt_thread_sample last;
};

/* A process of the last passes: its task directory, kept open, and its threads. */
struct seen_proc {
	int task_fd;	     /* -1 = not open */
	uint64_t cpu_ns;     /* its CPU clock before the last pass read its threads */
	bool quiet;	     /* that pass found every thread asleep, each with a schedstat */
	nlink_t nlink;	     /* of the task directory when listed: 2 + its threads */
	uint32_t generation; /* tick that last saw it */
	unsigned passes;     /* since it was listed */
	int *tids;
	size_t nr, cap;
};

struct proc_source {
	struct source base;
	struct proc_source_opts opts;
	int *pids;
	int root_fd;
	uint64_t ns_per_tick; /* clock tick (USER_HZ) in ns */
	uint32_t generation;
	struct strtab *strings;
	uint64_t strings_aged_ns; /* source_strings_age's */
	struct u64map *seen;	  /* tid -> struct seen_thread */
	struct u64map *procs;	  /* pid -> struct seen_proc */
	uint64_t drops[TT_DROP_MAX];
	uint32_t nr_samples;
	struct proc_info *pinfo;      /* process records (proc_info.c) */
	struct proc_targets *targets; /* what syscalls' fds name (proc_targets.c) */
	uint32_t nr_reused;	      /* samples of this pass sent again from schedstat alone */
	/*
	 * The pass's order: every thread walked takes the next place, held
	 * (deferred) or not, so a place stays the same while the box does.
	 * rep[place] is the tid sent again there (0 = none), sent at the end
	 * in blocks of TT_REPEAT_BLOCK places, before the full samples, held
	 * back in queue: the model then counts each block that lists what it
	 * listed in the pass before as a run, without touching its threads.
	 */
	uint32_t order;
	uint32_t *rep;
	size_t cap_rep;
	struct tt_thread_sample *queue;
	size_t nr_queued, cap_queue;
	/* Kept fds (threads' files, task directories): how many are open and may be. */
	size_t nr_fds, max_fds;
	bool no_schedstat; /* this kernel has none (or it reads "0 0 0"): read everything */
	/* The budget: passes take every stride-th tick of -F. */
	unsigned stride;
	unsigned skipped; /* ticks left out since the previous pass */
	uint64_t cost_ns; /* a pass's CPU time, moving average; 0 = not measured yet */
	/*
	 * The same, split: the rotating check of held threads (settle_deferred)
	 * reads a share of them that grows as the rate falls (all within a
	 * second), so its cost is counted a second; the rest of a pass's, a pass.
	 */
	uint64_t check_ns;     /* this pass's check */
	uint64_t check_sec_ns; /* the check's CPU time a second, moving average */
	uint64_t rest_ns;      /* the rest of a pass, moving average */
	uint64_t last_pass_ns;
	uint64_t pass_gap_ns; /* from the pass before to the last one */
	uint32_t nr_passes;
	unsigned said_hz; /* the rate the log last gave (0 = the asked one) */
	uint64_t said_ns; /* when */
	/* /proc's link count when last listed, and passes since. */
	nlink_t root_nlink;
	unsigned root_passes;
	/* Per-process cache within one tick. */
	int cmdline_pid;
	uint32_t cmdline_id;
	/* The gate on process CPU clocks (see the top of the file). */
	bool gate;		   /* on: a clock and a count of runnable threads to check it */
	int loadavg_fd;		   /* the proc root's loadavg, -1 = none */
	bool walk_active;	   /* a thread of the process being read was R, untimed or gone */
	uint32_t nr_runnable;	   /* threads this pass read as R */
	struct deferred *deferred; /* threads sent again unread, settled at the pass's end */
	size_t nr_deferred, cap_deferred;
	size_t verify_next; /* where in them the next check starts */
	/* The block's repeat record: last, as its tids are a flexible array (clang). */
	union {
		struct tt_thread_repeat r;
		char bytes[sizeof(struct tt_thread_repeat) + TT_REPEAT_BLOCK * sizeof(__u32)];
	} repeat;
};

/* A thread the pass would send again without reading it (settle_deferred). */
struct deferred {
	struct seen_thread *seen;
	struct seen_proc *sp;
	int pid, tid;
	uint32_t place; /* in the pass's order */
};

static struct proc_source *to_proc(struct source *src)
{
	return (struct proc_source *)src;
}

static struct seen_thread *get_seen(struct proc_source *ps, int tid);

static uint32_t cmdline_id(struct proc_source *ps, int pid, uint64_t now)
{
	char path[32], raw[CMDLINE_MAX], line[CMDLINE_MAX];
	ssize_t n;

	/* The last process's again, unless its string was retired since. */
	if (ps->cmdline_pid == pid &&
	    (!ps->cmdline_id || source_string_again(ps->strings, ps->cmdline_id, now)))
		return ps->cmdline_id;
	snprintf(path, sizeof(path), "%d/cmdline", pid);
	n = read_file_at(ps->root_fd, path, raw, sizeof(raw));
	ps->cmdline_pid = pid;
	ps->cmdline_id = 0;
	if (n > 0)
		ps->cmdline_id =
			source_intern(ps->strings, &ps->base.sink, line,
				      procfs_join_cmdline(raw, (size_t)n, line, sizeof(line)), now);
	return ps->cmdline_id;
}

static void note_thread(struct proc_source *ps, int pid, int tid, const struct proc_task_stat *st,
			uint64_t now)
{
	struct seen_thread *seen = get_seen(ps, tid);
	struct tt_thread_info info = {0};

	if (seen->start_ticks == st->start_ticks && seen->comm[0] &&
	    !strcmp(seen->comm, st->comm)) {
		seen->generation = ps->generation;
		return;
	}
	seen->start_ticks = st->start_ticks;
	memcpy(seen->comm, st->comm, TT_COMM_LEN);
	seen->generation = ps->generation;

	info.hdr = (struct tt_event_header){TT_EV_THREAD_INFO, TT_THREAD_INFO_VERSION, sizeof(info),
					    now};
	info.pid = (__u32)pid;
	info.tid = (__u32)tid;
	info.start_time_ns = st->start_ticks * ps->ns_per_tick;
	info.cmdline_id = cmdline_id(ps, pid, now);
	info.flags = (st->flags & PROC_PF_KTHREAD) ? TT_INFO_KTHREAD : 0;
	memcpy(info.comm, st->comm, TT_COMM_LEN);
	sink_emit(&ps->base.sink, &info.hdr);
}

static void count_read_error(struct proc_source *ps, ssize_t err)
{
	if (err == -ENOENT || err == -ESRCH)
		ps->drops[TT_DROP_VANISHED]++;
	else
		ps->drops[TT_DROP_READ_ERROR]++;
}

/* One read of a small file (stat, syscall, wchan fit in buf): open, read, close. */
static ssize_t read_small_at(int dirfd, const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* schedstat: "RUN_NS WAIT_NS PCOUNT". Returns 0 or -EINVAL. */
static int parse_schedstat(const char *buf, uint64_t *run_ns, uint64_t *pcount)
{
	uint64_t v[3];
	const char *p = buf;

	for (int i = 0; i < 3; i++) {
		const char *start;

		while (*p == ' ')
			p++;
		start = p;
		v[i] = 0;
		for (; *p >= '0' && *p <= '9' && p - start < 20; p++)
			v[i] = v[i] * 10 + (uint64_t)(*p - '0');
		if (p == start)
			return -EINVAL;
	}
	*run_ns = v[0];
	*pcount = v[2];
	return 0;
}

static void close_fds(struct proc_source *ps, struct seen_thread *seen);

/*
 * Reads one of the thread's files (NUL-terminated in buf) through its kept
 * fd, opened on first use within max_fds, else opened for this read. A kept
 * fd whose thread is gone (-ESRCH) may stand for a tid now reused by a new
 * thread: every fd of the thread is closed, what was last read of it
 * forgotten, and the file opened anew. Returns the length, -ENOENT/-ESRCH
 * when the thread is gone, or another negative errno.
 */
static ssize_t read_kept(struct proc_source *ps, struct seen_thread *seen, enum kept_file k,
			 int task_fd, int tid, char *buf, size_t cap)
{
	char path[48];
	ssize_t n;
	bool kept = seen->fd[k] >= 0;

	if (!kept) {
		snprintf(path, sizeof(path), "%d/%s", tid, kept_names[k]);
		if (ps->nr_fds >= ps->max_fds)
			return read_small_at(task_fd, path, buf, cap);
		seen->fd[k] = openat(task_fd, path, O_RDONLY | O_CLOEXEC);
		if (seen->fd[k] < 0)
			return -errno;
		ps->nr_fds++;
	}
	n = pread(seen->fd[k], buf, cap - 1, 0);
	if (n < 0) {
		n = -errno;
		if (n == -ESRCH && kept) {
			close_fds(ps, seen);
			seen->have_last = false;
			return read_kept(ps, seen, k, task_fd, tid, buf, cap);
		}
		return n;
	}
	buf[n] = '\0';
	return n;
}

/*
 * Reads the thread's schedstat. Returns 0, -ENOENT/-ESRCH when it is gone,
 * or another negative errno (then the caller reads everything).
 */
static int read_schedstat(struct proc_source *ps, struct seen_thread *seen, int task_fd, int tid,
			  uint64_t *run_ns, uint64_t *pcount)
{
	char buf[128] = ""; /* zeroed: the analyzer cannot see pread fill it */
	ssize_t n = read_kept(ps, seen, KEPT_SCHEDSTAT, task_fd, tid, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	if (parse_schedstat(buf, run_ns, pcount) < 0)
		return -EINVAL;
	/* Not yet run, or CONFIG_SCHED_INFO off ("0 0 0"): nothing to compare. */
	return *pcount ? 0 : -EAGAIN;
}

static void close_kept(struct proc_source *ps, struct seen_thread *seen, enum kept_file k)
{
	if (seen->fd[k] < 0)
		return;
	close(seen->fd[k]);
	seen->fd[k] = -1;
	ps->nr_fds--;
}

static void close_fds(struct proc_source *ps, struct seen_thread *seen)
{
	for (int k = 0; k < NR_KEPT; k++)
		close_kept(ps, seen, (enum kept_file)k);
}

static struct seen_thread *get_seen(struct proc_source *ps, int tid)
{
	struct seen_thread *seen = u64map__get(ps->seen, (uint64_t)tid);

	if (!seen) {
		seen = xcalloc(1, sizeof(*seen));
		for (int k = 0; k < NR_KEPT; k++)
			seen->fd[k] = -1;
		u64map__put(ps->seen, (uint64_t)tid, seen);
	}
	return seen;
}

/* The period -F asks for: the app's clock, or -F when driven without it (tests). */
static uint64_t asked_period_ns(const struct proc_source *ps)
{
	return ps->base.clock.period_ns ? ps->base.clock.period_ns : NSEC_PER_SEC / ps->opts.hz;
}

/* The weight of this pass's samples: the time since the previous pass. */
static uint32_t pass_weight_us(const struct proc_source *ps)
{
	uint64_t period = asked_period_ns(ps);

	return (uint32_t)(period * ps->stride / 1000);
}

/*
 * Passes a thread must be found asleep in the same place, not run since,
 * before its stat is no longer read either: a second's worth. schedstat
 * cannot tell a thread woken but still waiting for a CPU from one asleep
 * (it counts only runs): on a saturated box a thread that sleeps briefly
 * spends long in the run queue after each wake-up, and stat says R at
 * once. A long sleeper's wake-up can still be read as asleep until it runs,
 * at most that wait in a sleep of a second or more.
 */
static unsigned long_sleep_passes(const struct proc_source *ps)
{
	unsigned n = ps->opts.hz / ps->stride;

	/*
	 * A second of the passes really taken: passes slower than -F (10,000
	 * threads: 150 ms each before any is held) would else read every
	 * stat for 20 passes, several seconds, before one is let go.
	 */
	if (ps->pass_gap_ns && NSEC_PER_SEC / ps->pass_gap_ns < n)
		n = (unsigned)(NSEC_PER_SEC / ps->pass_gap_ns);
	return n ? n : 1;
}

/*
 * The thread has not run since the pass that found it asleep: the same
 * sample again (same state, syscall, wait channel), new time and weight.
 */
static void resend(struct proc_source *ps, struct seen_thread *seen, uint32_t place, uint64_t now)
{
	seen->generation = ps->generation;
	if (seen->skipped)
		return;
	ps->nr_samples++;
	ps->nr_reused++;
	/*
	 * Its wait channel is named again (by the repeat, or the sample sent
	 * again): its string stays unretired while the thread sleeps there, so
	 * a long sleep does not come back under a new id. Every pass resends
	 * what it holds; only a thread unseen for a minute loses its string
	 * (0: no channel until it is read again).
	 */
	seen->last.wchan_id = source_string_again(ps->strings, seen->last.wchan_id, now);
	seen->last.syscall_target_id =
		source_string_again(ps->strings, seen->last.syscall_target_id, now);
	if (!ps->opts.full_samples) {
		if (place >= ps->cap_rep) {
			size_t cap = ps->cap_rep ? ps->cap_rep : 1024;

			while (cap <= place)
				cap *= 2;
			ps->rep = xrealloc(ps->rep, cap * sizeof(*ps->rep));
			memset(ps->rep + ps->cap_rep, 0, (cap - ps->cap_rep) * sizeof(*ps->rep));
			ps->cap_rep = cap;
		}
		ps->rep[place] = seen->last.tid;
		return;
	}
	seen->last.hdr.time_ns = now;
	seen->last.weight_us = pass_weight_us(ps);
	sink_emit(&ps->base.sink, &seen->last.hdr);
}

/* Sends the full samples held back (at the pass's end, or when the queue is full). */
static void flush_samples(struct proc_source *ps)
{
	for (size_t i = 0; i < ps->nr_queued; i++)
		sink_emit(&ps->base.sink, &ps->queue[i].hdr);
	ps->nr_queued = 0;
}

static void queue_sample(struct proc_source *ps, const struct tt_thread_sample *s)
{
	if (ps->nr_queued == ps->cap_queue) {
		if (ps->cap_queue == QUEUE_MAX) {
			flush_samples(ps); /* sent now: right, if dearer for the model */
		} else {
			ps->cap_queue = ps->cap_queue ? ps->cap_queue * 2 : 64;
			ps->queue = xrealloc(ps->queue, ps->cap_queue * sizeof(*ps->queue));
		}
	}
	ps->queue[ps->nr_queued++] = *s;
}

/*
 * Sends the pass's repeats, a record per block of its order (see struct
 * tt_thread_repeat), then its full samples.
 */
static void flush_repeats(struct proc_source *ps, uint64_t now)
{
	struct tt_thread_repeat *r = &ps->repeat.r;
	size_t end = ps->order < ps->cap_rep ? ps->order : ps->cap_rep;

	for (size_t base = 0; base < end; base += TT_REPEAT_BLOCK) {
		size_t stop = end - base < TT_REPEAT_BLOCK ? end : base + TT_REPEAT_BLOCK;

		r->nr = 0;
		for (size_t i = base; i < stop; i++) {
			if (ps->rep[i])
				r->tids[r->nr++] = ps->rep[i];
			ps->rep[i] = 0;
		}
		if (!r->nr)
			continue;
		r->hdr = (struct tt_event_header){TT_EV_THREAD_REPEAT, TT_THREAD_REPEAT_VERSION,
						  (__u32)(sizeof(*r) + r->nr * sizeof(r->tids[0])),
						  now};
		r->block = (__u32)(base / TT_REPEAT_BLOCK);
		sink_emit(&ps->base.sink, &r->hdr);
	}
	r->nr = 0;
	flush_samples(ps);
}

/* Keeps the thread to be sent again (or read, if the box says so) at the pass's end. */
static void defer(struct proc_source *ps, struct seen_proc *sp, struct seen_thread *seen, int pid,
		  int tid, uint32_t place)
{
	if (ps->nr_deferred == ps->cap_deferred) {
		ps->cap_deferred = ps->cap_deferred ? ps->cap_deferred * 2 : 256;
		ps->deferred = xrealloc(ps->deferred, ps->cap_deferred * sizeof(*ps->deferred));
	}
	ps->deferred[ps->nr_deferred++] = (struct deferred){seen, sp, pid, tid, place};
	seen->generation = ps->generation;
	/* Held: syscall and wchan are read again only once it has run. */
	close_kept(ps, seen, KEPT_SYSCALL);
	close_kept(ps, seen, KEPT_WCHAN);
}

/*
 * What the fd argument of s's syscall names, as a string id (0: none), read
 * from /proc/PID/fd and the socket tables (proc_targets.c).
 */
static uint32_t target_id(struct proc_source *ps, int pid, const struct tt_thread_sample *s,
			  uint64_t now)
{
	int arg = fd_target_arg(s->syscall_nr);
	char text[TT_MAX_STRING_LEN];
	size_t len;

	if (arg < 0 || !ps->targets)
		return 0;
	len = proc_targets__text(ps->targets, pid, s->syscall_args[arg], text, sizeof(text));
	return len ? source_intern(ps->strings, &ps->base.sink, text, len, now) : 0;
}

/*
 * Samples one thread of sp. verify: it was deferred and the box has
 * runnable threads the pass did not find: stat is read whatever schedstat
 * says. place: its place in the pass's order. Returns whether it was
 * deferred (to settle_deferred).
 */
static bool sample_thread(struct proc_source *ps, struct seen_proc *sp, int pid, int tid,
			  uint32_t place, uint64_t now, bool verify)
{
	int task_fd = sp->task_fd;
	struct tt_thread_sample s = {0};
	struct seen_thread *seen = get_seen(ps, tid);
	struct proc_task_stat st;
	struct proc_syscall sc;
	uint64_t run_ns = 0, pcount = 0;
	char buf[1024];
	bool kthread, timed = false, same = false;
	ssize_t n;
	int e = 0;

	if (!ps->no_schedstat) {
		e = read_schedstat(ps, seen, task_fd, tid, &run_ns, &pcount);
		if (e == -ESRCH) {
			ps->drops[TT_DROP_VANISHED]++;
			ps->walk_active = true;
			return false;
		}
		timed = e == 0;
		same = timed && seen->have_last && seen->run_ns == run_ns &&
		       seen->pcount == pcount && seen->last.state != TT_ST_R;
		if (!same)
			seen->asleep = 0;
		else if (seen->asleep >= long_sleep_passes(ps) && !verify) {
			defer(ps, sp, seen, pid, tid, place);
			return true;
		}
	}

	n = read_kept(ps, seen, KEPT_STAT, task_fd, tid, buf, sizeof(buf));
	if (n < 0 || procfs_parse_stat(buf, &st) < 0) {
		count_read_error(ps, n < 0 ? n : -EIO);
		ps->walk_active = true;
		return false;
	}
	/* stat is there, schedstat not: a kernel without it (or a fixture tree). */
	if (!ps->no_schedstat && !timed && e == -ENOENT)
		ps->no_schedstat = true;
	/* Not run since, still in the same state: asleep in the same place. */
	if (same && procfs_state(st.state) == seen->last.state) {
		seen->asleep++;
		resend(ps, seen, place, now);
		return false;
	}
	seen->asleep = 0;
	seen->run_ns = run_ns;
	seen->pcount = pcount;
	seen->have_last = timed;
	kthread = st.flags & PROC_PF_KTHREAD;
	s.state = (__u8)procfs_state(st.state);
	seen->skipped = kthread && s.state == TT_ST_I && !ps->opts.idle_kthreads;
	if (!timed || s.state == TT_ST_R)
		ps->walk_active = true;
	if (s.state == TT_ST_R)
		ps->nr_runnable++;
	if (seen->skipped) {
		seen->last.state = s.state;
		seen->start_ticks = st.start_ticks; /* for still_held; its comm stays unsaid */
		seen->generation = ps->generation;
		return false;
	}
	note_thread(ps, pid, tid, &st, now);

	s.hdr = (struct tt_event_header){TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s),
					 now};
	s.pid = (__u32)pid;
	s.tid = (__u32)tid;
	s.start_time_ns = st.start_ticks * ps->ns_per_tick;
	/* schedstat's run time is exact; stat's is in clock ticks. */
	s.cpu_time_ns = timed ? run_ns : (st.utime_ticks + st.stime_ticks) * ps->ns_per_tick;
	s.weight_us = pass_weight_us(ps);
	s.syscall_nr = TT_SYSCALL_NONE;
	s.flags = kthread ? TT_SAMPLE_KTHREAD : 0;
	s.cpu = (__u16)st.processor;
	memcpy(s.comm, st.comm, TT_COMM_LEN);

	/* Kernel threads have no user registers: their "syscall" file is zeros. */
	if (!kthread) {
		n = read_kept(ps, seen, KEPT_SYSCALL, task_fd, tid, buf, sizeof(buf));
		if (n > 0 && procfs_parse_syscall(buf, &sc) == 0) {
			s.syscall_nr = sc.nr;
			if (sc.nr >= 0) {
				memcpy(s.syscall_args, sc.args, sizeof(s.syscall_args));
				s.flags |= TT_SAMPLE_HAS_ARGS;
				s.syscall_target_id = target_id(ps, pid, &s, now);
			} else if (!sc.running) {
				s.flags |= TT_SAMPLE_USER_MODE;
			}
		} else if (n == -ENOENT || n == -ESRCH) {
			ps->drops[TT_DROP_VANISHED]++;
			ps->walk_active = true;
			return false;
		}
	}
	if (s.state != TT_ST_R) {
		n = read_kept(ps, seen, KEPT_WCHAN, task_fd, tid, buf, sizeof(buf));
		if (n > 0 && strcmp(buf, "0") != 0)
			s.wchan_id = source_intern(ps->strings, &ps->base.sink, buf,
						   strcspn(buf, "\n"), now);
	}
	seen->last = s;
	queue_sample(ps, &s);
	ps->nr_samples++;
	return false;
}

/*
 * A deferred thread the box's runnable count asks to check: its stat alone
 * says whether it is still in the state it was held in (its schedstat was
 * read this pass, or its process's clock has not moved since the pass that
 * found it asleep: schedstat could say nothing new). Returns true, having
 * sent it again, when it is; false when it must be read in full.
 */
static bool still_held(struct proc_source *ps, const struct deferred *d, uint64_t now)
{
	struct seen_thread *seen = d->seen;
	struct proc_task_stat st;
	char buf[1024];
	ssize_t n;

	if (!seen->have_last || ps->no_schedstat)
		return false;
	n = read_kept(ps, seen, KEPT_STAT, d->sp->task_fd, d->tid, buf, sizeof(buf));
	if (n < 0 || !seen->have_last || procfs_parse_stat(buf, &st) < 0 ||
	    st.start_ticks != seen->start_ticks || procfs_state(st.state) != seen->last.state)
		return false;
	resend(ps, seen, d->place, now);
	return true;
}

/*
 * Passes between listings of a directory that did not change: a second's
 * worth, and RESCAN_MIN_PASSES at least, or at a rate lowered by the
 * budget every pass would list everything again and cost more still.
 */
static unsigned rescan_passes(const struct proc_source *ps)
{
	unsigned n = ps->opts.hz / ps->stride;

	return n > RESCAN_MIN_PASSES ? n : RESCAN_MIN_PASSES;
}

static struct seen_proc *get_proc(struct proc_source *ps, int pid)
{
	struct seen_proc *sp = u64map__get(ps->procs, (uint64_t)pid);

	if (!sp) {
		sp = xcalloc(1, sizeof(*sp));
		sp->task_fd = -1;
		sp->passes = (unsigned)pid; /* staggers the rescans of many processes */
		u64map__put(ps->procs, (uint64_t)pid, sp);
	}
	return sp;
}

static void close_task_dir(struct proc_source *ps, struct seen_proc *sp)
{
	if (sp->task_fd < 0)
		return;
	close(sp->task_fd);
	sp->task_fd = -1;
	ps->nr_fds--;
}

static void free_proc(struct proc_source *ps, struct seen_proc *sp)
{
	close_task_dir(ps, sp);
	free(sp->tids);
	free(sp);
}

/* Lists the process's threads again (opening its task directory anew: the pid may be reused). */
static int scan_tasks(struct proc_source *ps, struct seen_proc *sp, int pid)
{
	char path[32];
	struct dirent *de;
	struct stat st;
	DIR *dir;

	close_task_dir(ps, sp);
	sp->nr = 0;
	snprintf(path, sizeof(path), "%d/task", pid);
	sp->task_fd = openat(ps->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sp->task_fd < 0)
		return -errno;
	ps->nr_fds++;
	sp->nlink = fstat(sp->task_fd, &st) == 0 ? st.st_nlink : 0;
	dir = opendir_dup(sp->task_fd);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (sp->nr == sp->cap) {
			sp->cap = sp->cap ? sp->cap * 2 : 8;
			sp->tids = xrealloc(sp->tids, sp->cap * sizeof(*sp->tids));
		}
		sp->tids[sp->nr++] = atoi(de->d_name);
	}
	closedir(dir);
	sp->passes = 0;
	return 0;
}

/* The CPU time of all threads of pid so far: its process CPU clock (CPUCLOCK_SCHED). */
static int process_cpu_ns(const struct proc_source *ps, int pid, uint64_t *ret_ns)
{
	struct timespec ts;
	/* The kernel's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED); glibc has no call for it. */
	clockid_t clk = (clockid_t)((~(unsigned)pid << 3) | 2);

	if (ps->opts.cpu_clock)
		return ps->opts.cpu_clock(pid, ret_ns);
	if (clock_gettime(clk, &ts) < 0)
		return -errno;
	*ret_ns = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	return 0;
}

/*
 * No thread of sp has run since the pass that found them all asleep: they
 * are deferred as they are, unread (nor is the task directory listed: no
 * thread can have started or ended without one of them running). Returns
 * false, having deferred none, when one of them is not known.
 */
static bool gate_process(struct proc_source *ps, struct seen_proc *sp, int pid)
{
	size_t first = ps->nr_deferred;

	for (size_t i = 0; i < sp->nr; i++) {
		struct seen_thread *seen = u64map__get(ps->seen, (uint64_t)sp->tids[i]);

		if (!seen) {
			ps->nr_deferred = first;
			return false;
		}
		defer(ps, sp, seen, pid, sp->tids[i], ps->order++);
	}
	return true;
}

/*
 * A process's threads. Its task directory is listed again only when its
 * link count (2 + its threads) changed, a thread of it vanished, or a
 * second of passes went by: listing costs a dentry look-up per thread,
 * as much as reading them all.
 */
static void sample_process(struct proc_source *ps, int pid, uint64_t now)
{
	struct seen_proc *sp = get_proc(ps, pid);
	unsigned every = rescan_passes(ps);
	uint64_t gone = ps->drops[TT_DROP_VANISHED] + ps->drops[TT_DROP_READ_ERROR];
	uint64_t cpu_ns = 0;
	size_t deferred0;
	bool clocked = false;
	struct stat st;
	int err;

	sp->generation = ps->generation;
	proc_info__see(ps->pinfo, (uint32_t)pid, now);
	/*
	 * Read before its threads, so that a thread that runs while they are
	 * read moves it for the next pass: the gate errs towards reading.
	 */
	if (ps->gate)
		clocked = process_cpu_ns(ps, pid, &cpu_ns) == 0;
	if (clocked && sp->quiet && sp->task_fd >= 0 && cpu_ns == sp->cpu_ns &&
	    gate_process(ps, sp, pid))
		return;
	sp->quiet = false;
	if (sp->task_fd < 0 || sp->passes >= every || ps->no_schedstat ||
	    fstat(sp->task_fd, &st) < 0 || st.st_nlink != sp->nlink) {
		err = scan_tasks(ps, sp, pid);
		if (err < 0) {
			count_read_error(ps, err);
			return;
		}
	}
	sp->passes++;
	ps->walk_active = false;
	deferred0 = ps->nr_deferred;
	for (size_t i = 0; i < sp->nr; i++)
		sample_thread(ps, sp, pid, sp->tids[i], ps->order++, now, false);
	if (ps->drops[TT_DROP_VANISHED] + ps->drops[TT_DROP_READ_ERROR] != gone)
		sp->passes = UINT_MAX; /* list it again next pass */
	sp->cpu_ns = cpu_ns;
	/* Quiet when every thread was deferred: asleep for a second, not run since. */
	sp->quiet = clocked && !ps->walk_active && sp->passes != UINT_MAX &&
		    ps->nr_deferred - deferred0 == sp->nr;
}

/* Forgets threads and processes the last pass did not see (they exited). */
static void sweep(struct proc_source *ps)
{
	struct seen_thread *seen;
	struct seen_proc *sp;
	uint64_t tid, pid;
	size_t pos = 0;

	while (u64map__next(ps->procs, &pos, &pid, (void **)&sp)) {
		if (sp->generation != ps->generation) {
			u64map__remove_at(ps->procs, &pos);
			free_proc(ps, sp);
		}
	}
	pos = 0;

	while (u64map__next(ps->seen, &pos, &tid, (void **)&seen)) {
		if (seen->generation != ps->generation) {
			u64map__remove_at(ps->seen, &pos);
			close_fds(ps, seen);
			free(seen);
		}
	}
}

static void emit_tick(struct proc_source *ps, uint64_t start, uint64_t cost_ns)
{
	uint64_t period = asked_period_ns(ps);
	struct tt_tick tick;
	struct tt_drops drops = {0};
	uint64_t end = monotonic_ns();
	bool any = false;

	for (int i = 0; i < TT_DROP_MAX; i++)
		any |= ps->drops[i] != 0;
	if (any) {
		drops.hdr =
			(struct tt_event_header){TT_EV_DROPS, TT_DROPS_VERSION, sizeof(drops), end};
		memcpy(drops.count, ps->drops, sizeof(drops.count));
		memset(ps->drops, 0, sizeof(ps->drops));
		sink_emit(&ps->base.sink, &drops.hdr);
	}
	source_tick_fill(&ps->base, &tick, start, ps->last_pass_ns ? start - ps->last_pass_ns : 0,
			 period * ps->stride, ps->skipped);
	if (!ps->base.clock.period_ns) /* driven without the app's clock (tests) */
		tick.weight_us = tick.asked_us = tick.target_us = pass_weight_us(ps);
	tick.nr_threads = ps->nr_samples;
	/* The pass's own CPU time: what the budget counts (a loaded box stretches wall time). */
	tick.duration_ns = cost_ns;
	sink_emit(&ps->base.sink, &tick.hdr);
}

/*
 * A moving average: it moves 1/4 of the way a pass, and half of the way down
 * to a value under half of it, so the dear first passes (every fd opened,
 * every stat read until threads are held) do not keep the rate low for
 * long once they are over, while noise around a steady cost moves it slowly.
 */
static void ewma(uint64_t *avg, uint64_t v, bool first)
{
	if (first)
		*avg = v;
	else if (v < *avg / 2)
		*avg -= (*avg - v) >> 1;
	else
		*avg = (uint64_t)((int64_t)*avg +
				  (((int64_t)v - (int64_t)*avg) >> COST_EWMA_SHIFT));
}

/*
 * The stride that keeps passes within the budget: the smallest n for which
 * the rotating check's CPU a second, plus the rest of a pass every n ticks,
 * costs at most budget% of a core. It rises at once and falls only when
 * the faster rate fits in RAISE_MARGIN_PCT of the budget, so a cost near
 * the limit does not make the rate flap.
 */
static void update_stride(struct proc_source *ps, uint64_t cost_ns)
{
	uint64_t period = asked_period_ns(ps);
	double budget = ps->opts.budget_pct / 100.0, need, left, left_margin;
	uint64_t check = ps->check_ns < cost_ns ? ps->check_ns : cost_ns;
	bool first = !ps->cost_ns;
	unsigned n;

	ps->check_ns = 0;
	if (ps->nr_passes <= 1) /* the first pass opens every fd: not what passes cost */
		return;
	ewma(&ps->cost_ns, cost_ns, first);
	ewma(&ps->rest_ns, cost_ns - check, first);
	ewma(&ps->check_sec_ns, check * NSEC_PER_SEC / (period * ps->stride), first);
	if (!(budget > 0))
		return;
	/* The share of a core left to the rest of the passes. */
	left = budget - (double)ps->check_sec_ns / NSEC_PER_SEC;
	left_margin = budget * RAISE_MARGIN_PCT / 100.0 - (double)ps->check_sec_ns / NSEC_PER_SEC;
	need = left > 0 ? (double)ps->rest_ns / (left * (double)period) : ps->opts.hz;
	n = need <= 1 ? 1 : (unsigned)need + (need > (unsigned)need);
	if (n > ps->opts.hz) /* never less than one pass a second */
		n = ps->opts.hz;
	if (n < ps->stride &&
	    (left_margin <= 0 || (double)ps->rest_ns > left_margin * (double)period * n))
		n = ps->stride;
	ps->stride = n ? n : 1;
}

/*
 * Says that the rate is lowered, and why, and when it is back: at once when
 * it is first lowered or back at -F, else (the cost of a pass moves with
 * the box's load) at most once a minute.
 */
static void say_rate(struct proc_source *ps, uint64_t now)
{
	unsigned hz = ps->stride > 1 ? ps->opts.hz / ps->stride : 0;

	if (hz == ps->said_hz || !ps->opts.warn)
		return;
	if (hz && ps->said_hz && now - ps->said_ns < 60 * NSEC_PER_SEC)
		return;
	ps->said_ns = now;
	if (hz) {
		char msg[256];

		snprintf(msg, sizeof(msg),
			 "proc source: a pass over %u threads costs %.1f ms of CPU: sampling at "
			 "%.1f Hz, not %u (%.1f%% of a core; --proc-budget %g%%)",
			 ps->nr_samples, (double)ps->cost_ns / 1e6,
			 (double)ps->opts.hz / ps->stride, ps->opts.hz,
			 ((double)ps->rest_ns * ps->opts.hz / ps->stride +
			  (double)ps->check_sec_ns) /
				 1e7,
			 ps->opts.budget_pct);
		ps->opts.warn(msg);
	} else {
		ps->opts.warn("proc source: back to the -F rate within --proc-budget");
	}
	ps->said_hz = hz;
}

/*
 * Whether /proc must be listed again: its link count (a constant plus the
 * processes of the box) moved, something exited in the last pass, or a
 * second of passes went by. Otherwise the processes of the last pass are
 * walked again: listing /proc cost a tenth of a pass over idle threads.
 */
static bool root_changed(struct proc_source *ps)
{
	struct stat st;

	if (ps->root_passes >= rescan_passes(ps) || ps->no_schedstat ||
	    fstat(ps->root_fd, &st) < 0 || st.st_nlink != ps->root_nlink) {
		ps->root_nlink = fstat(ps->root_fd, &st) == 0 ? st.st_nlink : 0;
		return true;
	}
	return false;
}

/* The box's runnable threads now (on a CPU or waiting for one), or -1: /proc/loadavg's 4th field. */
static long nr_running(struct proc_source *ps)
{
	char buf[128] = "", *p;
	ssize_t n = pread(ps->loadavg_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "0.20 0.18 0.12 1/80 11206": the number before the slash. */
	p = strchr(buf, '/');
	if (!p)
		return -1;
	while (p > buf && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtol(p, NULL, 10);
}

/*
 * The threads deferred in this pass: sent again as they were, unless the
 * box had more runnable threads, at both the pass's start and end, than
 * the pass read as R (besides this one): then some may be woken and waiting
 * for a CPU, or just put on one, and a share of the deferred is read (stat)
 * until as many runnable are found, taking up each pass where the last
 * stopped, so that all are read within a second while the count says so.
 * Not all at once: on a busy box processes that start, and threads that
 * change while the pass runs, keep the count above what the pass found
 * nearly every pass (measured: 1-10 of 15-30 runnable at load 20), and
 * reading all stat files each pass would cost more than the gate saves.
 * Without the count (-p leaves other processes out), all are sent.
 */
static void settle_deferred(struct proc_source *ps, long running_before, uint64_t now)
{
	long running = ps->gate ? nr_running(ps) : 0, missing;

	/*
	 * Runnable at both ends of the pass: a thread runnable at one end only
	 * either ran (its clock moves: read in full next pass) or started to
	 * wait during the pass (counted at the next pass's start). At load 5
	 * on 2 CPUs this halves the passes that check (55% to 27%).
	 */
	if (running_before >= 0 && (running < 0 || running_before < running))
		running = running_before;
	missing = ps->gate && running < 0 ? LONG_MAX : running - 1 - (long)ps->nr_runnable;
	size_t n = ps->nr_deferred, start = n ? ps->verify_next % n : 0;
	/* A share fixed by the rate kept, not by passes that ran late: reading more makes them later. */
	size_t window = n / (ps->opts.hz / ps->stride ? ps->opts.hz / ps->stride : 1) + 1;

	uint64_t cpu0 = missing > 0 ? thread_self_cpu_ns() : 0;

	if (missing == LONG_MAX)
		window = n;
	for (size_t i = 0; i < n; i++) {
		struct deferred *d = &ps->deferred[i];

		if (missing > 0 && (i + n - start) % n < window) {
			uint32_t found = ps->nr_runnable;

			ps->walk_active = false;
			if (!still_held(ps, d, now))
				sample_thread(ps, d->sp, d->pid, d->tid, d->place, now, true);
			missing -= (long)(ps->nr_runnable - found);
			if (ps->walk_active)
				d->sp->quiet = false; /* it runs now: read in full next pass */
		} else {
			resend(ps, d->seen, d->place, now);
		}
	}
	if (cpu0)
		ps->check_ns = thread_self_cpu_ns() - cpu0;
	if (missing > 0 || ps->verify_next % (n ? n : 1) != start)
		ps->verify_next = start + window;
	ps->nr_deferred = 0;
}

static int proc_tick(struct source *src, uint64_t now)
{
	struct proc_source *ps = to_proc(src);
	struct dirent *de;
	uint64_t cpu0, gone;
	long running;
	DIR *dir;

	/* The budget's stride: this tick is left out (counted in the next pass's tick). */
	if (ps->nr_passes && ++ps->skipped < ps->stride)
		return 0;
	ps->skipped = ps->nr_passes ? ps->skipped - 1 : 0;
	cpu0 = thread_self_cpu_ns();
	running = ps->gate ? nr_running(ps) : 0;
	ps->generation++;
	proc_targets__pass(ps->targets);
	ps->nr_samples = 0;
	ps->nr_reused = 0;
	ps->nr_runnable = 0;
	ps->nr_deferred = 0;
	ps->order = 0;
	ps->cmdline_pid = 0;
	gone = ps->drops[TT_DROP_VANISHED] + ps->drops[TT_DROP_READ_ERROR];
	if (ps->opts.nr_pids) {
		for (size_t i = 0; i < ps->opts.nr_pids; i++)
			sample_process(ps, ps->pids[i], now);
	} else if (!root_changed(ps)) {
		struct seen_proc *sp;
		uint64_t pid;
		size_t pos = 0;

		while (u64map__next(ps->procs, &pos, &pid, (void **)&sp))
			sample_process(ps, (int)pid, now);
	} else {
		ps->root_passes = 0;
		dir = opendir_dup(ps->root_fd);
		if (!dir)
			return -errno;
		rewinddir(dir);
		while ((de = readdir(dir))) {
			int pid;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			pid = atoi(de->d_name);
			if (pid != ps->opts.self_pid)
				sample_process(ps, pid, now);
		}
		closedir(dir);
	}
	settle_deferred(ps, running, now);
	flush_repeats(ps, now);
	/* After the count: UINT_MAX + 1 is 0, which put the listing off by a second
	 * each time something exited, for ever on a box where something always does. */
	ps->root_passes++;
	if (ps->drops[TT_DROP_VANISHED] + ps->drops[TT_DROP_READ_ERROR] != gone)
		ps->root_passes = UINT_MAX; /* something exited: list /proc again next pass */
	sweep(ps);
	proc_info__pass(ps->pinfo, now);
	source_strings_age(ps->strings, &ps->base.sink, now, &ps->strings_aged_ns);
	ps->nr_passes++;
	{
		uint64_t cost = thread_self_cpu_ns() - cpu0;

		emit_tick(ps, now, cost);
		update_stride(ps, cost);
	}
	say_rate(ps, now);
	if (ps->last_pass_ns && now > ps->last_pass_ns)
		ps->pass_gap_ns = now - ps->last_pass_ns;
	ps->last_pass_ns = now;
	ps->skipped = 0;
	return 0;
}

static int proc_fd(struct source *src)
{
	return -1;
}

static void proc_free(struct source *src)
{
	struct proc_source *ps = to_proc(src);
	struct seen_thread *seen;
	struct seen_proc *sp;
	uint64_t tid;
	size_t pos = 0;

	if (!ps)
		return;
	while (u64map__next(ps->seen, &pos, &tid, (void **)&seen)) {
		close_fds(ps, seen);
		free(seen);
	}
	u64map__free(ps->seen);
	pos = 0;
	while (u64map__next(ps->procs, &pos, &tid, (void **)&sp))
		free_proc(ps, sp);
	u64map__free(ps->procs);
	proc_info__free(ps->pinfo);
	proc_targets__free(ps->targets);
	strtab__free(ps->strings);
	free(ps->deferred);
	free(ps->rep);
	free(ps->queue);
	if (ps->loadavg_fd >= 0)
		close(ps->loadavg_fd);
	if (ps->root_fd >= 0)
		close(ps->root_fd);
	free(ps->pids);
	free(ps);
}

static const struct source_ops proc_ops = {
	.name = "proc",
	.fd = proc_fd,
	.tick = proc_tick,
	.free = proc_free,
};

/*
 * How many fds may stay open (threads' files, task directories):
 * RLIMIT_NOFILE raised to its hard limit, less what the rest of threadtop
 * may need, and FDS_MAX at most (each costs the kernel about 4.3 KB once
 * read: 8.6 KB a held thread, 70 MB at FDS_MAX, which keeps 8,000 threads'
 * files: a top must not pin more of the box's memory). Past it files are
 * opened per read (dearer, still right).
 */
static size_t kept_fds(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > FDS_MAX + FDS_RESERVED)
		return FDS_MAX;
	return rl.rlim_cur > FDS_RESERVED ? rl.rlim_cur - FDS_RESERVED : 0;
}

/* Whether dirfd is the /proc of this process's pid namespace (not a fixture tree). */
static bool is_own_proc(int dirfd)
{
	char link[32], want[32];
	ssize_t n = readlinkat(dirfd, "self", link, sizeof(link) - 1);

	if (n <= 0)
		return false;
	link[n] = '\0';
	snprintf(want, sizeof(want), "%d", (int)getpid());
	return !strcmp(link, want);
}

struct source *proc_source__new(const struct proc_source_opts *opts, struct event_sink sink,
				char *err, size_t errlen)
{
	struct proc_source *ps;
	long hz = sysconf(_SC_CLK_TCK);
	int fd;

	fd = open(opts->proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "proc source: cannot open %s: %s (is /proc mounted?)",
			 opts->proc_root, strerror(e));
		errno = e;
		return NULL;
	}
	ps = xcalloc(1, sizeof(*ps));
	ps->base.ops = &proc_ops;
	ps->base.sink = sink;
	ps->opts = *opts;
	if (!ps->opts.hz)
		ps->opts.hz = SOURCE_DEFAULT_HZ;
	if (opts->nr_pids) {
		ps->pids = xcalloc(opts->nr_pids, sizeof(int));
		memcpy(ps->pids, opts->pids, opts->nr_pids * sizeof(int));
		ps->opts.pids = ps->pids;
	}
	ps->root_fd = fd;
	ps->ns_per_tick = NSEC_PER_SEC / (uint64_t)(hz > 0 ? hz : 100);
	if (!(ps->opts.budget_pct >= 0))
		ps->opts.budget_pct = SOURCE_DEFAULT_PROC_BUDGET_PCT;
	ps->stride = 1;
	ps->max_fds = kept_fds();
	ps->strings = strtab__new();
	ps->seen = u64map__new();
	ps->procs = u64map__new();
	ps->pinfo = proc_info__new(ps->root_fd, ps->strings, &ps->base.sink);
	ps->targets = proc_targets__new(ps->root_fd);
	ps->loadavg_fd = openat(fd, "loadavg", O_RDONLY | O_CLOEXEC);
	/* -p leaves out threads the box's count has: it cannot check the gate. */
	ps->gate = ps->loadavg_fd >= 0 && !opts->nr_pids && (opts->cpu_clock || is_own_proc(fd));
	return &ps->base;
}
