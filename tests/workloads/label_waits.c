// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload for application labels: like a database that reports its wait
 * events, thread "waiter" calls begin_wait("IO:DataFileRead"), sleeps 300 ms,
 * calls end_wait() and burns CPU for 200 ms, again and again; thread "evil"
 * reports an event name holding an escape sequence; thread "phases" runs
 * do_phase(7), which sleeps 100 ms inside, then sleeps 100 ms outside it.
 * Runs for argv[1] seconds (default 30).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* The probed functions: external so that they have symbols to attach to. */
void begin_wait(const char *event);
void end_wait(void);
int do_phase(int n);

static volatile int stop;
static volatile const char *current_event;
static volatile unsigned long sink;

__attribute__((noipa, used)) void begin_wait(const char *event)
{
	current_event = event;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noipa, used)) void end_wait(void)
{
	current_event = NULL;
	__asm__ volatile("" ::: "memory");
}

static void nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static void burn(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			sink = sink * 31 + (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

__attribute__((noipa, used)) int do_phase(int n)
{
	nap(100);
	return n;
}

static void *waiter(void *arg)
{
	/* The event name lives in a fresh heap page: never touched before the probe reads it. */
	char *event = malloc(1 << 16);

	prctl(PR_SET_NAME, "waiter");
	event[(1 << 15)] = '\0';
	while (!stop) {
		char *name = event + (1 << 15) + 64;

		__builtin_memcpy(name, "IO:DataFileRead", 16);
		begin_wait(name);
		nap(300);
		end_wait();
		burn(200);
	}
	free(event);
	return NULL;
}

static void *evil(void *arg)
{
	prctl(PR_SET_NAME, "evil");
	while (!stop) {
		begin_wait("\x1b[31mLock:\x07relation");
		nap(200);
		end_wait();
	}
	return NULL;
}

static void *phases(void *arg)
{
	prctl(PR_SET_NAME, "phases");
	while (!stop) {
		do_phase(7);
		nap(100);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 30;
	pthread_t a, b, c;

	pthread_create(&a, NULL, waiter, NULL);
	pthread_create(&b, NULL, evil, NULL);
	pthread_create(&c, NULL, phases, NULL);
	sleep((unsigned)secs);
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	return 0;
}
