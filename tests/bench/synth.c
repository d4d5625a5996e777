// SPDX-License-Identifier: GPL-2.0-only
/* Synthetic records for the in-process benchmarks: see synth.h. */
#include "synth.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util.h"

static uint64_t rnd_state = 0x2545f4914f6cdd1dull;

uint64_t synth_rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

void synth_string(struct model *m, uint32_t id, const char *text, uint64_t t)
{
	size_t len = strlen(text);
	struct tt_string *s = xcalloc(1, sizeof(*s) + len);

	s->hdr = (struct tt_event_header){TT_EV_STRING, TT_STRING_VERSION,
					  (uint32_t)(sizeof(*s) + len), t};
	s->id = id;
	s->len = (uint32_t)len;
	memcpy(s->data, text, len);
	model__ingest(m, &s->hdr);
	free(s);
}

/* A few roots, a tree of call sites below them, leaf first. */
void synth_stack(struct model *m, uint32_t id, bool kernel, uint64_t t)
{
	unsigned nr = 8 + (unsigned)(synth_rnd() % 17);
	size_t size = sizeof(struct tt_stack) + nr * sizeof(uint64_t);
	struct tt_stack *st = xcalloc(1, size);
	uint64_t base = kernel ? 0xffffffff81000000ull : 0x555555554000ull;
	uint64_t branch = id;

	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION, (uint32_t)size, t};
	st->id = id;
	st->nr = (uint16_t)nr;
	st->flags = kernel ? TT_STACK_KERNEL : 0;
	/* Outermost frames vary least: frame at depth d picks among 4^d sites. */
	for (unsigned d = 0; d < nr; d++) {
		unsigned fan = d < 6 ? 1u << (2 * d) : 4096;

		st->ips[nr - 1 - d] = base + (d << 16) + (branch % fan) * 16;
		branch = branch * 2654435761u + d;
	}
	model__ingest(m, &st->hdr);
	free(st);
}
