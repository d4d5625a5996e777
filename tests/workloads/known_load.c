// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload whose truth is known because it measures itself, for the load
 * harness (tests/integration/load_truth.sh): three threads, and a log of
 * what each really did, so threadtop's figures for any window can be
 * checked against the same window.
 *
 *   "always"  burns CPU without a pause: runnable (R or Q) all the time.
 *   "half"    burns for half of a period of 100-300 ms (drawn each time,
 *             so no phase is fixed against the sampler's ticks), then
 *             sleeps in clock_nanosleep (TIMER_ABSTIME) to the period's
 *             end: in S half of the time on an idle box, less when the
 *             burn waits for a CPU (the log says how much).
 *   "blocker" burns 5 ms of wall time, then blocks in poll() for 200 ms:
 *             off CPU for a total it measures (call to return).
 *   "long"    blocks in poll() 2.5 s at a time: off CPU through whole
 *             intervals, the time it measures split across them.
 *
 * Usage: known_load SECONDS LOG. Every 10 ms the main thread appends to LOG
 * one line: CLOCK_REALTIME ns, then per thread its CPU time (ns), and the
 * half's time asleep, the blocker's and the long one's time off CPU so far
 * (ns, the current call counted up to the line's moment). A reader interpolates between lines.
 *
 * A line is one consistent moment: each sleeper publishes its counters
 * under a sequence count, and the logger reads the time, the CPU clocks and
 * the counters again until no sleeper changed them meanwhile and the reads
 * took under 1 ms. On a saturated box the logger is preempted for tens of
 * milliseconds; a line whose time was read before that and whose counters
 * after would hold a block that had not ended at its time.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#define NSEC 1000000000ll
#define HALF_PERIOD_MIN_NS (100 * 1000000ll)
#define HALF_PERIOD_SPREAD_NS (200 * 1000000ll)
#define BLOCK_MS 200
#define BLOCKER_RUN_NS (5 * 1000000ll)
#define LINE_READ_MAX_NS (1000000ll) /* a line's reads take at most this long */

static atomic_int stop;
static clockid_t cpu_clock[4];
/* Sleep or block time of finished calls, and the start of the current one (0 = none). */
static atomic_llong half_done, half_since, half_until;
static atomic_llong block_done, block_since, long_done, long_since;

/* Per sleeper (half, blocker, long): odd while it changes its counters. */
enum { SEQ_HALF, SEQ_BLOCK, SEQ_LONG, SEQ_N };
static atomic_uint seq[SEQ_N];

static void change_begin(int who)
{
	atomic_fetch_add(&seq[who], 1);
}

static void change_end(int who)
{
	atomic_fetch_add(&seq[who], 1);
}

static long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

__attribute__((noinline)) static unsigned long burn(unsigned long n)
{
	for (int i = 0; i < 20000; i++)
		n = n * 6364136223846793005ul + 1442695040888963407ul;
	return n;
}

static void *always(void *arg)
{
	unsigned long n = 1;

	prctl(PR_SET_NAME, "always");
	pthread_getcpuclockid(pthread_self(), &cpu_clock[0]);
	while (!atomic_load(&stop))
		n = burn(n);
	return (void *)n;
}

static void *half(void *arg)
{
	unsigned long n = 1, seed = 12345;

	prctl(PR_SET_NAME, "half");
	pthread_getcpuclockid(pthread_self(), &cpu_clock[1]);
	while (!atomic_load(&stop)) {
		/* 100-300 ms, long beside a wake-up delay: no phase fixed against the ticks. */
		long long period =
			HALF_PERIOD_MIN_NS + (long long)((seed >> 33) % HALF_PERIOD_SPREAD_NS);
		long long mark = now_ns(CLOCK_REALTIME);
		long long wake = mark + period, start;
		struct timespec ts = {wake / NSEC, wake % NSEC};

		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		while (now_ns(CLOCK_REALTIME) < mark + period / 2)
			n = burn(n);
		start = now_ns(CLOCK_REALTIME);
		if (start >= wake)
			continue; /* the burn ran past the period: no sleep this time */
		change_begin(SEQ_HALF);
		atomic_store(&half_until, wake);
		atomic_store(&half_since, start);
		change_end(SEQ_HALF);
		clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
		/* Asleep until the deadline; after it, runnable (waiting for a CPU). */
		change_begin(SEQ_HALF);
		atomic_fetch_add(&half_done, wake - start);
		atomic_store(&half_since, 0);
		change_end(SEQ_HALF);
	}
	return (void *)n;
}

static void *blocker(void *arg)
{
	unsigned long n = 1;

	prctl(PR_SET_NAME, "blocker");
	pthread_getcpuclockid(pthread_self(), &cpu_clock[2]);
	while (!atomic_load(&stop)) {
		long long until = now_ns(CLOCK_REALTIME) + BLOCKER_RUN_NS, start;

		while (now_ns(CLOCK_REALTIME) < until)
			n = burn(n);
		change_begin(SEQ_BLOCK);
		start = now_ns(CLOCK_REALTIME);
		atomic_store(&block_since, start);
		change_end(SEQ_BLOCK);
		poll(NULL, 0, BLOCK_MS);
		change_begin(SEQ_BLOCK);
		atomic_fetch_add(&block_done, now_ns(CLOCK_REALTIME) - start);
		atomic_store(&block_since, 0);
		change_end(SEQ_BLOCK);
	}
	return (void *)n;
}

static void *long_block(void *arg)
{
	prctl(PR_SET_NAME, "long");
	pthread_getcpuclockid(pthread_self(), &cpu_clock[3]);
	while (!atomic_load(&stop)) {
		long long start;

		change_begin(SEQ_LONG);
		start = now_ns(CLOCK_REALTIME);
		atomic_store(&long_since, start);
		change_end(SEQ_LONG);
		poll(NULL, 0, 2500);
		change_begin(SEQ_LONG);
		atomic_fetch_add(&long_done, now_ns(CLOCK_REALTIME) - start);
		atomic_store(&long_since, 0);
		change_end(SEQ_LONG);
	}
	return arg;
}

static long long so_far(atomic_llong *done, atomic_llong *since, atomic_llong *until, long long t)
{
	long long d = atomic_load(done), s = atomic_load(since), end;

	if (!s || s > t)
		return d;
	end = until ? atomic_load(until) : t;
	return d + ((end < t ? end : t) - s);
}

/* One line's figures, read at one moment (see the top of the file). */
static void read_line(long long v[7])
{
	for (;;) {
		unsigned q[SEQ_N];
		bool busy = false, same = true;

		for (int i = 0; i < SEQ_N; i++) {
			q[i] = atomic_load(&seq[i]);
			busy = busy || (q[i] & 1);
		}
		if (busy) {
			sched_yield();
			continue;
		}
		v[0] = now_ns(CLOCK_REALTIME);
		for (int i = 0; i < 3; i++)
			v[1 + i] = now_ns(cpu_clock[i]);
		v[4] = so_far(&half_done, &half_since, &half_until, v[0]);
		v[5] = so_far(&block_done, &block_since, NULL, v[0]);
		v[6] = so_far(&long_done, &long_since, NULL, v[0]);
		for (int i = 0; i < SEQ_N; i++)
			same = same && atomic_load(&seq[i]) == q[i];
		if (same && now_ns(CLOCK_REALTIME) - v[0] <= LINE_READ_MAX_NS)
			return;
	}
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	double secs = argc > 1 ? atof(argv[1]) : 30;
	FILE *log = argc > 2 ? fopen(argv[2], "w") : NULL;
	struct timespec step = {0, 10 * 1000000};
	long long end;

	if (!log) {
		fprintf(stderr, "usage: known_load SECONDS LOG\n");
		return 2;
	}
	pthread_create(&th[0], NULL, always, NULL);
	pthread_create(&th[1], NULL, half, NULL);
	pthread_create(&th[2], NULL, blocker, NULL);
	pthread_create(&th[3], NULL, long_block, NULL);
	end = now_ns(CLOCK_MONOTONIC) + (long long)(secs * NSEC);
	nanosleep(&step, NULL); /* the threads have their CPU clocks */
	while (now_ns(CLOCK_MONOTONIC) < end) {
		long long v[7];

		read_line(v);
		fprintf(log, "%lld %lld %lld %lld %lld %lld %lld\n", v[0], v[1], v[2], v[3], v[4],
			v[5], v[6]);
		fflush(log);
		nanosleep(&step, NULL);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++) /* the long one may be in a 2.5 s poll: not waited for */
		pthread_join(th[i], NULL);
	fclose(log);
	return 0;
}
