// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload of known block I/O (issue #30 item 2): random 4 KiB O_DIRECT
 * reads of the block device argv[1], one at a time, from the main thread,
 * each timed around its pread. Prints "ready" and waits for SIGUSR1; then
 * reads for argv[2] seconds (default 2) or, with argv[3], that many reads,
 * prints "done COUNT TOTAL_NS" (reads made and the sum of their times) and
 * sleeps until killed. Each read is one request of 4096 bytes to the device:
 * block-aligned, below any size limit, never merged (the next starts after
 * this one completed). With argv[4] "rt" it runs at the lowest real-time
 * priority, pinned to one CPU that a thread "spin" (nice 19) keeps busy
 * while it reads: its wakeup after each completion then neither waits for a
 * CPU on a loaded box nor for a halted virtual CPU to be woken (an idle exit
 * of tens of microseconds in a VM), time it would measure and the block
 * layer would not.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096

static volatile int reading = 1;

static void *spin(void *arg)
{
	(void)arg;
	setpriority(PRIO_PROCESS, 0, 19); /* this thread only (Linux) */
	while (reading)
		;
	return NULL;
}

/* Pins the caller and a spinning thread to the last CPU, the caller at real-time priority. */
static void run_alone(void)
{
	struct sched_param sp = {.sched_priority = 1};
	pthread_attr_t attr;
	pthread_t spinner;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) - 1, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) < 0 ||
	    sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		perror("run_alone");
	/* Inherits the affinity, not the policy (PTHREAD_EXPLICIT_SCHED: SCHED_OTHER). */
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	if (pthread_create(&spinner, &attr, spin, NULL) == 0)
		pthread_setname_np(spinner, "spin");
	pthread_attr_destroy(&attr);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 2;
	long max_reads = argc > 3 ? atol(argv[3]) : 0;
	uint64_t size = 0, count = 0, total = 0, end, blocks, x = 88172645463325252ull;
	sigset_t set;
	void *buf;
	int fd, sig;

	if (argc < 2) {
		fprintf(stderr, "usage: direct_reads DEVICE [SECONDS [READS [rt]]]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0 || size < 2 * BLOCK) {
		perror(argv[1]);
		return 1;
	}
	if (posix_memalign(&buf, BLOCK, BLOCK))
		return 1;
	blocks = size / BLOCK;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	if (sigwait(&set, &sig))
		return 1;
	if (argc > 4 && !strcmp(argv[4], "rt"))
		run_alone();
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (max_reads ? count < (uint64_t)max_reads : now_ns() < end) {
		uint64_t t0;
		ssize_t n;

		x ^= x << 13; /* xorshift64: the same offsets in every run */
		x ^= x >> 7;
		x ^= x << 17;
		t0 = now_ns();
		n = pread(fd, buf, BLOCK, (off_t)((x % blocks) * BLOCK));
		total += now_ns() - t0;
		if (n != BLOCK) {
			perror("pread");
			return 1;
		}
		count++;
	}
	reading = 0;
	printf("done %llu %llu\n", (unsigned long long)count, (unsigned long long)total);
	fflush(stdout);
	for (;;)
		pause();
}
