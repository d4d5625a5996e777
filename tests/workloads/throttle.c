// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: lets process argv[1] run argv[2] microseconds of every argv[3]
 * (SIGCONT, then SIGSTOP), until it exits: the few percent of a CPU a sick
 * box leaves a process, whatever the box's real load. At SCHED_FIFO
 * priority 2 when it can (above threadtop's SCHED_RR 1), so that its own
 * schedule holds on a saturated box. Leaves the process running when it
 * ends (the process exited or became a zombie, or SIGTERM).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stop;

static void on_term(int signo)
{
	(void)signo;
	stop = 1;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop)
		;
}

/* Whether pid is gone or a zombie: kill() still succeeds on a zombie. */
static int gone(long pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

int main(int argc, char **argv)
{
	struct sched_param fifo = {.sched_priority = 2};
	long pid, run_us, period_us;

	if (argc != 4 || (pid = atol(argv[1])) <= 0 || (run_us = atol(argv[2])) <= 0 ||
	    (period_us = atol(argv[3])) <= run_us) {
		fprintf(stderr, "usage: throttle PID RUN_US PERIOD_US (RUN_US < PERIOD_US)\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo) < 0)
		perror("throttle: SCHED_FIFO (goes on at normal priority)");
	while (!stop && !gone(pid)) {
		if (kill((pid_t)pid, SIGCONT) < 0)
			break;
		sleep_us(run_us);
		if (stop || kill((pid_t)pid, SIGSTOP) < 0)
			break;
		sleep_us(period_us - run_us);
	}
	kill((pid_t)pid, SIGCONT);
	return 0;
}
