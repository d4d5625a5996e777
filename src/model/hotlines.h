/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A function's hottest source lines, as perf annotate shows them at line
 * granularity: over a set of stack samples (the call tree's and the Hot
 * pane's input), each line of the addresses where the function runs, with
 * its self count (samples whose leaf is there and the function is the
 * innermost one at it: the Hot pane's SELF) and its total count (samples
 * with the function at that line anywhere on the stack, once per sample).
 * The line is the line table's at the address: for code inlined into the
 * function, the inlined code's own line, as perf annotate prints it. Lines
 * come from the frame namer (DWARF); without them the set says so. No
 * ncurses, no files.
 */
#ifndef THREADTOP_HOTLINES_H
#define THREADTOP_HOTLINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Distinct lines one set keeps; the samples at others count in `dropped`. */
#define HOTLINES_MAX 4096

struct hotline {
	const char *file; /* as DWARF names it (raw bytes: renderers escape); owned by the set */
	unsigned line;
	uint64_t self, total;
	uint64_t self_weight, total_weight; /* the same in time (model_stack_count_weight) */
	uint32_t pid; /* a process it ran in (to find the file under its root) */
};

struct hotlines {
	struct hotline *lines; /* most total first, then most self, then file and line */
	size_t nr;
	uint64_t self, total; /* the function's, over the set */
	uint64_t no_line;     /* of total: samples at addresses the namer gives no line */
	uint64_t dropped;     /* of total: samples at lines beyond HOTLINES_MAX */
	/* The same four in time: shares are of them. */
	uint64_t self_weight, total_weight, no_line_weight, dropped_weight;
	/* internal */
	size_t cap;
	struct u64map *index; /* hash of (file, line) -> index + 1 */
	struct u64map *files; /* hash of file -> its copy, shared by its lines */
	uint32_t *stamp;      /* the last pair (+1) counted in each line's total */
};

/*
 * The lines of the function at (pid, ip, kernel, level) as hotfuncs names
 * it (struct hotfunc: its first address, inlined level) over nr pairs of m's
 * stack dictionary. Never NULL; free it. A kernel function, a frame no
 * symbol covers or a model without a namer gives no lines (all no_line).
 */
struct hotlines *hotlines__new(const struct model *m, const struct model_stack_count *pairs,
			       size_t nr, uint32_t pid, uint64_t ip, bool kernel, unsigned level);
void hotlines__free(struct hotlines *h);

#endif /* THREADTOP_HOTLINES_H */
