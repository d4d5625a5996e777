// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampling clock as the model saw it (see model__rate): the passes taken
 * and the ticks missed per window, the rate asked for and the rate the
 * source keeps. Every source samples each thread it follows once per pass,
 * so a thread sample stands for the window's length divided by the passes
 * taken in it: the period really achieved, not the one asked for. Weighing
 * by it keeps avg_active, thread_time and the views that sum samples honest
 * when ticks are missed or a source lowers its rate on a loaded box.
 */
#include <errno.h>
#include <string.h>

#include "model_internal.h"
#include "util.h"

/* Moves the tick rings to second sec, clearing the seconds skipped. */
static void ring_advance(struct model_clock *c, uint32_t sec)
{
	if (sec <= c->ring_sec)
		return;
	if (sec - c->ring_sec >= MINUTE_SLOTS) {
		memset(c->ring_ticks, 0, sizeof(c->ring_ticks));
		memset(c->ring_missed, 0, sizeof(c->ring_missed));
	} else {
		for (uint32_t s = c->ring_sec + 1; s <= sec; s++)
			c->ring_ticks[s % MINUTE_SLOTS] = c->ring_missed[s % MINUTE_SLOTS] = 0;
	}
	c->ring_sec = sec;
}

void model_clock_tick(struct model *m, const struct tt_tick *tick)
{
	struct model_clock *c = &m->clock;
	uint32_t sec = model_sec(m, tick->hdr.time_ns);
	uint32_t missed = tick->hdr.version >= 2 ? tick->missed : 0;

	/*
	 * The first pass of a run stands for the time before it (its weight):
	 * a period, or for a source whose tracers count from the sampling
	 * clock's start, the time since (app.c's first_since). Not the time
	 * the source took to load: the first window is what was sampled.
	 */
	if (!m->first_pass_ns)
		m->first_pass_ns = tick->hdr.time_ns;
	if (!m->ticks && !m->intervals && tick->weight_us) {
		uint64_t began = tick->hdr.time_ns - (uint64_t)tick->weight_us * NSEC_PER_USEC;

		if (tick->hdr.time_ns > (uint64_t)tick->weight_us * NSEC_PER_USEC &&
		    began > m->interval_start_ns) {
			m->interval_start_ns = began;
			m->session_start_ns = began;
			sec = model_sec(m, tick->hdr.time_ns);
		}
	}
	ring_advance(c, sec);
	c->ring_ticks[sec % MINUTE_SLOTS]++;
	c->ring_missed[sec % MINUTE_SLOTS] += missed;
	c->missed_interval += missed;
	c->missed_session += missed;
	if (tick->hdr.version >= 2) {
		c->asked_us = tick->asked_us;
		c->target_us = tick->target_us;
	} else if (tick->weight_us) {
		/* Version 1 ticks carry only the period asked for. */
		c->asked_us = c->target_us = tick->weight_us;
	}
}

void model_clock_end_interval(struct model *m)
{
	struct model_clock *c = &m->clock;

	c->ticks_last = m->ticks_interval;
	c->missed_last = c->missed_interval;
	c->missed_interval = 0;
}

int model__rate(const struct model *m, enum model_window window, struct model_rate *ret)
{
	const struct model_clock *c = &m->clock;
	uint32_t now_sec = model_sec(m, m->now_ns);
	uint64_t ticks, missed;
	double window_s;

	switch (window) {
	case WIN_INTERVAL:
		ticks = m->ticks_interval;
		missed = c->missed_interval;
		break;
	case WIN_LAST:
		ticks = c->ticks_last;
		missed = c->missed_last;
		break;
	case WIN_SESSION:
		ticks = m->ticks;
		missed = c->missed_session;
		break;
	case WIN_MINUTE:
		ticks = ring_sum_u32(c->ring_ticks, c->ring_sec, now_sec);
		missed = ring_sum_u32(c->ring_missed, c->ring_sec, now_sec);
		break;
	default:
		return -EINVAL;
	}
	window_s = model__window_seconds(m, window);
	*ret = (struct model_rate){
		.hz_asked = c->asked_us ? 1e6 / c->asked_us : 0,
		.hz_target = c->target_us ? 1e6 / c->target_us : 0,
		.hz_achieved = window_s > 0 ? (double)ticks / window_s : 0,
		.ticks = ticks,
		.missed = missed,
		.window_s = window_s,
	};
	/* No pass yet: a sample (there is none to weigh) would stand for the period. */
	if (ticks && window_s > 0)
		ret->weight_s = window_s / (double)ticks;
	else
		ret->weight_s = (c->target_us ? c->target_us : m->weight_us) / 1e6;
	return 0;
}

double model__sample_weight_s(const struct model *m, enum model_window window)
{
	struct model_rate r;

	return model__rate(m, window, &r) < 0 ? 0 : r.weight_s;
}
