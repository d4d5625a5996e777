// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process that blocks at several user call sites, each in a function of
 * its own, one thread per site: "syncer" writes a page and fsyncs it (the
 * kernel waits on writeback and on a device flush: several kernel paths
 * under one user call site), "sleeper" sleeps 1 ms, "reader" reads a pipe
 * that "writer" fills every 2 ms, "poller" polls nothing for 3 ms. Built
 * without frame pointers (tests/CMakeLists.txt), so a frame-pointer walk of
 * any of its stacks stops in glibc: the off-CPU tests check that threadtop's
 * stacks name these functions and agree with perf's sched_switch stacks.
 *
 * Usage: block_sites [DIR]  (DIR for the fsync'd file, default /tmp)
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int pipe_fds[2];
static const char *dir = "/tmp";

static void nap(long ns)
{
	struct timespec ts = {0, ns};

	nanosleep(&ts, NULL);
}

NOINLINE static void sync_site(int fd, const char *page, size_t len)
{
	if (pwrite(fd, page, len, 0) < 0 || fsync(fd) < 0)
		nap(1000000);
	__asm__ volatile("" ::: "memory"); /* keep the call above from being a tail call */
}

static void *syncer(void *arg)
{
	char path[4096], page[4096];
	int fd;

	(void)arg;
	snprintf(path, sizeof(path), "%s/block_sites.%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	unlink(path);
	if (fd < 0)
		return NULL;
	memset(page, 'x', sizeof(page));
	for (;;) {
		page[0]++;
		sync_site(fd, page, sizeof(page));
	}
	return NULL;
}

NOINLINE static void sleep_site(void)
{
	nap(1000000);
	__asm__ volatile("" ::: "memory");
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		sleep_site();
	return NULL;
}

NOINLINE static void read_site(void)
{
	char c;

	if (read(pipe_fds[0], &c, 1) < 0)
		nap(1000000);
	__asm__ volatile("" ::: "memory");
}

static void *reader(void *arg)
{
	(void)arg;
	for (;;)
		read_site();
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	for (;;) {
		nap(2000000);
		if (write(pipe_fds[1], "x", 1) < 0)
			return NULL;
	}
	return NULL;
}

NOINLINE static void poll_site(void)
{
	poll(NULL, 0, 3);
	__asm__ volatile("" ::: "memory");
}

static void *poller(void *arg)
{
	(void)arg;
	for (;;)
		poll_site();
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void *(*fn)(void *);
	} threads[] = {
		{"syncer", syncer}, {"sleeper", sleeper}, {"reader", reader},
		{"writer", writer}, {"poller", poller},
	};
	pthread_t t;

	if (argc > 1)
		dir = argv[1];
	if (pipe2(pipe_fds, O_CLOEXEC) < 0)
		return 1;
	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		if (pthread_create(&t, NULL, threads[i].fn, NULL))
			return 1;
		pthread_setname_np(t, threads[i].name);
	}
	for (;;)
		pause();
}
