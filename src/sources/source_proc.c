// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /proc thread sampler (see source_proc.h). Every read is bounded and a
 * thread that vanishes between the directory scan and its reads is counted
 * as a drop, never an error: processes exit all the time.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_info.h"
#include "procfs.h"
#include "source_defaults.h"
#include "source_proc.h"
#include "strtab.h"
#include "u64map.h"
#include "util.h"

#define CMDLINE_MAX 4096

/* What the source last told the model about a thread. */
struct seen_thread {
	uint64_t start_ticks;
	char comm[TT_COMM_LEN];
	uint32_t generation; /* tick that last saw it */
};

struct proc_source {
	struct source base;
	struct proc_source_opts opts;
	int *pids;
	int root_fd;
	uint64_t ns_per_tick; /* clock tick (USER_HZ) in ns */
	uint32_t generation;
	struct strtab *strings;
	struct u64map *seen; /* tid -> struct seen_thread */
	uint64_t drops[TT_DROP_MAX];
	uint32_t nr_samples;
	struct proc_info *pinfo; /* process records (proc_info.c) */
	/* Per-process cache within one tick. */
	int cmdline_pid;
	uint32_t cmdline_id;
};

static struct proc_source *to_proc(struct source *src)
{
	return (struct proc_source *)src;
}

static uint32_t cmdline_id(struct proc_source *ps, int pid, uint64_t now)
{
	char path[32], raw[CMDLINE_MAX], line[CMDLINE_MAX];
	ssize_t n;

	if (ps->cmdline_pid == pid)
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
	struct seen_thread *seen = u64map__get(ps->seen, (uint64_t)tid);
	struct tt_thread_info info = {0};

	if (seen && seen->start_ticks == st->start_ticks && !strcmp(seen->comm, st->comm)) {
		seen->generation = ps->generation;
		return;
	}
	if (!seen) {
		seen = xcalloc(1, sizeof(*seen));
		u64map__put(ps->seen, (uint64_t)tid, seen);
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

static void sample_thread(struct proc_source *ps, int task_fd, int pid, int tid, uint64_t now)
{
	struct tt_thread_sample s = {0};
	struct proc_task_stat st;
	struct proc_syscall sc;
	char path[48], buf[1024];
	bool kthread;
	ssize_t n;

	snprintf(path, sizeof(path), "%d/stat", tid);
	n = read_file_at(task_fd, path, buf, sizeof(buf));
	if (n < 0 || procfs_parse_stat(buf, &st) < 0) {
		count_read_error(ps, n < 0 ? n : -EIO);
		return;
	}
	kthread = st.flags & PROC_PF_KTHREAD;
	s.state = (__u8)procfs_state(st.state);
	if (kthread && s.state == TT_ST_I && !ps->opts.idle_kthreads)
		return;
	note_thread(ps, pid, tid, &st, now);

	s.hdr = (struct tt_event_header){TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s),
					 now};
	s.pid = (__u32)pid;
	s.tid = (__u32)tid;
	s.start_time_ns = st.start_ticks * ps->ns_per_tick;
	s.cpu_time_ns = (st.utime_ticks + st.stime_ticks) * ps->ns_per_tick;
	s.weight_us = 1000000u / ps->opts.hz;
	s.syscall_nr = TT_SYSCALL_NONE;
	s.flags = kthread ? TT_SAMPLE_KTHREAD : 0;
	s.cpu = (__u16)st.processor;
	memcpy(s.comm, st.comm, TT_COMM_LEN);

	/* Kernel threads have no user registers: their "syscall" file is zeros. */
	if (!kthread) {
		snprintf(path, sizeof(path), "%d/syscall", tid);
		n = read_file_at(task_fd, path, buf, sizeof(buf));
		if (n > 0 && procfs_parse_syscall(buf, &sc) == 0) {
			s.syscall_nr = sc.nr;
			if (sc.nr >= 0) {
				memcpy(s.syscall_args, sc.args, sizeof(s.syscall_args));
				s.flags |= TT_SAMPLE_HAS_ARGS;
			} else if (!sc.running) {
				s.flags |= TT_SAMPLE_USER_MODE;
			}
		} else if (n == -ENOENT || n == -ESRCH) {
			ps->drops[TT_DROP_VANISHED]++;
			return;
		}
	}
	if (s.state != TT_ST_R) {
		snprintf(path, sizeof(path), "%d/wchan", tid);
		n = read_file_at(task_fd, path, buf, sizeof(buf));
		if (n > 0 && strcmp(buf, "0") != 0)
			s.wchan_id = source_intern(ps->strings, &ps->base.sink, buf,
						   strcspn(buf, "\n"), now);
	}
	sink_emit(&ps->base.sink, &s.hdr);
	ps->nr_samples++;
}

static void sample_process(struct proc_source *ps, int pid, uint64_t now)
{
	char path[32];
	struct dirent *de;
	int task_fd;
	DIR *dir;

	snprintf(path, sizeof(path), "%d/task", pid);
	task_fd = openat(ps->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (task_fd < 0) {
		count_read_error(ps, -errno);
		return;
	}
	dir = opendir_dup(task_fd);
	if (!dir) {
		close(task_fd);
		return;
	}
	proc_info__see(ps->pinfo, (uint32_t)pid, now);
	while ((de = readdir(dir))) {
		if (isdigit((unsigned char)de->d_name[0]))
			sample_thread(ps, task_fd, pid, atoi(de->d_name), now);
	}
	closedir(dir);
	close(task_fd);
}

/* Forgets threads the last pass did not see (they exited). */
static void sweep(struct proc_source *ps)
{
	struct seen_thread *seen;
	uint64_t tid;
	size_t pos = 0;

	while (u64map__next(ps->seen, &pos, &tid, (void **)&seen)) {
		if (seen->generation != ps->generation) {
			u64map__remove_at(ps->seen, &pos);
			free(seen);
		}
	}
}

static void emit_tick(struct proc_source *ps, uint64_t start)
{
	struct tt_tick tick = {0};
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
	source_tick_fill(&ps->base, &tick, start, 0, 0, 0);
	tick.nr_threads = ps->nr_samples;
	tick.duration_ns = end - start;
	sink_emit(&ps->base.sink, &tick.hdr);
}

static int proc_tick(struct source *src, uint64_t now)
{
	struct proc_source *ps = to_proc(src);
	struct dirent *de;
	DIR *dir;

	ps->generation++;
	ps->nr_samples = 0;
	ps->cmdline_pid = 0;
	if (ps->opts.nr_pids) {
		for (size_t i = 0; i < ps->opts.nr_pids; i++)
			sample_process(ps, ps->pids[i], now);
	} else {
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
	sweep(ps);
	proc_info__pass(ps->pinfo, now);
	emit_tick(ps, now);
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
	uint64_t tid;
	size_t pos = 0;

	if (!ps)
		return;
	while (u64map__next(ps->seen, &pos, &tid, (void **)&seen))
		free(seen);
	u64map__free(ps->seen);
	proc_info__free(ps->pinfo);
	strtab__free(ps->strings);
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
	ps->strings = strtab__new();
	ps->seen = u64map__new();
	ps->pinfo = proc_info__new(ps->root_fd, ps->strings, &ps->base.sink);
	return &ps->base;
}
