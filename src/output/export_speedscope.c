// SPDX-License-Identifier: GPL-2.0-only
/*
 * speedscope export (https://www.speedscope.app/file-format-schema.json):
 * the frames shared by all profiles, then one sampled profile per thread
 * and kind of samples ("worker (101) oncpu"), stacks root first, weights in
 * nanoseconds; the busiest profile of the main kind opens first.
 */
#include <stdio.h>

#include "export_internal.h"
#include "json.h"

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

int export_speedscope(const struct export_ctx *x, FILE *f)
{
	const struct profile *p = x->p;
	size_t nr_profiles = 0, active = 0;
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
		i = end;
	}
	json_end_array(&j);
	json_u64(&j, "activeProfileIndex", active);
	json_end_object(&j);
	fputc('\n', f);
	return 0;
}
