// SPDX-License-Identifier: GPL-2.0-only
/* The epoll event loop with timerfds and a signalfd (see loop.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "loop.h"
#include "util.h"

enum watch_kind { WATCH_FD, WATCH_TIMER, WATCH_SIGNAL };

struct watch {
	enum watch_kind kind;
	int fd;
	bool owned; /* the loop created fd (timerfd, signalfd) and closes it */
	bool removed;
	void *ctx;
	union {
		loop_fd_fn fd_fn;
		loop_timer_fn timer_fn;
		loop_signal_fn signal_fn;
	};
};

/*
 * watches[] is indexed by timer id, so slots never move: a removed fd watch
 * leaves a NULL slot that the next watch reuses. The watch itself waits in
 * removed[] until the epoll batch being dispatched is over (an event of
 * that batch may still point at it), then is freed.
 */
struct loop {
	int epfd;
	bool stop;
	bool dispatching; /* inside a batch of loop__run */
	struct watch **watches;
	size_t nr, cap;
	struct watch **removed;
	size_t nr_removed, cap_removed;
};

struct loop *loop__new(void)
{
	struct loop *loop;
	int fd = epoll_create1(EPOLL_CLOEXEC);

	if (fd < 0)
		return NULL;
	loop = xcalloc(1, sizeof(*loop));
	loop->epfd = fd;
	return loop;
}

/* Frees the watches removed during the batch that just ended. */
static void reap_removed(struct loop *loop)
{
	for (size_t i = 0; i < loop->nr_removed; i++)
		free(loop->removed[i]);
	loop->nr_removed = 0;
}

void loop__free(struct loop *loop)
{
	if (!loop)
		return;
	for (size_t i = 0; i < loop->nr; i++) {
		if (!loop->watches[i])
			continue;
		if (loop->watches[i]->owned)
			close(loop->watches[i]->fd);
		free(loop->watches[i]);
	}
	reap_removed(loop);
	free(loop->removed);
	free(loop->watches);
	close(loop->epfd);
	free(loop);
}

static int add_watch(struct loop *loop, struct watch *w)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = w};

	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, w->fd, &ev) < 0) {
		int err = -errno;

		if (w->owned)
			close(w->fd);
		free(w);
		return err;
	}
	for (size_t i = 0; i < loop->nr; i++) {
		if (!loop->watches[i]) {
			loop->watches[i] = w;
			return (int)i;
		}
	}
	xgrow((void **)&loop->watches, &loop->cap, loop->nr + 1, sizeof(*loop->watches));
	loop->watches[loop->nr++] = w;
	return (int)(loop->nr - 1);
}

size_t loop__nr_slots(const struct loop *loop)
{
	return loop->nr;
}

int loop__add_fd(struct loop *loop, int fd, loop_fd_fn fn, void *ctx)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	int id;

	w->kind = WATCH_FD;
	w->fd = fd;
	w->fd_fn = fn;
	w->ctx = ctx;
	id = add_watch(loop, w);
	return id < 0 ? id : 0;
}

int loop__remove_fd(struct loop *loop, int fd)
{
	for (size_t i = 0; i < loop->nr; i++) {
		struct watch *w = loop->watches[i];

		if (w && w->kind == WATCH_FD && w->fd == fd) {
			w->removed = true;
			epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL);
			loop->watches[i] = NULL;
			if (!loop->dispatching) {
				free(w); /* no batch in flight can point at it */
				return 0;
			}
			xgrow((void **)&loop->removed, &loop->cap_removed, loop->nr_removed + 1,
			      sizeof(*loop->removed));
			loop->removed[loop->nr_removed++] = w;
			return 0;
		}
	}
	return -ENOENT;
}

int loop__watch_write(struct loop *loop, int fd, bool on)
{
	for (size_t i = 0; i < loop->nr; i++) {
		struct watch *w = loop->watches[i];
		struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0u), .data.ptr = w};

		if (w && w->kind == WATCH_FD && w->fd == fd)
			return epoll_ctl(loop->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
	}
	return -ENOENT;
}

static int arm_flags(int fd, uint64_t first_ns, uint64_t period_ns, int flags)
{
	struct itimerspec its = {
		.it_value = {(time_t)(first_ns / NSEC_PER_SEC), (long)(first_ns % NSEC_PER_SEC)},
		.it_interval = {(time_t)(period_ns / NSEC_PER_SEC),
				(long)(period_ns % NSEC_PER_SEC)},
	};

	if (period_ns && !first_ns)
		its.it_value = its.it_interval;
	return timerfd_settime(fd, flags, &its, NULL) < 0 ? -errno : 0;
}

static int arm(int fd, uint64_t first_ns, uint64_t period_ns)
{
	return arm_flags(fd, first_ns, period_ns, 0);
}

static int add_timer(struct loop *loop, uint64_t first_ns, uint64_t period_ns, int flags,
		     loop_timer_fn fn, void *ctx)
{
	struct watch *w;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK), err;

	if (fd < 0)
		return -errno;
	err = arm_flags(fd, first_ns, period_ns, flags);
	if (err) {
		close(fd);
		return err;
	}
	w = xcalloc(1, sizeof(*w));
	w->kind = WATCH_TIMER;
	w->fd = fd;
	w->owned = true;
	w->timer_fn = fn;
	w->ctx = ctx;
	return add_watch(loop, w);
}

int loop__add_timer(struct loop *loop, uint64_t first_ns, uint64_t period_ns, loop_timer_fn fn,
		    void *ctx)
{
	return add_timer(loop, first_ns, period_ns, 0, fn, ctx);
}

int loop__add_timer_at(struct loop *loop, uint64_t first_abs_ns, uint64_t period_ns,
		       loop_timer_fn fn, void *ctx)
{
	return add_timer(loop, first_abs_ns, period_ns, TFD_TIMER_ABSTIME, fn, ctx);
}

int loop__set_timer(struct loop *loop, int timer_id, uint64_t first_ns, uint64_t period_ns)
{
	if (timer_id < 0 || (size_t)timer_id >= loop->nr || !loop->watches[timer_id] ||
	    loop->watches[timer_id]->kind != WATCH_TIMER)
		return -EINVAL;
	return arm(loop->watches[timer_id]->fd, first_ns, period_ns);
}

int loop__add_signals(struct loop *loop, const sigset_t *set, loop_signal_fn fn, void *ctx)
{
	struct watch *w;
	int fd;

	if (sigprocmask(SIG_BLOCK, set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	w = xcalloc(1, sizeof(*w));
	w->kind = WATCH_SIGNAL;
	w->fd = fd;
	w->owned = true;
	w->signal_fn = fn;
	w->ctx = ctx;
	return add_watch(loop, w) < 0 ? -EINVAL : 0;
}

static int dispatch(struct watch *w, uint32_t events)
{
	if (w->removed)
		return 0;
	switch (w->kind) {
	case WATCH_FD:
		return w->fd_fn(w->ctx, w->fd, events);
	case WATCH_TIMER: {
		uint64_t expirations = 0;

		if (read(w->fd, &expirations, sizeof(expirations)) != sizeof(expirations))
			return 0; /* spurious wake-up */
		return w->timer_fn(w->ctx, monotonic_ns(), expirations);
	}
	case WATCH_SIGNAL: {
		struct signalfd_siginfo si;
		int err = 0;

		while (!err && read(w->fd, &si, sizeof(si)) == sizeof(si))
			err = w->signal_fn(w->ctx, (int)si.ssi_signo);
		return err;
	}
	}
	return 0;
}

int loop__run(struct loop *loop)
{
	struct epoll_event events[16];

	loop->stop = false;
	while (!loop->stop) {
		int n = epoll_wait(loop->epfd, events, (int)ARRAY_SIZE(events), -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		loop->dispatching = true;
		/* Signals first: a SIGTERM waits for no pass or output of the same batch. */
		for (int pass = 0; pass < 2; pass++) {
			for (int i = 0; i < n && !loop->stop; i++) {
				const struct watch *w = events[i].data.ptr;
				int err;

				if ((w->kind == WATCH_SIGNAL) != (pass == 0))
					continue;
				err = dispatch(events[i].data.ptr, events[i].events);
				if (err) {
					loop->dispatching = false;
					reap_removed(loop);
					return err;
				}
			}
		}
		loop->dispatching = false;
		reap_removed(loop);
	}
	return 0;
}

void loop__stop(struct loop *loop)
{
	loop->stop = true;
}
