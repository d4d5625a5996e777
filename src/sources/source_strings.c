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
	id = strtab__intern(tab, s, len, &is_new);
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
