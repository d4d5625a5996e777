// SPDX-License-Identifier: GPL-2.0-only
/* Allocation wrappers, clocks and bounded file reads (see util.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static void oom(size_t size)
{
	fprintf(stderr, "threadtop: out of memory allocating %zu bytes\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void xgrow(void **ptr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;

	if (need <= *cap)
		return;
	while (ncap < need)
		ncap *= 2;
	*ptr = xrealloc(*ptr, ncap * elem);
	*cap = ncap;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t thread_self_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

char *format_rfc3339(uint64_t realtime, char *buf, size_t len)
{
	time_t secs = (time_t)(realtime / NSEC_PER_SEC);
	unsigned ms = (unsigned)(realtime % NSEC_PER_SEC / 1000000);
	struct tm tm;
	char day[24];

	gmtime_r(&secs, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03uZ", day, ms);
	return buf;
}

ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd;

	if (cap == 0)
		return -EINVAL;
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read_fd(fd, buf, cap);
	close(fd);
	return n;
}

ssize_t read_fd(int fd, char *buf, size_t cap)
{
	size_t used = 0;
	int err = 0;

	if (cap == 0)
		return -EINVAL;
	while (used < cap - 1) {
		ssize_t n = read(fd, buf + used, cap - 1 - used);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	return err ? err : (ssize_t)used;
}

DIR *opendir_dup(int dirfd)
{
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	DIR *dir;

	if (fd < 0)
		return NULL;
	dir = fdopendir(fd);
	if (!dir) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return dir;
}

bool scan_hex_u64(const char **p, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	int n = 0;

	for (; *p < end; (*p)++, n++) {
		char c = **p;
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		if (n == 16)
			return false;
		v = v << 4 | d;
	}
	if (!n)
		return false;
	*ret = v;
	return true;
}

int thread_start_quiet(pthread_t *ret, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(ret, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}
