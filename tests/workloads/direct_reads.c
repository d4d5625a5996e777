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
 * priority, so that its wakeup after a completion adds little to what it
 * measures on a loaded box.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096

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
	struct sched_param sp = {.sched_priority = 1};
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
	if (argc > 4 && !strcmp(argv[4], "rt") && sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		perror("sched_setscheduler");
	blocks = size / BLOCK;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	if (sigwait(&set, &sig))
		return 1;
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
	printf("done %llu %llu\n", (unsigned long long)count, (unsigned long long)total);
	fflush(stdout);
	for (;;)
		pause();
}
