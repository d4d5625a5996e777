/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --from and --to of a replay: a time the user typed, as seconds from the
 * recording's start ("90", "90s", "2.5m", "1h") or as a UTC wall-clock time
 * ("13:45:10", "2026-11-29T13:45:10Z"), turned into the recording's monotonic
 * clock and checked against the recording's span. No I/O; unit-tested.
 */
#ifndef THREADTOP_REPLAY_RANGE_H
#define THREADTOP_REPLAY_RANGE_H

#include <stddef.h>
#include <stdint.h>

/* What a recording says about its time. */
struct replay_span {
	uint64_t first_ns, last_ns; /* monotonic times of its first and last event */
	uint64_t boot_time_ns;	    /* CLOCK_REALTIME at monotonic 0; 0 = unknown */
};

/* Whether text reads as a time (the syntax only; no recording needed). */
int replay_time_check(const char *text);

/*
 * text as the recording's monotonic time into *ret_ns. Returns 0, -EINVAL
 * (not a time, or a wall-clock time in a recording without its clock) or
 * -ERANGE (outside the recording), with one line in err naming opt, the
 * reason and the recording's span.
 */
int replay_time_parse(const char *opt, const char *text, const struct replay_span *sp,
		      uint64_t *ret_ns, char *err, size_t errlen);

#endif /* THREADTOP_REPLAY_RANGE_H */
