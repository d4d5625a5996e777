// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the BPF source told the model about each thread (source_bpf_impl.h):
 * the thread's info record, with its command line, when a tid is new or was
 * reused, and its last full sample, which the repeats of an unchanged thread
 * stand for (bpf_ring.c). Threads the last passes did not see are forgotten.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_info.h"
#include "source_bpf_impl.h"
#include "strtab.h"
#include "u64map.h"
#include "util.h"

void bpf_thread_info__init(struct bpf_source *bs)
{
	bs->strings = strtab__new();
	bs->seen = u64map__new();
	bs->proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Without /proc the process columns stay unknown; the samples go on. */
	if (bs->proc_fd >= 0)
		bs->pinfo = proc_info__new(bs->proc_fd, bs->strings, &bs->base.sink);
}

/* The command line of pid as a string id (NULs as spaces), 0 when unreadable. */
static uint32_t cmdline_id(struct bpf_source *bs, uint32_t pid, uint64_t now)
{
	char path[32], buf[TT_MAX_STRING_LEN];
	ssize_t n;

	/* The last process's again, unless its string was retired since. */
	if (bs->cmdline_pid == (int)pid &&
	    (!bs->cmdline_id || source_string_again(bs->strings, bs->cmdline_id, now)))
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

void bpf_thread_info__note(struct bpf_source *bs, const struct tt_thread_sample *s)
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
	if (bs->pinfo)
		proc_info__see(bs->pinfo, s->pid, s->hdr.time_ns);
}

/*
 * Forgets threads the last passes did not see, so a reused tid is noticed.
 * Repeated threads are marked seen only on every SWEEP_EVERY-th pass: the
 * sweep runs then.
 */
void bpf_thread_info__sweep(struct bpf_source *bs)
{
	struct seen_thread *seen;
	uint64_t tid;
	size_t pos = 0;

	if (bs->generation % SWEEP_EVERY)
		return;

	while (u64map__next(bs->seen, &pos, &tid, (void **)&seen)) {
		if (bs->generation - seen->generation > 2) {
			u64map__remove_at(bs->seen, &pos);
			free(seen);
		}
	}
}

void bpf_thread_info__free(struct bpf_source *bs)
{
	struct seen_thread *seen;
	uint64_t tid;
	size_t pos = 0;

	while (u64map__next(bs->seen, &pos, &tid, (void **)&seen))
		free(seen);
	u64map__free(bs->seen);
	proc_info__free(bs->pinfo);
	if (bs->proc_fd >= 0)
		close(bs->proc_fd);
	strtab__free(bs->strings);
}
