// SPDX-License-Identifier: GPL-2.0-only
/* One worker thread and its queue (see bg_jobs.h). */
#include <pthread.h>
#include <stdlib.h>

#include "bg_jobs.h"
#include "util.h"

enum { JOB_IDLE, JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct bg_jobs {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a job was queued, a job ended, or stop */
	struct bg_job *head, **tail;
	pthread_t worker;
	bool started, failed, stop;
};

struct bg_jobs *bg_jobs__new(void)
{
	struct bg_jobs *q = xcalloc(1, sizeof(*q));

	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->tail = &q->head;
	return q;
}

static void *worker_main(void *arg)
{
	struct bg_jobs *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct bg_job *job = q->head;

		if (q->stop)
			break;
		if (!job) {
			pthread_cond_wait(&q->cond, &q->lock);
			continue;
		}
		q->head = job->next;
		if (!q->head)
			q->tail = &q->head;
		job->state = JOB_RUNNING;
		pthread_mutex_unlock(&q->lock);
		job->run(job);
		pthread_mutex_lock(&q->lock);
		job->state = JOB_DONE;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

void bg_jobs__free(struct bg_jobs *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	if (q->started)
		pthread_join(q->worker, NULL);
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

void bg_jobs__submit(struct bg_jobs *q, struct bg_job *job)
{
	job->next = NULL;
	job->state = JOB_IDLE;
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	if (!q->started && !q->failed) {
		if (thread_start_quiet(&q->worker, worker_main, q) == 0)
			q->started = true;
		else
			q->failed = true;
	}
	if (q->started) {
		job->state = JOB_QUEUED;
		*q->tail = job;
		q->tail = &job->next;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
}

/* Takes a queued job out; the lock is held. */
static void unlink_job(struct bg_jobs *q, struct bg_job *job)
{
	struct bg_job **p = &q->head;

	while (*p && *p != job)
		p = &(*p)->next;
	if (!*p)
		return;
	*p = job->next;
	if (!*p)
		q->tail = p;
	job->next = NULL;
}

/* Waits for a running job, or claims one not started; the lock is held. */
static bool claim_or_wait(struct bg_jobs *q, struct bg_job *job)
{
	while (job->state == JOB_RUNNING)
		pthread_cond_wait(&q->cond, &q->lock);
	if (job->state != JOB_QUEUED)
		return false;
	unlink_job(q, job);
	job->state = JOB_IDLE;
	return true;
}

void bg_jobs__wait(struct bg_jobs *q, struct bg_job *job)
{
	bool here = true;

	if (job->state == JOB_DONE && !q)
		return;
	if (q) {
		pthread_mutex_lock(&q->lock);
		here = claim_or_wait(q, job) || job->state == JOB_IDLE;
		pthread_mutex_unlock(&q->lock);
	}
	if (!here)
		return;
	job->run(job);
	job->state = JOB_DONE;
}

bool bg_jobs__done(struct bg_jobs *q, struct bg_job *job)
{
	int state;

	if (!q)
		return job->state == JOB_DONE;
	pthread_mutex_lock(&q->lock);
	state = job->state;
	pthread_mutex_unlock(&q->lock);
	return state == JOB_DONE;
}

void bg_jobs__cancel(struct bg_jobs *q, struct bg_job *job)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	claim_or_wait(q, job);
	pthread_mutex_unlock(&q->lock);
}
