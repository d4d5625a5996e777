// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the epoll loop: timers, fds, signals and stopping. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop.h"
#include "util.h"

struct counts {
	struct loop *loop;
	int timer, fd, signal, last_signo;
	int rfd;
};

static int on_timer(void *ctx, uint64_t now, uint64_t expirations)
{
	struct counts *c = ctx;

	assert_true(expirations >= 1);
	if (++c->timer == 3)
		loop__stop(c->loop);
	return 0;
}

static void timer_fires_periodically(void **state)
{
	struct counts c = {.loop = loop__new()};
	uint64_t t0 = monotonic_ns();

	assert_non_null(c.loop);
	assert_true(loop__add_timer(c.loop, 1000000, 1000000, on_timer, &c) >= 0);
	assert_int_equal(loop__run(c.loop), 0);
	assert_int_equal(c.timer, 3);
	assert_true(monotonic_ns() - t0 >= 3000000);
	loop__free(c.loop);
}

/* Records when the absolute timer fired and what it says it missed. */
struct abs_run {
	struct loop *loop;
	uint64_t first_ns, expirations;
	int calls;
};

static int on_abs_timer(void *ctx, uint64_t now, uint64_t expirations)
{
	struct abs_run *r = ctx;

	if (!r->calls++) {
		r->first_ns = now;
		/* Late by 3.5 periods: the grid stays, the kernel counts what was skipped. */
		usleep(35000);
		return 0;
	}
	r->expirations = expirations;
	loop__stop(r->loop);
	return 0;
}

static void timer_at_keeps_its_grid(void **state)
{
	struct abs_run r = {.loop = loop__new()};
	uint64_t first = monotonic_ns() + 20000000; /* 20 ms from now, period 10 ms */

	assert_non_null(r.loop);
	assert_true(loop__add_timer_at(r.loop, first, 10000000, on_abs_timer, &r) >= 0);
	assert_int_equal(loop__run(r.loop), 0);
	assert_true(r.first_ns >= first); /* not before the absolute time asked */
	/* Ticks at first + 10, + 20, + 30 ms fell in the 35 ms sleep: one read, all counted. */
	assert_true(r.expirations >= 3);
	loop__free(r.loop);
}

static int on_fd(void *ctx, int fd, uint32_t events)
{
	struct counts *c = ctx;
	char b;

	assert_int_equal(read(fd, &b, 1), 1);
	c->fd++;
	loop__stop(c->loop);
	return 0;
}

static int on_error_fd(void *ctx, int fd, uint32_t events)
{
	return -EPIPE;
}

static void fd_readable_and_errors_propagate(void **state)
{
	struct counts c = {.loop = loop__new()};
	int p[2];

	assert_int_equal(pipe(p), 0);
	assert_int_equal(loop__add_fd(c.loop, p[0], on_fd, &c), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(loop__run(c.loop), 0);
	assert_int_equal(c.fd, 1);
	assert_int_equal(loop__remove_fd(c.loop, p[0]), 0);
	assert_int_equal(loop__remove_fd(c.loop, p[0]), -ENOENT);
	/* A handler's error ends the loop with that error. */
	assert_int_equal(loop__add_fd(c.loop, p[0], on_error_fd, &c), 0);
	assert_int_equal(write(p[1], "y", 1), 1);
	assert_int_equal(loop__run(c.loop), -EPIPE);
	close(p[0]);
	close(p[1]);
	loop__free(c.loop);
}

/* Removed fd watches are freed and their slots reused: none pile up. */
static void removed_watches_are_reused(void **state)
{
	struct counts c = {.loop = loop__new()};
	int timer = loop__add_timer(c.loop, 0, 0, on_timer, &c);

	assert_true(timer >= 0);
	for (int i = 0; i < 1000; i++) {
		int p[2];

		assert_int_equal(pipe(p), 0);
		assert_int_equal(loop__add_fd(c.loop, p[0], on_fd, &c), 0);
		assert_int_equal(loop__remove_fd(c.loop, p[0]), 0);
		close(p[0]);
		close(p[1]);
	}
	assert_true(loop__nr_slots(c.loop) <= 2);
	/* The timer's id still names the timer. */
	assert_int_equal(loop__set_timer(c.loop, timer, 1000, 0), 0);
	loop__free(c.loop);
}

struct pair {
	struct loop *loop;
	int fds[2]; /* read ends, both readable in the same batch */
	int calls;
};

/* Whichever runs first removes the other, whose event is already in the batch. */
static int on_pair(void *ctx, int fd, uint32_t events)
{
	struct pair *p = ctx;
	char b;

	p->calls++;
	assert_int_equal(read(fd, &b, 1), 1);
	loop__remove_fd(p->loop, fd == p->fds[0] ? p->fds[1] : p->fds[0]);
	loop__remove_fd(p->loop, fd);
	loop__stop(p->loop);
	return 0;
}

static void remove_with_event_pending(void **state)
{
	struct pair p = {.loop = loop__new()};
	int a[2], b[2];

	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	p.fds[0] = a[0];
	p.fds[1] = b[0];
	assert_int_equal(write(a[1], "x", 1), 1);
	assert_int_equal(write(b[1], "y", 1), 1);
	assert_int_equal(loop__add_fd(p.loop, a[0], on_pair, &p), 0);
	assert_int_equal(loop__add_fd(p.loop, b[0], on_pair, &p), 0);
	assert_int_equal(loop__run(p.loop), 0);
	/* The removed watch's pending event was not dispatched (ASan: nor read after free). */
	assert_int_equal(p.calls, 1);
	assert_int_equal(loop__nr_slots(p.loop), 2);
	assert_int_equal(loop__remove_fd(p.loop, a[0]), -ENOENT);
	loop__free(p.loop);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

static int on_signal(void *ctx, int signo)
{
	struct counts *c = ctx;

	c->signal++;
	c->last_signo = signo;
	loop__stop(c->loop);
	return 0;
}

static void signals_arrive_as_events(void **state)
{
	struct counts c = {.loop = loop__new()};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	assert_int_equal(loop__add_signals(c.loop, &set, on_signal, &c), 0);
	raise(SIGUSR1); /* blocked now: queued for the signalfd, not fatal */
	assert_int_equal(loop__run(c.loop), 0);
	assert_int_equal(c.signal, 1);
	assert_int_equal(c.last_signo, SIGUSR1);
	loop__free(c.loop);
}

static int on_fd_counted(void *ctx, int fd, uint32_t events)
{
	struct counts *c = ctx;
	char b;

	assert_int_equal(read(fd, &b, 1), 1);
	c->fd++;
	return 0;
}

/*
 * A signal that woke the loop with other events is handled before them: a
 * SIGTERM that stops the loop waits for no pass or output of the same batch.
 */
static void signals_come_first(void **state)
{
	struct counts c = {.loop = loop__new()};
	sigset_t set;
	int p[2];

	assert_int_equal(pipe(p), 0);
	assert_int_equal(loop__add_fd(c.loop, p[0], on_fd_counted, &c), 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	assert_int_equal(loop__add_signals(c.loop, &set, on_signal, &c), 0);
	assert_int_equal(write(p[1], "x", 1), 1); /* ready first */
	raise(SIGUSR1);
	assert_int_equal(loop__run(c.loop), 0);
	assert_int_equal(c.signal, 1);
	assert_int_equal(c.fd, 0);
	loop__free(c.loop);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timer_fires_periodically),
		cmocka_unit_test(timer_at_keeps_its_grid),
		cmocka_unit_test(fd_readable_and_errors_propagate),
		cmocka_unit_test(signals_arrive_as_events),
		cmocka_unit_test(signals_come_first),
		cmocka_unit_test(removed_watches_are_reused),
		cmocka_unit_test(remove_with_event_pending),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
