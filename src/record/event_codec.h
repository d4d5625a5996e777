/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The portable encoding of event records, for files and pipes: every field
 * little-endian, in declaration order, no padding bytes of the host's ABI.
 * Decoding validates everything a hostile file could get wrong (type,
 * version, size, tail lengths), so the model never sees a malformed record.
 */
#ifndef THREADTOP_EVENT_CODEC_H
#define THREADTOP_EVENT_CODEC_H

#include <stddef.h>
#include <sys/types.h>

#include "threadtop/events.h"

/* Largest encoded record: a longest string (a full stack is smaller; asserted). */
#define TT_EVENT_MAX_SIZE (sizeof(struct tt_string) + TT_MAX_STRING_LEN + 64)

/*
 * Checks an in-memory record (from BPF or a source) for a known type and
 * version and a size consistent with its tail. Returns 0 or -EINVAL.
 */
int tt_event_validate(const struct tt_event_header *ev, size_t avail);

/* Encodes ev into buf. Returns the encoded size, -ENOSPC or -EINVAL. */
ssize_t tt_event_encode(const struct tt_event_header *ev, void *buf, size_t cap);

/*
 * Decodes one record from buf (len bytes available) into out (an aligned
 * buffer of out_cap bytes, TT_EVENT_MAX_SIZE is always enough). Returns the
 * bytes consumed, -EAGAIN when buf holds only part of a record, or -EINVAL
 * (ret_why, if given, says what is wrong) for a malformed one.
 */
ssize_t tt_event_decode(const void *buf, size_t len, struct tt_event_header *out, size_t out_cap,
			const char **ret_why);

/*
 * Whether this threadtop decodes records of this type and version. A reader
 * of files skips the others (a newer threadtop wrote them) by their size.
 */
int tt_event_known(unsigned type, unsigned version);

/* Name of an event type, for messages ("thread_sample"), or "unknown". */
const char *tt_event_type_name(unsigned type);

#endif /* THREADTOP_EVENT_CODEC_H */
