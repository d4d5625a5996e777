// SPDX-License-Identifier: GPL-2.0-only
/* String dictionary records for every source (see source.h). */
#include <string.h>

#include "threadtop/source.h"
#include "strtab.h"

uint32_t source_intern(struct strtab *tab, const struct event_sink *sink, const char *s, size_t len,
		       uint64_t now_ns)
{
	union {
		struct tt_string rec;
		char buf[sizeof(struct tt_string) + TT_MAX_STRING_LEN];
	} u;
	bool is_new;
	uint32_t id;

	if (!len)
		return 0;
	if (len > TT_MAX_STRING_LEN)
		len = TT_MAX_STRING_LEN;
	id = strtab__intern_at(tab, s, len, now_ns, &is_new);
	if (is_new) {
		u.rec.hdr = (struct tt_event_header){TT_EV_STRING, TT_STRING_VERSION,
						     (__u32)(sizeof(u.rec) + len), now_ns};
		u.rec.id = id;
		u.rec.len = (__u32)len;
		memcpy(u.rec.data, s, len);
		sink_emit(sink, &u.rec.hdr);
	}
	return id;
}

uint32_t source_string_again(struct strtab *tab, uint32_t id, uint64_t now_ns)
{
	return id && strtab__touch(tab, id, now_ns) ? id : 0;
}

struct retire {
	const struct event_sink *sink;
	uint64_t now_ns;
};

static void retire(void *arg, uint32_t id)
{
	const struct retire *r = arg;
	struct tt_string rec = {
		.hdr = {TT_EV_STRING, TT_STRING_VERSION, sizeof(rec), r->now_ns},
		.id = id,
	};

	sink_emit(r->sink, &rec.hdr);
}

void source_strings_age(struct strtab *tab, const struct event_sink *sink, uint64_t now_ns,
			uint64_t *aged_ns)
{
	struct retire r = {sink, now_ns};

	if (!tab || now_ns < SOURCE_STRING_IDLE_NS ||
	    (*aged_ns && now_ns - *aged_ns < SOURCE_STRING_AGE_NS))
		return;
	*aged_ns = now_ns;
	strtab__evict(tab, now_ns - SOURCE_STRING_IDLE_NS, retire, &r);
}
