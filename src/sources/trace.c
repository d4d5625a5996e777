// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel trace capture through a private tracefs instance (see trace.h).
 * The kernel formats the lines (the tracepoint's print format), we only
 * route each to its tracepoint's ring. Lines of "[LOST N EVENTS]" that
 * trace_pipe inserts when its buffer overflowed are counted as lost.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "dict_budget.h"
#include "trace.h"
#include "util.h"

#define DEFAULT_TRACEFS "/sys/kernel/tracing"
#define TRACEFS_MAGIC_NR 0x74726163
#define INSTANCE_PREFIX "threadtop-"
#define READ_CHUNK 65536
#define READ_BUDGET (1u << 20) /* bytes per tracer__read: the loop must go on */
#define BUFFER_KB "512"	       /* per CPU, of the private instance */

struct event_ring {
	char name[128];	 /* "sched:sched_process_exec" */
	char needle[96]; /* ": sched_process_exec:" */
	char **lines;	 /* max_lines slots */
	uint64_t *seqs;	 /* sequence number of each slot's line */
	size_t head, kept;
	uint64_t total, interval;
};

struct tracer {
	struct event_ring *events;
	size_t nr;
	size_t max_lines;
	uint64_t seq;	       /* lines routed so far */
	uint64_t interval_seq; /* first seq of this interval */
	uint64_t unmatched, lost;
	char partial[TRACE_LINE_MAX]; /* an incomplete line from the last read */
	size_t partial_len;
	char *buf;
	int pipe_fd;
	int instances_fd; /* TRACEFS/instances */
	char instance[32];
	struct dict_budget *budget; /* of the lines kept, not owned; or NULL */
};

bool trace_event_name_ok(const char *s)
{
	const char *colon = strchr(s, ':');
	size_t len = strlen(s);

	if (!colon || colon == s || !colon[1] || len >= 128)
		return false;
	for (const char *p = s; *p; p++)
		if (p != colon && !(*p == '_' || (*p >= 'a' && *p <= 'z') ||
				    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

int trace_match_line(const char *line, const char *const *events, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		const char *ev = strchr(events[i], ':');
		char needle[140];

		if (!ev)
			continue;
		snprintf(needle, sizeof(needle), ": %s:", ev + 1);
		if (strstr(line, needle))
			return (int)i;
	}
	return -1;
}

static struct tracer *tracer_alloc(const struct tracer_opts *opts)
{
	struct tracer *t = xcalloc(1, sizeof(*t));

	t->pipe_fd = t->instances_fd = -1;
	t->max_lines = opts->max_lines ? opts->max_lines : 100;
	t->nr = opts->nr_events;
	t->events = xcalloc(t->nr ? t->nr : 1, sizeof(*t->events));
	for (size_t i = 0; i < t->nr; i++) {
		struct event_ring *e = &t->events[i];

		snprintf(e->name, sizeof(e->name), "%s", opts->events[i]);
		snprintf(e->needle, sizeof(e->needle), ": %s:", strchr(e->name, ':') + 1);
		e->lines = xcalloc(t->max_lines, sizeof(*e->lines));
		e->seqs = xcalloc(t->max_lines, sizeof(*e->seqs));
	}
	t->buf = xmalloc(READ_CHUNK);
	return t;
}

/* Writes a short string into dirfd/path. */
static int write_at(int dirfd, const char *path, const char *s)
{
	int fd = openat(dirfd, path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

/* Removes instances a killed threadtop left behind (its pid is gone). */
static void remove_stale_instances(int instances_fd)
{
	DIR *dir = opendir_dup(instances_fd);
	struct dirent *de;

	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)))
			continue;
		pid = strtol(de->d_name + strlen(INSTANCE_PREFIX), &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			unlinkat(instances_fd, de->d_name, AT_REMOVEDIR);
	}
	closedir(dir);
}

/* Makes sure tracefs is mounted at path; says in note when we mounted it. */
static int ensure_tracefs(const char *path, bool may_mount, char *err, size_t errlen, char *note,
			  size_t notelen)
{
	struct statfs sfs;

	if (statfs(path, &sfs) == 0 && sfs.f_type == TRACEFS_MAGIC_NR)
		return 0;
	if (!may_mount) {
		snprintf(err, errlen, "--trace: %s is not a tracefs mount", path);
		return -ENOENT;
	}
	if (mount("nodev", path, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		int e = errno;

		snprintf(err, errlen,
			 "--trace: tracefs is not mounted and mounting it at %s failed: %s; "
			 "run as root or mount it (mount -t tracefs nodev %s)",
			 path, strerror(e), path);
		return -e;
	}
	snprintf(note, notelen, "--trace: mounted tracefs at %s (it stays mounted)", path);
	return 0;
}

static int setup_instance(struct tracer *t, const char *tracefs, char *err, size_t errlen)
{
	char path[300];
	int dirfd, ret;

	snprintf(path, sizeof(path), "%s/instances", tracefs);
	t->instances_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->instances_fd < 0) {
		ret = -errno;
		snprintf(err, errlen,
			 "--trace: cannot open %s: %s (kernel without ftrace instances?)", path,
			 strerror(-ret));
		return ret;
	}
	remove_stale_instances(t->instances_fd);
	snprintf(t->instance, sizeof(t->instance), INSTANCE_PREFIX "%d", (int)getpid());
	if (mkdirat(t->instances_fd, t->instance, 0700) < 0) {
		ret = -errno;
		t->instance[0] = '\0';
		snprintf(err, errlen, "--trace: cannot create the tracefs instance %s/%s: %s", path,
			 t->instance, strerror(-ret));
		return ret;
	}
	dirfd = openat(t->instances_fd, t->instance, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "--trace: cannot open %s/%s: %s", path, t->instance,
			 strerror(-ret));
		return ret;
	}
	write_at(dirfd, "buffer_size_kb", BUFFER_KB); /* smaller than the default: best effort */
	for (size_t i = 0; i < t->nr; i++) {
		const char *name = t->events[i].name;
		const char *colon = strchr(name, ':');
		char enable[300];

		snprintf(enable, sizeof(enable), "events/%.*s/%s/enable", (int)(colon - name), name,
			 colon + 1);
		ret = write_at(dirfd, enable, "1");
		if (ret < 0) {
			if (ret == -ENOENT)
				snprintf(err, errlen,
					 "--trace %s: no such tracepoint (see %s/available_events)",
					 name, tracefs);
			else
				snprintf(err, errlen, "--trace %s: cannot enable it: %s", name,
					 strerror(-ret));
			close(dirfd);
			return ret;
		}
	}
	t->pipe_fd = openat(dirfd, "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ret = t->pipe_fd < 0 ? -errno : 0;
	if (ret < 0)
		snprintf(err, errlen, "--trace: cannot open %s/%s/trace_pipe: %s", path,
			 t->instance, strerror(-ret));
	close(dirfd);
	return ret;
}

struct tracer *tracer__new(const struct tracer_opts *opts, char *err, size_t errlen, char *note,
			   size_t notelen)
{
	const char *tracefs = opts->tracefs ? opts->tracefs : DEFAULT_TRACEFS;
	struct tracer *t;
	int ret;

	note[0] = err[0] = '\0';
	for (size_t i = 0; i < opts->nr_events; i++)
		if (!trace_event_name_ok(opts->events[i])) {
			snprintf(err, errlen,
				 "--trace %s: need SUBSYSTEM:EVENT, e.g. sched:sched_switch",
				 opts->events[i]);
			errno = EINVAL;
			return NULL;
		}
	ret = ensure_tracefs(tracefs, !opts->tracefs, err, errlen, note, notelen);
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	t = tracer_alloc(opts);
	ret = setup_instance(t, tracefs, err, errlen);
	if (ret < 0) {
		tracer__free(t);
		errno = -ret;
		return NULL;
	}
	return t;
}

struct tracer *tracer__new_offline(const struct tracer_opts *opts)
{
	return tracer_alloc(opts);
}

void tracer__free(struct tracer *t)
{
	if (!t)
		return;
	if (t->pipe_fd >= 0)
		close(t->pipe_fd); /* an open trace_pipe keeps the instance busy */
	/* EBUSY while a reader is going away: retry briefly (at exit only). */
	for (int i = 0; t->instance[0] && t->instances_fd >= 0 && i < 20; i++) {
		if (unlinkat(t->instances_fd, t->instance, AT_REMOVEDIR) == 0 || errno != EBUSY)
			break;
		usleep(10000);
	}
	if (t->instances_fd >= 0)
		close(t->instances_fd);
	for (size_t i = 0; i < t->nr; i++) {
		for (size_t j = 0; j < t->max_lines; j++) {
			if (t->events[i].lines[j])
				dict_budget__give(t->budget, 0, strlen(t->events[i].lines[j]));
			free(t->events[i].lines[j]);
		}
		free(t->events[i].lines);
		free(t->events[i].seqs);
	}
	free(t->events);
	free(t->buf);
	free(t);
}

int tracer__fd(const struct tracer *t)
{
	return t->pipe_fd;
}

/* "CPU:3 [LOST 120 EVENTS]": how many; 0 when the line is not that. */
static uint64_t lost_count(const char *line)
{
	const char *p = strstr(line, "[LOST ");

	return p ? strtoull(p + 6, NULL, 10) : 0;
}

void tracer__set_budget(struct tracer *t, struct dict_budget *b)
{
	t->budget = b;
}

static void push_line(struct tracer *t, struct event_ring *e, const char *line)
{
	char *old = e->lines[e->head];
	size_t len = strlen(line);

	/* The line it replaces gives its bytes back first: a full ring turns over. */
	if (old)
		dict_budget__give(t->budget, 0, strlen(old));
	if (!dict_budget__take(t->budget, 0, len)) {
		if (old) /* fits: its bytes were given back just now */
			dict_budget__take(t->budget, 0, strlen(old));
		return;
	}
	free(old);
	e->lines[e->head] = xstrndup(line, len);
	e->seqs[e->head] = t->seq++;
	e->head = (e->head + 1) % t->max_lines;
	if (e->kept < t->max_lines)
		e->kept++;
}

int tracer__add_line(struct tracer *t, const char *event, const char *line, uint64_t total,
		     uint64_t lost)
{
	struct event_ring *e = NULL;

	for (size_t i = 0; i < t->nr && !e; i++)
		if (!strcmp(t->events[i].name, event))
			e = &t->events[i];
	if (!e) {
		if (!trace_event_name_ok(event))
			return -EINVAL;
		if (t->nr >= TRACE_MAX_EVENTS)
			return -ENOSPC;
		t->events = xrealloc(t->events, (t->nr + 1) * sizeof(*t->events));
		e = &t->events[t->nr++];
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", event);
		snprintf(e->needle, sizeof(e->needle), ": %s:", strchr(e->name, ':') + 1);
		e->lines = xcalloc(t->max_lines, sizeof(*e->lines));
		e->seqs = xcalloc(t->max_lines, sizeof(*e->seqs));
	}
	push_line(t, e, line);
	/* Lines the recording's ring dropped still count; a total that goes back
	 * (a damaged file) counts this line only. */
	if (total > e->total) {
		e->interval += total - e->total;
		e->total = total;
	} else {
		e->interval++;
		e->total++;
	}
	if (lost > t->lost)
		t->lost = lost;
	return 0;
}

static void route_line(struct tracer *t, const char *line)
{
	uint64_t lost = lost_count(line);
	struct event_ring *e = NULL;

	for (size_t i = 0; i < t->nr && !e; i++)
		if (strstr(line, t->events[i].needle))
			e = &t->events[i];
	if (!e) {
		if (lost)
			t->lost += lost;
		else if (*line)
			t->unmatched++;
		return;
	}
	push_line(t, e, line);
	e->total++;
	e->interval++;
}

void tracer__feed(struct tracer *t, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = data[i];

		if (c == '\n') {
			t->partial[t->partial_len] = '\0';
			route_line(t, t->partial);
			t->partial_len = 0;
		} else if (t->partial_len < sizeof(t->partial) - 1) {
			t->partial[t->partial_len++] = c; /* past the cap: the rest is dropped */
		}
	}
}

int tracer__read(struct tracer *t)
{
	uint64_t before = t->seq + t->unmatched;
	size_t done = 0;

	if (t->pipe_fd < 0)
		return 0;
	while (done < READ_BUDGET) {
		ssize_t n = read(t->pipe_fd, t->buf, READ_CHUNK);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return -errno;
		}
		if (n == 0)
			break;
		tracer__feed(t, t->buf, (size_t)n);
		done += (size_t)n;
	}
	return (int)(t->seq + t->unmatched - before);
}

void tracer__end_interval(struct tracer *t)
{
	for (size_t i = 0; i < t->nr; i++)
		t->events[i].interval = 0;
	t->interval_seq = t->seq;
}

size_t tracer__count(const struct tracer *t)
{
	return t->nr;
}

void tracer__stats(const struct tracer *t, size_t i, struct trace_stats *ret)
{
	const struct event_ring *e = &t->events[i];

	*ret = (struct trace_stats){e->name, e->total, e->interval, e->kept};
}

const char *tracer__line(const struct tracer *t, size_t i, size_t j, bool *ret_this_interval)
{
	const struct event_ring *e = &t->events[i];
	size_t slot;

	if (j >= e->kept)
		return NULL;
	slot = (e->head + t->max_lines - 1 - j) % t->max_lines;
	if (ret_this_interval)
		*ret_this_interval = e->seqs[slot] >= t->interval_seq;
	return e->lines[slot];
}

uint64_t tracer__unmatched(const struct tracer *t)
{
	return t->unmatched;
}

uint64_t tracer__lost(const struct tracer *t)
{
	return t->lost;
}
