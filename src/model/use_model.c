// SPDX-License-Identifier: GPL-2.0-only
/*
 * The USE part of the model (see use_model.h): one entry per component,
 * keyed by kind and name, holding its newest record and a ring of its
 * utilization and saturation ratio for sparklines.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "use_model.h"
#include "util.h"

struct use_model {
	struct use_component **comps;
	size_t nr, cap;
	uint64_t newest_ns;		      /* time of the newest record */
	uint64_t interval_ns;		      /* interval of the newest record */
	const struct use_component **current; /* scratch for use_model__current */
	size_t cap_current;
};

static const char *const kind_names[TT_USE_KIND_MAX] = {
	[TT_USE_CPU] = "cpu", [TT_USE_MEMORY] = "memory", [TT_USE_DISK] = "disk",
	[TT_USE_NET] = "net", [TT_USE_TCP] = "tcp",	  [TT_USE_CGROUP_CPU] = "cgroup_cpu",
};

static const struct {
	const char *key;
	const char *label;
} figures[TT_USE_FIG_MAX] = {
	[TT_USE_FIG_NONE] = {"", ""},
	[TT_USE_FIG_RUNNABLE_PER_CPU] = {"runnable_per_cpu", "runnable per CPU"},
	[TT_USE_FIG_WAITING] = {"waiting", "threads waiting"},
	[TT_USE_FIG_PAGING] = {"paging_per_s", "pages swapped/direct-scanned per s"},
	[TT_USE_FIG_SCAN] = {"kswapd_scan_per_s", "pages scanned by kswapd per s"},
	[TT_USE_FIG_QUEUE] = {"avg_queue", "average queue"},
	[TT_USE_FIG_AWAIT_MS] = {"await_ms", "ms await"},
	[TT_USE_FIG_DROPS] = {"drops_per_s", "drops per s"},
	[TT_USE_FIG_BYTES] = {"bytes_per_s", "bytes per s"},
	[TT_USE_FIG_RETRANS_PCT] = {"retrans_pct", "% segments retransmitted"},
	[TT_USE_FIG_THROTTLED_PCT] = {"throttled_pct", "% of time throttled"},
};

const char *use_kind_name(unsigned kind)
{
	return kind < TT_USE_KIND_MAX ? kind_names[kind] : "unknown";
}

const char *use_figure_key(unsigned fig)
{
	return fig < TT_USE_FIG_MAX ? figures[fig].key : "";
}

const char *use_figure_label(unsigned fig)
{
	return fig < TT_USE_FIG_MAX ? figures[fig].label : "";
}

static double milli32(int32_t v)
{
	return v == TT_USE_UNKNOWN ? NAN : (double)v / 1000.0;
}

static double milli64(int64_t v)
{
	return v == TT_USE_UNKNOWN ? NAN : (double)v / 1000.0;
}

double use_util_pct(const struct tt_use_metric *r)
{
	return milli32(r->util_milli);
}

double use_sat_value(const struct tt_use_metric *r)
{
	return r->sat_what ? milli64(r->sat_milli) : NAN;
}

double use_sat_limit(const struct tt_use_metric *r)
{
	return r->sat_what ? milli64(r->sat_limit_milli) : NAN;
}

double use_aux_value(const struct tt_use_metric *r)
{
	return r->aux_what ? milli64(r->aux_milli) : NAN;
}

double use_psi_some_pct(const struct tt_use_metric *r)
{
	return milli32(r->psi_some_milli);
}

double use_psi_full_pct(const struct tt_use_metric *r)
{
	return milli32(r->psi_full_milli);
}

bool use_psi_saturated(const struct tt_use_metric *r)
{
	/* System-wide CPU "full" is always 0 since 5.13: only "some" counts for CPU. */
	if (r->psi_some_milli != TT_USE_UNKNOWN && r->psi_some_milli >= USE_PSI_SOME_LIMIT_MILLI)
		return true;
	return r->kind != TT_USE_CPU && r->psi_full_milli != TT_USE_UNKNOWN &&
	       r->psi_full_milli >= USE_PSI_FULL_LIMIT_MILLI;
}

struct use_model *use_model__new(void)
{
	return xcalloc(1, sizeof(struct use_model));
}

void use_model__free(struct use_model *um)
{
	if (!um)
		return;
	for (size_t i = 0; i < um->nr; i++)
		free(um->comps[i]);
	free(um->comps);
	free(um->current);
	free(um);
}

static struct use_component *find(struct use_model *um, const struct tt_use_metric *rec)
{
	for (size_t i = 0; i < um->nr; i++) {
		struct tt_use_metric *l = &um->comps[i]->last;

		if (l->kind == rec->kind && l->index == rec->index &&
		    !strncmp(l->name, rec->name, sizeof(l->name)))
			return um->comps[i];
	}
	return NULL;
}

void use_model__ingest(struct use_model *um, const struct tt_use_metric *rec)
{
	struct use_component *c = find(um, rec);
	double sat, limit;

	if (!c) {
		c = xcalloc(1, sizeof(*c));
		for (size_t i = 0; i < USE_HISTORY; i++)
			c->util[i] = c->sat[i] = NAN;
		xgrow((void **)&um->comps, &um->cap, um->nr + 1, sizeof(*um->comps));
		um->comps[um->nr++] = c;
	}
	c->last = *rec;
	c->last.name[sizeof(c->last.name) - 1] = '\0';
	sat = use_sat_value(rec);
	limit = use_sat_limit(rec);
	c->util[c->head] = (float)use_util_pct(rec);
	c->sat[c->head] = (float)(limit > 0 ? sat / limit : NAN);
	c->head = (c->head + 1) % USE_HISTORY;
	if (c->filled < USE_HISTORY)
		c->filled++;
	if (rec->hdr.time_ns >= um->newest_ns) {
		um->newest_ns = rec->hdr.time_ns;
		um->interval_ns = rec->interval_ns;
	}
}

size_t use_model__current(struct use_model *um, const struct use_component ***ret)
{
	uint64_t horizon = 2 * um->interval_ns + um->interval_ns / 2;
	size_t n = 0;

	xgrow((void **)&um->current, &um->cap_current, um->nr + 1, sizeof(*um->current));
	for (size_t i = 0; i < um->nr; i++) {
		const struct use_component *c = um->comps[i];

		if (c->last.hdr.time_ns + horizon >= um->newest_ns)
			um->current[n++] = c;
	}
	*ret = um->current;
	return n;
}

void use_component_history(const struct use_component *c, bool sat, float *out, size_t n)
{
	const float *ring = sat ? c->sat : c->util;

	for (size_t i = 0; i < n; i++) {
		size_t back = n - i; /* 1 = newest */

		out[i] = back <= c->filled && back <= USE_HISTORY
				 ? ring[(c->head + USE_HISTORY - back) % USE_HISTORY]
				 : NAN;
	}
}

void use_model__verdict(struct use_model *um, struct use_verdict *ret)
{
	const struct use_component **cur;
	const struct tt_use_metric **recs;
	size_t n = use_model__current(um, &cur);

	recs = xcalloc(n + 1, sizeof(*recs));
	for (size_t i = 0; i < n; i++)
		recs[i] = &cur[i]->last;
	use_verdict_compute(recs, n, ret);
	free(recs);
}
