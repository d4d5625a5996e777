// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process records for the model (see proc_info.h). A process is described
 * once when first seen, then again every PROC_INFO_EVERY_NS while it lives
 * (its resident memory and CPU time move); user names are looked up once per
 * uid and travel as strings, so a replay on another box shows the names of
 * the box that was recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_info.h"
#include "procfs.h"
#include "strtab.h"
#include "u64map.h"
#include "util.h"

#define PROC_INFO_EVERY_NS NSEC_PER_SEC
/*
 * The stat of a process of many threads is read less often: the kernel sums
 * its CPU time and faults over every thread for /proc/PID/stat (twice: 3 ms
 * for one of 10,000 threads, 45 ms for 100,000, half of threadtop's time
 * then). One second per THREADS_PER_SECOND threads, a minute at most; its
 * TIME+ is the sum of its threads' meanwhile (model_query.c takes the
 * larger), and its resident memory still moves every second, from statm
 * (which walks no threads).
 */
#define THREADS_PER_SECOND 250
/* Where there is no statm between (see below): the stat alone, more often. */
#define THREADS_PER_SECOND_ALONE 1000
#define PROC_INFO_MAX_EVERY 60
#define STATUS_EVERY 10 /* the uid is read again every 10th stat */
/*
 * Between its stats a process is read through an fd on its /proc directory,
 * taken with the stat: the fd stays on that process, so a pid reused
 * meanwhile fails the read instead of lending the newcomer the old one's
 * description. Few processes have threads enough; past this many, a
 * process has its stat alone, every THREADS_PER_SECOND_ALONE threads'
 * second (its RES then moves only with it).
 */
#define PROC_INFO_MAX_DIR_FDS 64

struct proc_seen {
	uint64_t next_ns;	  /* when to describe it again */
	uint64_t stat_next_ns;	  /* when to read its stat again (before: statm only) */
	struct tt_proc_info last; /* the last description from its stat */
	int dir_fd;		  /* its /proc directory while stats are apart, else -1 */
	uint32_t uid;
	uint32_t descriptions; /* from its stat */
};

struct proc_info {
	int proc_fd;
	struct strtab *strings;
	struct event_sink sink;
	struct u64map *procs; /* pid -> struct proc_seen */
	struct u64map *users; /* uid + 1 -> string id + 1 (0 = no name) */
	uint64_t page_size;
	uint64_t ns_per_tick;
	unsigned nr_dir_fds;
};

static void seen_free(struct proc_info *pi, struct proc_seen *seen)
{
	if (seen->dir_fd >= 0) {
		close(seen->dir_fd);
		pi->nr_dir_fds--;
	}
	free(seen);
}

struct proc_info *proc_info__new(int proc_fd, struct strtab *strings, const struct event_sink *sink)
{
	struct proc_info *pi = xcalloc(1, sizeof(*pi));
	long ps = sysconf(_SC_PAGESIZE), hz = sysconf(_SC_CLK_TCK);

	pi->proc_fd = proc_fd;
	pi->strings = strings;
	pi->sink = *sink;
	pi->procs = u64map__new();
	pi->users = u64map__new();
	pi->page_size = ps > 0 ? (uint64_t)ps : 4096;
	pi->ns_per_tick = NSEC_PER_SEC / (uint64_t)(hz > 0 ? hz : 100);
	return pi;
}

void proc_info__free(struct proc_info *pi)
{
	uint64_t pid;
	void *v;
	size_t pos = 0;

	if (!pi)
		return;
	while (u64map__next(pi->procs, &pos, &pid, &v))
		seen_free(pi, v);
	u64map__free(pi->procs);
	u64map__free(pi->users);
	free(pi);
}

/* The string id of uid's name (0 when it has none here), looked up once per uid. */
static uint32_t user_id(struct proc_info *pi, uint32_t uid, uint64_t now)
{
	uintptr_t v = (uintptr_t)u64map__get(pi->users, (uint64_t)uid + 1);
	struct passwd pw, *res = NULL;
	char buf[1024];
	uint32_t id = 0;

	/* Known: its id again, unless the string was retired (then read it again). */
	if (v == 1 || (v && source_string_again(pi->strings, (uint32_t)(v - 1), now)))
		return (uint32_t)(v - 1);
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name[0])
		id = source_intern(pi->strings, &pi->sink, res->pw_name,
				   strnlen(res->pw_name, TT_COMM_LEN * 2), now);
	u64map__put(pi->users, (uint64_t)uid + 1, (void *)(uintptr_t)(id + 1));
	return id;
}

/* Seconds between stat reads of a process of nr_threads threads. */
static uint64_t proc_info_every(unsigned nr_threads, unsigned per_second)
{
	uint64_t n = nr_threads / per_second;

	return n < 1 ? 1 : n > PROC_INFO_MAX_EVERY ? PROC_INFO_MAX_EVERY : n;
}

/* Takes (or lets go) the fd on pid's /proc directory its reads between stats go through. */
static void keep_dir(struct proc_info *pi, uint32_t pid, struct proc_seen *seen, bool want)
{
	char path[16];

	if (!want && seen->dir_fd >= 0) {
		close(seen->dir_fd);
		seen->dir_fd = -1;
		pi->nr_dir_fds--;
	} else if (want && seen->dir_fd < 0 && pi->nr_dir_fds < PROC_INFO_MAX_DIR_FDS) {
		snprintf(path, sizeof(path), "%u", pid);
		seen->dir_fd = openat(pi->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		pi->nr_dir_fds += seen->dir_fd >= 0;
	}
}

/* Between two stats: the last description with the resident memory of now. */
static bool describe_rss(struct proc_info *pi, struct proc_seen *seen, uint64_t now)
{
	struct tt_proc_info rec = seen->last;
	char buf[256];
	uint64_t pages;
	ssize_t n;

	n = read_file_at(seen->dir_fd, "statm", buf, sizeof(buf));
	if (n <= 0 || procfs_parse_statm_rss(buf, &pages) < 0)
		return false;
	rec.hdr.time_ns = now;
	rec.rss_bytes = pages * pi->page_size;
	rec.user_id = user_id(pi, seen->uid, now); /* a retired name is interned again */
	sink_emit(&pi->sink, &rec.hdr);
	seen->next_ns = now + PROC_INFO_EVERY_NS;
	return true;
}

/* Describes pid; false when it is gone (or unreadable: then it is not described again). */
static bool describe(struct proc_info *pi, uint32_t pid, struct proc_seen *seen, uint64_t now)
{
	struct tt_proc_info rec = {0};
	struct proc_task_stat st;
	char path[32], buf[2048];
	uint64_t every, alone;
	ssize_t n;

	if (seen->descriptions && now < seen->stat_next_ns && seen->dir_fd >= 0)
		return describe_rss(pi, seen, now);
	/* Through its directory while there is one: the same process, or a failure. */
	snprintf(path, sizeof(path), "%u/stat", pid);
	n = seen->dir_fd >= 0 ? read_file_at(seen->dir_fd, "stat", buf, sizeof(buf))
			      : read_file_at(pi->proc_fd, path, buf, sizeof(buf));
	if (n <= 0 || procfs_parse_stat(buf, &st) < 0)
		return false;
	if (seen->descriptions++ % STATUS_EVERY == 0) {
		snprintf(path, sizeof(path), "%u/status", pid);
		n = seen->dir_fd >= 0 ? read_file_at(seen->dir_fd, "status", buf, sizeof(buf))
				      : read_file_at(pi->proc_fd, path, buf, sizeof(buf));
		if (n > 0)
			seen->uid = procfs_parse_euid(buf, seen->uid);
	}
	rec.hdr = (struct tt_event_header){TT_EV_PROC_INFO, TT_PROC_INFO_VERSION, sizeof(rec), now};
	rec.pid = pid;
	rec.ppid = st.ppid > 0 ? (uint32_t)st.ppid : 0;
	rec.uid = seen->uid;
	rec.user_id = user_id(pi, seen->uid, now);
	rec.rss_bytes = st.rss_pages * pi->page_size;
	rec.cpu_time_ns = (st.utime_ticks + st.stime_ticks) * pi->ns_per_tick;
	rec.nice = st.nice;
	rec.nr_threads = st.num_threads;
	sink_emit(&pi->sink, &rec.hdr);
	seen->last = rec;
	every = proc_info_every(st.num_threads, THREADS_PER_SECOND);
	keep_dir(pi, pid, seen, every > 1);
	seen->stat_next_ns = now + PROC_INFO_EVERY_NS * every;
	alone = proc_info_every(st.num_threads, THREADS_PER_SECOND_ALONE);
	seen->next_ns = now + PROC_INFO_EVERY_NS * (seen->dir_fd >= 0 ? 1 : alone);
	return true;
}

void proc_info__see(struct proc_info *pi, uint32_t pid, uint64_t now_ns)
{
	struct proc_seen *seen;

	if (!pid || u64map__get(pi->procs, pid))
		return;
	seen = xcalloc(1, sizeof(*seen));
	seen->dir_fd = -1;
	u64map__put(pi->procs, pid, seen);
	if (!describe(pi, pid, seen, now_ns))
		seen->next_ns = now_ns + PROC_INFO_EVERY_NS; /* tried again at the next due pass */
}

void proc_info__pass(struct proc_info *pi, uint64_t now_ns)
{
	struct proc_seen *seen;
	uint64_t pid;
	size_t pos = 0;

	while (u64map__next(pi->procs, &pos, &pid, (void **)&seen)) {
		if (seen->next_ns > now_ns)
			continue;
		if (!describe(pi, (uint32_t)pid, seen, now_ns)) {
			/* Gone: a pid that comes back is seen (and described) anew. */
			u64map__remove_at(pi->procs, &pos);
			seen_free(pi, seen);
		}
	}
}
