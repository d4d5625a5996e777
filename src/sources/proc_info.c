// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process records for the model (see proc_info.h). A process is described
 * once when first seen, then again every PROC_INFO_EVERY_NS while it lives
 * (its resident memory and CPU time move; less often with many threads); user names are looked up once per
 * uid and travel as strings, so a replay on another box shows the names of
 * the box that was recorded.
 */
#include <errno.h>
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
 * A process of many threads is described less often: the kernel sums its
 * CPU time over every thread for /proc/PID/stat (thread_group_cputime), 45
 * ms for one of 100,000 threads, half of threadtop's time then. One second
 * per THREADS_PER_SECOND threads, a minute at most; its TIME+ is the sum of
 * its threads' meanwhile (model_query.c takes the larger).
 */
#define THREADS_PER_SECOND 1000
#define PROC_INFO_MAX_EVERY 60
#define STATUS_EVERY 10 /* the uid is read again every 10th description */

struct proc_seen {
	uint64_t next_ns; /* when to describe it again */
	uint32_t uid;
	uint32_t descriptions;
};

struct proc_info {
	int proc_fd;
	struct strtab *strings;
	struct event_sink sink;
	struct u64map *procs; /* pid -> struct proc_seen */
	struct u64map *users; /* uid + 1 -> string id + 1 (0 = no name) */
	uint64_t page_size;
	uint64_t ns_per_tick;
};

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
		free(v);
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

/* Seconds between descriptions of a process of nr_threads threads. */
static uint64_t proc_info_every(unsigned nr_threads)
{
	uint64_t n = nr_threads / THREADS_PER_SECOND;

	return n < 1 ? 1 : n > PROC_INFO_MAX_EVERY ? PROC_INFO_MAX_EVERY : n;
}

/* Describes pid; false when it is gone (or unreadable: then it is not described again). */
static bool describe(struct proc_info *pi, uint32_t pid, struct proc_seen *seen, uint64_t now)
{
	struct tt_proc_info rec = {0};
	struct proc_task_stat st;
	char path[32], buf[2048];
	ssize_t n;

	snprintf(path, sizeof(path), "%u/stat", pid);
	n = read_file_at(pi->proc_fd, path, buf, sizeof(buf));
	if (n <= 0 || procfs_parse_stat(buf, &st) < 0)
		return false;
	if (seen->descriptions++ % STATUS_EVERY == 0) {
		snprintf(path, sizeof(path), "%u/status", pid);
		n = read_file_at(pi->proc_fd, path, buf, sizeof(buf));
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
	seen->next_ns = now + PROC_INFO_EVERY_NS * proc_info_every(st.num_threads);
	return true;
}

void proc_info__see(struct proc_info *pi, uint32_t pid, uint64_t now_ns)
{
	struct proc_seen *seen;

	if (!pid || u64map__get(pi->procs, pid))
		return;
	seen = xcalloc(1, sizeof(*seen));
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
			free(seen);
		}
	}
}
