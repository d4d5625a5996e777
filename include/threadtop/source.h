/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A source produces event records (events.h) into a sink: the BPF ring
 * buffer, the /proc sampler, a replay file. The application owns the loop;
 * a source exposes an fd to poll (or -1) and is driven by two calls: tick
 * (take a sample now) and ready (its fd is readable). Sources never print:
 * they return negative errno and leave a one-line reason in their error.
 */
#ifndef THREADTOP_SOURCE_H
#define THREADTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"

/* Where events go. The record is only valid during the call: copy it. */
struct event_sink {
	void (*emit)(void *ctx, const struct tt_event_header *ev);
	void *ctx;
};

static inline void sink_emit(const struct event_sink *sink, const struct tt_event_header *ev)
{
	sink->emit(sink->ctx, ev);
}

struct strtab;

/*
 * Interns s (len bytes) in tab and, the first time, sends it as a
 * TT_EV_STRING record through sink. Returns its id, 0 for an empty string.
 */
uint32_t source_intern(struct strtab *tab, const struct event_sink *sink, const char *s, size_t len,
		       uint64_t now_ns);
/*
 * A string id a source kept (a cache of the last process's command line, a
 * user's name) used again: id itself while tab still has it (the use
 * noted), else 0: it was retired, so the caller interns the text again.
 */
uint32_t source_string_again(struct strtab *tab, uint32_t id, uint64_t now_ns);
/*
 * Retires the strings of tab no record has used for SOURCE_STRING_IDLE_NS,
 * one TT_EV_STRING of length 0 each (events.h), at most once every
 * SOURCE_STRING_AGE_NS (*aged_ns: the caller's, 0 at first). A source calls
 * it once per pass, so that its table and the model's hold the box's
 * strings of the last minute, not every command line since start.
 */
#define SOURCE_STRING_IDLE_NS (60 * 1000000000ull)
#define SOURCE_STRING_AGE_NS (10 * 1000000000ull)
void source_strings_age(struct strtab *tab, const struct event_sink *sink, uint64_t now_ns,
			uint64_t *aged_ns);

struct source;

/* ready() of a source with a finite input (a replay): nothing more will come. */
#define SOURCE_EOF 1

struct source_ops {
	const char *name; /* "bpf", "proc", "replay": the batch JSON "source" */
	/* fd to poll for readability, or -1 when the source is tick-driven only. */
	int (*fd)(struct source *src);
	/* Samples now (sampling sources); may emit synchronously. */
	int (*tick)(struct source *src, uint64_t now_ns);
	/* The fd is readable: drain it. A replay returns SOURCE_EOF at its end. */
	int (*ready)(struct source *src);
	/* An output interval ends: send what the source sums per interval. Optional. */
	int (*flush)(struct source *src, uint64_t now_ns);
	/*
	 * The sampling clock starts (the first interval begins): what the source
	 * sums per interval counts from now, not from when it was loaded. Optional.
	 */
	int (*start)(struct source *src, uint64_t now_ns);
	/* Releases everything; accepts NULL. */
	void (*free)(struct source *src);
};

/*
 * The schedule of the pass tick() is asked for, set by the application just
 * before each call. Ticks fall on absolute monotonic time (a multiple of
 * period_ns after the start); one the application could not take on time is
 * skipped, never run late in a burst, and counted in missed.
 */
struct source_clock {
	uint64_t period_ns; /* the period asked for (-F) */
	uint64_t since_ns;  /* since the previous pass asked for; 0 before the first */
	uint32_t missed;    /* ticks skipped by the clock since the previous pass */
	/*
	 * This pass closes an output interval (flush follows it): a source that
	 * sums per interval reads its sums at the pass's start, so that they end
	 * where the pass's samples are taken, however long the pass then takes
	 * (unwinding on a loaded box: 0.23 s once, which moved a quarter of one
	 * interval's off-CPU time into the one before).
	 */
	bool ends_interval;
};

/* Base of every source; a concrete source embeds it first. */
struct source {
	const struct source_ops *ops;
	struct event_sink sink;
	struct source_clock clock;
	char error[256]; /* the last failure, one line, for the user */
};

/*
 * Fills the TT_EV_TICK of a pass that began at start_ns from src->clock.
 * A source that lowered its rate passes the period it keeps now (target_ns,
 * 0 = the one asked) and the ticks it left out since its previous pass
 * (skipped), and reports since_ns of its own passes in since_ns (0 = the
 * clock's). The caller sets nr_threads and duration_ns.
 */
static inline void source_tick_fill(const struct source *src, struct tt_tick *tick,
				    uint64_t start_ns, uint64_t since_ns, uint64_t target_ns,
				    uint32_t skipped)
{
	const struct source_clock *c = &src->clock;
	uint64_t since = since_ns ? since_ns : c->since_ns;
	uint64_t period = c->period_ns ? c->period_ns : 1;

	*tick = (struct tt_tick){
		.hdr = {TT_EV_TICK, TT_TICK_VERSION, sizeof(*tick), start_ns},
		.weight_us = (__u32)((since ? since : period) / 1000),
		.asked_us = (__u32)(period / 1000),
		.target_us = (__u32)((target_ns ? target_ns : period) / 1000),
		.missed = c->missed + skipped,
	};
}

static inline void source__free(struct source *src)
{
	if (src)
		src->ops->free(src);
}

#endif /* THREADTOP_SOURCE_H */
