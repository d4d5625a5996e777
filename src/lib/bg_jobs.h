/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Work that the loop thread must not wait for when it can be done ahead:
 * one worker thread runs the jobs in the order they were given. A job the
 * loop needs before the worker got to it runs on the loop at once, so a
 * wait is never longer than the job itself (nor than the one running).
 *
 * The worker is started at the first job, with every signal blocked
 * (thread_start_quiet) and, as any thread the SCHED_RESET_ON_FORK loop
 * starts, at normal priority: what it does never holds a CPU from the box.
 * When it cannot start, jobs run when waited for, as without it.
 *
 * A job touches only what its owner hands it and does not read until
 * bg_jobs__wait returns; the owner's other fields stay the loop's.
 */
#ifndef THREADTOP_BG_JOBS_H
#define THREADTOP_BG_JOBS_H

#include <stdbool.h>

struct bg_jobs;

struct bg_job {
	void (*run)(struct bg_job *job);
	/* private to bg_jobs */
	struct bg_job *next;
	int state;
};

struct bg_jobs *bg_jobs__new(void);
/* Stops the worker once its job is done; jobs still queued never run (their
 * owners cancelled or waited for them before, as they must). */
void bg_jobs__free(struct bg_jobs *q);

/* Queues job (run set): the worker runs it when the ones before are done.
 * q NULL: the job waits for bg_jobs__wait. */
void bg_jobs__submit(struct bg_jobs *q, struct bg_job *job);
/* Returns once job has run: here at once if no worker has started it. */
void bg_jobs__wait(struct bg_jobs *q, struct bg_job *job);
/* Whether job has run (bg_jobs__wait would not wait). */
bool bg_jobs__done(struct bg_jobs *q, struct bg_job *job);
/* Takes job out of the queue if it has not started (it will not run), or
 * waits for it to end: before its owner frees what it uses. */
void bg_jobs__cancel(struct bg_jobs *q, struct bg_job *job);

#endif /* THREADTOP_BG_JOBS_H */
