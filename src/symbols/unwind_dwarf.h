/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DWARF unwinding of copied user stacks (perf's --call-graph dwarf model):
 * given a thread's user registers and a copy of its stack from sp up, walks
 * the frames with libunwind's remote API. Memory reads come from the copy
 * (the stack) or from the mapped files (the .eh_frame_hdr and .eh_frame of
 * the binaries, see unwind_files.h); the process's maps come from the
 * maps cache (maps_cache.h), re-read at most once a second when an address
 * is not in them. Nothing here runs in the kernel or touches the process.
 *
 * Library code: no logging, no threads. Failures are counted by reason.
 */
#ifndef THREADTOP_UNWIND_DWARF_H
#define THREADTOP_UNWIND_DWARF_H

#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"

/* How an unwind ended. Every outcome still gives at least the sampled ip. */
enum unwind_result {
	UNWIND_OK = 0,	   /* reached the outermost frame */
	UNWIND_SHORT_COPY, /* the copy is too short or the registers are zero */
	UNWIND_NO_PROCESS, /* the process's maps could not be read (it exited) */
	UNWIND_NO_INFO,	   /* an address with no unwind table (JIT, no .eh_frame_hdr) */
	UNWIND_STACK_END,  /* a frame lies beyond the copied stack (raise --stack-bytes) */
	UNWIND_BAD_FRAME,  /* the CFI led nowhere: bad data or a corrupt stack */
	UNWIND_DEPTH,	   /* stopped at the frame limit */
	UNWIND_RESULT_MAX,
};

/* Short names of enum unwind_result, for statistics lines. */
const char *unwind_result_name(enum unwind_result r);

struct unwinder;
struct maps_cache;

/*
 * maps: the process maps, shared with other readers (the symbolizer) so a
 * process's are read once; it must outlive the unwinder. NULL = its own,
 * read from /proc. NULL with errno ENOSPC when maps has all the users it
 * can take.
 */
struct unwinder *unwinder__new(struct maps_cache *maps);
void unwinder__free(struct unwinder *u);

/*
 * Unwinds thread stack of process pid: regs (enum tt_ureg) and len bytes of
 * its stack copied from regs[TT_UREG_SP]. Writes at most max return
 * addresses, leaf first (the first is the sampled ip), into ips and their
 * number into *ret_nr. Returns the outcome (UNWIND_OK or why it stopped).
 */
enum unwind_result unwinder__unwind(struct unwinder *u, uint32_t pid,
				    const uint64_t regs[TT_UREG_NR], const void *stack, size_t len,
				    uint64_t *ips, size_t max, size_t *ret_nr);

/* Forgets the maps of processes not unwound in the last idle_rounds rounds
 * (one round per call). Shared files stay; every 60 rounds the pages read of
 * them go back (unwind_files__drop_pages). Returns how many processes went. */
size_t unwinder__expire(struct unwinder *u, unsigned idle_rounds);

struct unwinder_stats {
	uint64_t samples;		    /* unwinder__unwind calls */
	uint64_t frames;		    /* frames they gave */
	uint64_t ns;			    /* time spent in them */
	uint64_t result[UNWIND_RESULT_MAX]; /* by outcome */
	uint64_t maps_reads;		    /* /proc/PID/maps parsed (by every user of the maps) */
	uint64_t files;			    /* files mapped (shared by processes) */
};
void unwinder__stats(const struct unwinder *u, struct unwinder_stats *ret);

#endif /* THREADTOP_UNWIND_DWARF_H */
