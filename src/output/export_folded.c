// SPDX-License-Identifier: GPL-2.0-only
/*
 * Folded stacks ("root;...;leaf count" per line), the input of
 * flamegraph.pl, inferno, speedscope and Pyroscope: the process name is the
 * root frame, kernel frames end in "_[k]", functions inlined into their
 * caller in " [inlined]" (as perf report --inline), equal stacks are merged, and the
 * count is samples (threads, on-CPU) or nanoseconds (off-CPU).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "util.h"

#define NAME_MAX_OUT 1024

struct line {
	char *text;
	uint64_t value;
};

struct line_buf {
	char *s;
	size_t len, cap;
};

static void append(struct line_buf *b, const char *s, size_t n)
{
	xgrow((void **)&b->s, &b->cap, b->len + n + 1, 1);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void put_frame(const char *name, unsigned flags, void *arg)
{
	struct line_buf *b = arg;
	char out[NAME_MAX_OUT];

	export_plain_name(name, out, sizeof(out));
	if (b->len)
		append(b, ";", 1);
	append(b, out, strlen(out));
	if (!(flags & PROFILE_FRAME_SYNTH))
		append(b, profile_frame_suffix(flags), strlen(profile_frame_suffix(flags)));
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

int export_folded(const struct export_ctx *x, FILE *f)
{
	const struct profile *p = x->p;
	struct line *lines = NULL;
	size_t nr = 0, cap = 0;

	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];
		struct line_buf b = {0};

		if (s->kind != x->kind)
			continue;
		export_walk_frames(x, s, put_frame, &b);
		xgrow((void **)&lines, &cap, nr + 1, sizeof(*lines));
		lines[nr++] = (struct line){b.s, profile_sample_weight(s)};
	}
	if (nr)
		qsort(lines, nr, sizeof(*lines), cmp_lines);
	for (size_t i = 0; i < nr;) {
		uint64_t sum = 0;
		size_t j = i;

		for (; j < nr && !strcmp(lines[j].text, lines[i].text); j++)
			sum += lines[j].value;
		if (sum)
			fprintf(f, "%s %" PRIu64 "\n", lines[i].text, sum);
		i = j;
	}
	for (size_t i = 0; i < nr; i++)
		free(lines[i].text);
	free(lines);
	return 0; /* stream errors are found and named by safe_file__commit */
}
