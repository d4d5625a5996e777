/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one event loop: a single-threaded epoll over fds (the BPF ring buffer,
 * stdin, a replay file), timerfds (sampling ticks, output intervals) and a
 * signalfd. Handlers run to completion; none may block.
 */
#ifndef THREADTOP_LOOP_H
#define THREADTOP_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct loop;

/* A handler returns 0 to go on or a negative errno to stop the loop with it. */
typedef int (*loop_fd_fn)(void *ctx, int fd, uint32_t epoll_events);
typedef int (*loop_timer_fn)(void *ctx, uint64_t now_ns, uint64_t expirations);
typedef int (*loop_signal_fn)(void *ctx, int signo);

/* NULL with errno set on failure. */
struct loop *loop__new(void);
void loop__free(struct loop *loop);

/* Watches fd for EPOLLIN (and errors/hang-up). The loop does not own fd. */
int loop__add_fd(struct loop *loop, int fd, loop_fd_fn fn, void *ctx);
/*
 * Stops watching fd; its slot is reused by the next watch added. Safe from
 * any handler, even for an fd with an event pending in the same batch.
 */
int loop__remove_fd(struct loop *loop, int fd);
/*
 * Also wakes fd's handler when fd can be written (EPOLLOUT), or stops doing
 * so: a non-blocking writer that filled a socket waits for room this way.
 */
int loop__watch_write(struct loop *loop, int fd, bool on);
/* Watch slots in use or free for reuse (tests: removed watches do not pile up). */
size_t loop__nr_slots(const struct loop *loop);

/*
 * A periodic timer (CLOCK_MONOTONIC) first firing after first_ns, then every
 * period_ns. Returns a timer id (>= 0) or a negative errno.
 */
int loop__add_timer(struct loop *loop, uint64_t first_ns, uint64_t period_ns, loop_timer_fn fn,
		    void *ctx);
/*
 * A periodic timer whose first expiry is at first_abs_ns on CLOCK_MONOTONIC,
 * then every period_ns after it: expiries stay on that grid however late
 * the handler runs (the kernel counts the ones it missed in expirations).
 */
int loop__add_timer_at(struct loop *loop, uint64_t first_abs_ns, uint64_t period_ns,
		       loop_timer_fn fn, void *ctx);
/* Changes a timer's period (0 disarms it). */
int loop__set_timer(struct loop *loop, int timer_id, uint64_t first_ns, uint64_t period_ns);

/*
 * Blocks the signals in set and delivers them through fn instead, before
 * the other handlers of the same wake-up: a handler that stops the loop
 * (SIGTERM) waits for none of them.
 */
int loop__add_signals(struct loop *loop, const sigset_t *set, loop_signal_fn fn, void *ctx);

/* Runs until loop__stop or a handler error. Returns 0 or that error. */
int loop__run(struct loop *loop);
void loop__stop(struct loop *loop);

#endif /* THREADTOP_LOOP_H */
