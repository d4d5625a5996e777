// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ring of timed on-CPU samples (see model_timed.h): grows by doubling
 * up to MODEL_TIMED_MAX entries, then overwrites the oldest.
 */
#include <stdlib.h>

#include "model_internal.h"
#include "model_timed.h"
#include "util.h"

const struct model_timed_ring *model__timed(const struct model *m)
{
	return &m->timed;
}

void model_timed__add(struct model_timed_ring *r, const struct model_timed *e)
{
	if (r->nr < MODEL_TIMED_MAX) {
		if (r->nr == r->cap) {
			size_t want = r->cap ? 2 * r->cap : 1024;

			if (want > MODEL_TIMED_MAX)
				want = MODEL_TIMED_MAX;
			r->e = xrealloc(r->e, want * sizeof(*r->e));
			r->cap = want;
		}
		r->e[r->nr++] = *e;
		return;
	}
	r->lost++;
	r->lost_interval = r->e[r->head].interval;
	r->e[r->head] = *e;
	r->head = (r->head + 1) % MODEL_TIMED_MAX;
}

void model_timed__free(struct model_timed_ring *r)
{
	free(r->e);
	*r = (struct model_timed_ring){0};
}

const struct model_timed *model_timed__at(const struct model_timed_ring *r, size_t i)
{
	return &r->e[(r->head + i) % (r->nr ? r->nr : 1)];
}

bool model_timed__in_window(const struct model_timed *e, enum model_window window,
			    uint64_t intervals)
{
	switch (window) {
	case WIN_SESSION:
		return true;
	case WIN_INTERVAL:
		return e->interval == intervals;
	case WIN_LAST:
		return intervals && e->interval == intervals - 1;
	default:
		return false;
	}
}

bool model_timed__complete(const struct model_timed_ring *r, enum model_window window,
			   uint64_t intervals)
{
	if (!r->lost)
		return true;
	switch (window) {
	case WIN_INTERVAL:
		return r->lost_interval < intervals;
	case WIN_LAST:
		return intervals && r->lost_interval < intervals - 1;
	default:
		return false;
	}
}
