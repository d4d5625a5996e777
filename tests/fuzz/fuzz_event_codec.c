// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the event decoder with arbitrary bytes (what a hostile recording
 * holds): decode record after record; whatever decodes must validate and
 * re-encode to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static _Alignas(8) unsigned char out[TT_EVENT_MAX_SIZE], again[TT_EVENT_MAX_SIZE];
	size_t off = 0;

	while (off < size) {
		const char *why = NULL;
		ssize_t n = tt_event_decode(data + off, size - off, (struct tt_event_header *)out,
					    sizeof(out), &why);

		if (n <= 0)
			break;
		if (tt_event_validate((struct tt_event_header *)out, (size_t)n) != 0)
			abort();
		if (tt_event_encode((struct tt_event_header *)out, again, sizeof(again)) != n ||
		    memcmp(again, data + off, (size_t)n) != 0)
			abort();
		off += (size_t)n;
	}
	return 0;
}
