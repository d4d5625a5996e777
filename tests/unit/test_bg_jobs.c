// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the background jobs (bg_jobs.h): a job runs on the worker
 * without anyone waiting, a wait for a job the worker has not started runs
 * it at once on the waiting thread, a cancelled job never runs, and with no
 * queue a job runs when waited for.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "bg_jobs.h"

struct test_job {
	struct bg_job job;
	atomic_int runs;
	pthread_t ran_on;
	atomic_bool *gate; /* non-NULL: the job waits for it to be true */
};

static void run(struct bg_job *job)
{
	struct test_job *t = (struct test_job *)job;

	while (t->gate && !atomic_load(t->gate)) {
		struct timespec ts = {0, 1000000};

		nanosleep(&ts, NULL);
	}
	t->ran_on = pthread_self();
	atomic_fetch_add(&t->runs, 1);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* Ahead: the worker runs a job nobody waits for. */
static void runs_ahead(void **state)
{
	struct bg_jobs *q = bg_jobs__new();
	struct test_job t = {.job.run = run};

	(void)state;
	bg_jobs__submit(q, &t.job);
	for (int i = 0; i < 5000 && !bg_jobs__done(q, &t.job); i++)
		sleep_ms(1);
	assert_true(bg_jobs__done(q, &t.job));
	assert_int_equal(atomic_load(&t.runs), 1);
	assert_false(pthread_equal(t.ran_on, pthread_self()));
	bg_jobs__wait(q, &t.job); /* done: returns without running it again */
	assert_int_equal(atomic_load(&t.runs), 1);
	bg_jobs__free(q);
}

/* Two jobs queued: slow, held until *open, and t behind it. */
struct behind {
	struct bg_jobs *q;
	atomic_bool open;
	struct test_job slow, t;
};

static void queue_behind_slow(struct behind *b)
{
	b->q = bg_jobs__new();
	atomic_init(&b->open, false);
	b->slow = (struct test_job){.job.run = run, .gate = &b->open};
	b->t = (struct test_job){.job.run = run};
	bg_jobs__submit(b->q, &b->slow.job);
	bg_jobs__submit(b->q, &b->t.job);
}

/* A wait never queues behind other jobs: the one waited for runs here. */
static void wait_claims(void **state)
{
	struct behind b;

	(void)state;
	queue_behind_slow(&b);
	bg_jobs__wait(b.q, &b.t.job);
	assert_int_equal(atomic_load(&b.t.runs), 1);
	assert_true(pthread_equal(b.t.ran_on, pthread_self()));
	assert_int_equal(atomic_load(&b.slow.runs), 0);
	atomic_store(&b.open, true);
	bg_jobs__wait(b.q, &b.slow.job);
	assert_int_equal(atomic_load(&b.slow.runs), 1);
	assert_int_equal(atomic_load(&b.t.runs), 1); /* the worker did not run it too */
	bg_jobs__free(b.q);
}

/* Cancelled before it started: never runs, even once the worker is free. */
static void cancel_queued(void **state)
{
	struct behind b;

	(void)state;
	queue_behind_slow(&b);
	bg_jobs__cancel(b.q, &b.t.job);
	atomic_store(&b.open, true);
	bg_jobs__cancel(b.q, &b.slow.job); /* running or about to: waits for its end */
	sleep_ms(20);
	assert_int_equal(atomic_load(&b.t.runs), 0);
	bg_jobs__free(b.q);
	assert_int_equal(atomic_load(&b.t.runs), 0);
}

/* No queue: the job runs at the wait, once. */
static void no_queue(void **state)
{
	struct test_job t = {.job.run = run};

	(void)state;
	bg_jobs__submit(NULL, &t.job);
	assert_false(bg_jobs__done(NULL, &t.job));
	bg_jobs__wait(NULL, &t.job);
	bg_jobs__wait(NULL, &t.job);
	assert_int_equal(atomic_load(&t.runs), 1);
	assert_true(bg_jobs__done(NULL, &t.job));
	bg_jobs__cancel(NULL, &t.job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(runs_ahead),
		cmocka_unit_test(wait_claims),
		cmocka_unit_test(cancel_queued),
		cmocka_unit_test(no_queue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
