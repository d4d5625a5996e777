// SPDX-License-Identifier: GPL-2.0-only
/*
 * speedscope export (https://www.speedscope.app/file-format-schema.json):
 * the frames shared by all profiles, then one sampled profile per thread
 * and kind of samples ("worker (101) oncpu"), stacks root first, weights in
 * nanoseconds; the busiest profile of the main kind opens first. After each
 * thread's sampled on-CPU profile comes an evented one of the same samples
 * in time order ("worker (101) oncpu in time order"), where the model kept
 * their times (profile.timed), for speedscope's time-order view.
 */
#include <stdio.h>
#include <stdlib.h>

#include "export_internal.h"
#include "json.h"
#include "util.h"

/* Samples are sorted by kind, pid, tid: a profile is a run of equal keys. */
static size_t run_end(const struct profile *p, size_t i)
{
	const struct profile_sample *s = &p->samples[i];
	size_t j = i + 1;

	while (j < p->nr_samples && p->samples[j].kind == s->kind && p->samples[j].tid == s->tid &&
	       p->samples[j].pid == s->pid)
		j++;
	return j;
}

static void write_profile(struct json *j, const struct profile *p, size_t from, size_t to)
{
	const struct profile_sample *s = &p->samples[from];
	uint64_t total = 0;
	char name[96];

	for (size_t i = from; i < to; i++)
		total += p->samples[i].ns;
	snprintf(name, sizeof(name), "%s (%u) %s", s->comm ? s->comm : "?", s->tid,
		 profile_kind_name(s->kind));
	json_begin_object(j, NULL);
	json_string(j, "type", "sampled");
	json_string(j, "name", name);
	json_string(j, "unit", "nanoseconds");
	json_u64(j, "startValue", 0);
	json_u64(j, "endValue", total);
	json_begin_array(j, "samples");
	for (size_t i = from; i < to; i++) {
		json_begin_array(j, NULL);
		for (uint32_t k = 0; k < p->samples[i].nr_frames; k++)
			json_u64(j, NULL, p->samples[i].frames[k]);
		json_end_array(j);
	}
	json_end_array(j);
	json_begin_array(j, "weights");
	for (size_t i = from; i < to; i++)
		json_u64(j, NULL, p->samples[i].ns);
	json_end_array(j);
	json_end_object(j);
}

/* Closes the frames open[keep..*depth) at `at`, innermost first. */
static void close_to(struct json *j, const uint32_t *open, size_t *depth, size_t keep, uint64_t at)
{
	while (*depth > keep) {
		(*depth)--;
		json_begin_object(j, NULL);
		json_string(j, "type", "C");
		json_u64(j, "frame", open[*depth]);
		json_u64(j, "at", at);
		json_end_object(j);
	}
}

/*
 * The evented profile of the n timed samples t (one thread, time order).
 * A sample stands for the period before its time: it is laid out as
 * [time - weight, time] in ns since the window's start, moved later when
 * it would overlap the one before (the clock of the sampler jitters), so
 * every sample keeps its whole weight and the thread's total is the
 * sampled profile's. Frames that the next sample shares stay open when it
 * follows without a gap; a gap (the thread was off the CPU) closes all.
 */
static void write_evented(struct json *j, const struct profile *p, const struct profile_timed *t,
			  size_t n, const char *name)
{
	size_t depth = 0, cap = 0;
	uint32_t *open = NULL;
	uint64_t end = 0;

	for (size_t i = 0; i < n; i++)
		if (p->samples[t[i].sample].nr_frames > cap)
			cap = p->samples[t[i].sample].nr_frames;
	open = xcalloc(cap ? cap : 1, sizeof(*open));
	json_begin_object(j, NULL);
	json_string(j, "type", "evented");
	json_string(j, "name", name);
	json_string(j, "unit", "nanoseconds");
	json_u64(j, "startValue", 0);
	json_begin_array(j, "events");
	for (size_t i = 0; i < n; i++) {
		const struct profile_sample *s = &p->samples[t[i].sample];
		uint64_t w = t[i].ns;
		uint64_t start = t[i].time_ns >= p->timed_start_ns + w
					 ? t[i].time_ns - w - p->timed_start_ns
					 : 0;
		size_t common = 0;

		if (start < end)
			start = end;
		if (start > end)
			close_to(j, open, &depth, 0, end);
		while (common < depth && common < s->nr_frames && open[common] == s->frames[common])
			common++;
		close_to(j, open, &depth, common, start);
		for (; depth < s->nr_frames; depth++) {
			open[depth] = s->frames[depth];
			json_begin_object(j, NULL);
			json_string(j, "type", "O");
			json_u64(j, "frame", open[depth]);
			json_u64(j, "at", start);
			json_end_object(j);
		}
		end = start + w;
	}
	close_to(j, open, &depth, 0, end);
	json_end_array(j);
	json_u64(j, "endValue", end);
	json_end_object(j);
	free(open);
}

/*
 * The evented profile of the thread of samples [from, to) when p has timed
 * samples of it; *ti walks p->timed (in the samples' order). Returns 1 when
 * it wrote one.
 */
static size_t write_timed(struct json *j, const struct profile *p, size_t from, size_t to,
			  size_t *ti)
{
	const struct profile_sample *s = &p->samples[from];
	size_t first, n = 0;
	char name[128];

	if (s->kind != PROFILE_ONCPU)
		return 0;
	while (*ti < p->nr_timed && p->timed[*ti].sample < from)
		(*ti)++;
	first = *ti;
	while (*ti < p->nr_timed && p->timed[*ti].sample < to) {
		(*ti)++;
		n++;
	}
	if (!n)
		return 0;
	snprintf(name, sizeof(name), "%s (%u) %s in time order%s", s->comm ? s->comm : "?", s->tid,
		 profile_kind_name(s->kind), p->timed_complete ? "" : ", newest samples only");
	write_evented(j, p, &p->timed[first], n, name);
	return 1;
}

int export_speedscope(const struct export_ctx *x, FILE *f)
{
	const struct profile *p = x->p;
	size_t nr_profiles = 0, active = 0, ti = 0;
	uint64_t best = 0;
	char name[512];
	struct json j;

	json_init(&j, f);
	json_begin_object(&j, NULL);
	json_string(&j, "$schema", "https://www.speedscope.app/file-format-schema.json");
	json_string(&j, "exporter", "threadtop " TT_VERSION);
	snprintf(name, sizeof(name), "threadtop on %s", x->host);
	json_string(&j, "name", name);
	json_begin_object(&j, "shared");
	json_begin_array(&j, "frames");
	for (size_t i = 0; i < p->nr_frames; i++) {
		json_begin_object(&j, NULL);
		if (p->frames[i].flags & PROFILE_FRAME_INLINED) {
			snprintf(name, sizeof(name), "%s [inlined]", p->frames[i].name);
			json_string(&j, "name", name);
		} else {
			json_string(&j, "name", p->frames[i].name);
		}
		if (p->frames[i].module)
			json_string(&j, "file", p->frames[i].module);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_begin_array(&j, "profiles");
	for (size_t i = 0; i < p->nr_samples;) {
		size_t end = run_end(p, i);
		uint64_t weight = 0;

		for (size_t k = i; k < end; k++)
			weight += p->samples[k].ns;
		if (p->samples[i].kind == x->kind && weight > best) {
			best = weight;
			active = nr_profiles;
		}
		write_profile(&j, p, i, end);
		nr_profiles++;
		nr_profiles += write_timed(&j, p, i, end, &ti);
		i = end;
	}
	json_end_array(&j);
	json_u64(&j, "activeProfileIndex", active);
	json_end_object(&j);
	fputc('\n', f);
	return 0;
}
