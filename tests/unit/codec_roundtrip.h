/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The round trip the record encoding tests share (test_event_codec.c,
 * test_trace_records.c, test_capture_records.c): a record encodes, decodes
 * back to the same bytes and validates; every shorter prefix of its
 * encoding is "need more", never a misparse.
 */
#ifndef TT_CODEC_ROUNDTRIP_H
#define TT_CODEC_ROUNDTRIP_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "event_codec.h"

/* The encoding, and the record decoded from it. */
static _Alignas(8) unsigned char wire[TT_EVENT_MAX_SIZE];
static _Alignas(8) unsigned char back[TT_EVENT_MAX_SIZE];

static inline void roundtrip(const struct tt_event_header *ev)
{
	ssize_t n = tt_event_encode(ev, wire, sizeof(wire));
	const char *why = NULL;

	assert_int_equal(n, ev->size);
	assert_int_equal(tt_event_decode(wire, (size_t)n, (struct tt_event_header *)back,
					 sizeof(back), &why),
			 n);
	/* Every byte survives: the layout string covers the whole struct. */
	assert_memory_equal(back, ev, ev->size);
	for (ssize_t len = 0; len < n; len++)
		assert_int_equal(tt_event_decode(wire, (size_t)len, (struct tt_event_header *)back,
						 sizeof(back), &why),
				 -EAGAIN);
	assert_int_equal(tt_event_validate(ev, ev->size), 0);
}

#endif /* TT_CODEC_ROUNDTRIP_H */
