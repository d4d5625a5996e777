// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile of a stretch of time that has no window of its own in the
 * model (see profile__subtract in profile.h): the session's profile at its
 * end minus the session's profile at its start. The model counts sessions
 * exactly, so the difference is exactly what was sampled in between, built
 * by the same builder every export uses. Samples of the two are matched by
 * what identifies them (kind, thread, state, syscall, labels and the frames'
 * names), not by frame indices, which each build numbers its own way.
 */
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "profile.h"
#include "u64map.h"
#include "util.h"

/* What is left of the earlier profile's samples of one identity. */
struct remaining {
	const struct profile_sample *s;
	uint64_t count, taken, ns, bytes;
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	return s ? hash_bytes(h, s, strlen(s) + 1) : hash_word(h, 0);
}

static uint64_t sample_hash(const struct profile *p, const struct profile_sample *s)
{
	uint64_t h = HASH_INIT;

	h = hash_word(h, s->kind);
	h = hash_word(h, ((uint64_t)s->pid << 32) | s->tid);
	h = hash_word(h, ((uint64_t)s->state << 32) | (uint32_t)s->syscall);
	h = hash_word(h, ((uint64_t)s->labels_id << 1) | s->labels_unknown);
	for (uint32_t i = 0; i < s->nr_frames; i++) {
		const struct profile_frame *f = &p->frames[s->frames[i]];

		h = hash_str(h, f->name);
		h = hash_str(h, f->module);
		h = hash_word(h, f->flags);
	}
	return h ? h : 1;
}

static bool same_frame(const struct profile_frame *a, const struct profile_frame *b)
{
	return a->flags == b->flags && !strcmp(a->name, b->name) && !text_cmp(a->module, b->module);
}

static bool same_sample(const struct profile *pa, const struct profile_sample *a,
			const struct profile *pb, const struct profile_sample *b)
{
	if (a->kind != b->kind || a->pid != b->pid || a->tid != b->tid || a->state != b->state ||
	    a->syscall != b->syscall || a->labels_id != b->labels_id ||
	    a->labels_unknown != b->labels_unknown || a->nr_frames != b->nr_frames)
		return false;
	for (uint32_t i = 0; i < a->nr_frames; i++)
		if (!same_frame(&pa->frames[a->frames[i]], &pb->frames[b->frames[i]]))
			return false;
	return true;
}

/* The earlier samples by identity: hash -> struct remaining, probed linearly. */
static struct u64map *index_before(const struct profile *before, unsigned keep)
{
	struct u64map *idx = u64map__new();

	for (size_t i = 0; i < before->nr_samples; i++) {
		const struct profile_sample *s = &before->samples[i];
		uint64_t h;
		struct remaining *r;

		if (!(keep & (1u << s->kind)))
			continue;
		for (h = sample_hash(before, s);; h = h + 1 ? h + 1 : 1) {
			r = u64map__get(idx, h);
			if (!r || same_sample(before, r->s, before, s))
				break;
		}
		if (!r) {
			r = xcalloc(1, sizeof(*r));
			r->s = s;
			u64map__put(idx, h, r);
		}
		r->count += s->count;
		r->taken += s->taken;
		r->ns += s->ns;
		r->bytes += s->bytes;
	}
	return idx;
}

static struct remaining *find_before(struct u64map *idx, const struct profile *before,
				     const struct profile *p, const struct profile_sample *s)
{
	for (uint64_t h = sample_hash(p, s);; h = h + 1 ? h + 1 : 1) {
		struct remaining *r = u64map__get(idx, h);

		if (!r || same_sample(before, r->s, p, s))
			return r;
	}
}

static uint64_t take(uint64_t *have, uint64_t want)
{
	uint64_t n = *have < want ? *have : want;

	*have -= n;
	return n;
}

void profile__subtract(struct profile *p, const struct profile *before, unsigned keep)
{
	struct u64map *idx = before ? index_before(before, keep) : u64map__new();
	struct remaining *r;
	size_t o = 0, pos = 0;
	uint64_t key;

	memset(p->total_count, 0, sizeof(p->total_count));
	memset(p->total_ns, 0, sizeof(p->total_ns));
	/* The timed samples point into the samples, which move: a delta has none. */
	free(p->timed);
	p->timed = NULL;
	p->nr_timed = 0;
	p->timed_complete = false;
	for (size_t i = 0; i < p->nr_samples; i++) {
		struct profile_sample s = p->samples[i];

		if (keep & (1u << s.kind) && before && (r = find_before(idx, before, p, &s))) {
			/* A reused tid's new thread may have fewer: never below 0. */
			s.count -= take(&r->count, s.count);
			s.taken -= take(&r->taken, s.taken);
			s.ns -= take(&r->ns, s.ns);
			s.bytes -= take(&r->bytes, s.bytes);
		}
		if (!(keep & (1u << s.kind)) || (!s.count && !s.ns)) {
			free((void *)s.frames);
			continue;
		}
		p->total_count[s.kind] += s.count;
		p->total_ns[s.kind] += s.ns;
		p->samples[o++] = s;
	}
	p->nr_samples = o;
	p->kinds = keep;
	if (before)
		p->duration_ns = p->duration_ns > before->duration_ns
					 ? p->duration_ns - before->duration_ns
					 : 0;
	while (u64map__next(idx, &pos, &key, (void **)&r))
		free(r);
	u64map__free(idx);
}
