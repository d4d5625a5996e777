// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fd targets of the thread sampler (bpf/fd_target.bpf.h), in the BPF
 * source (source_bpf_impl.h): the kernel sends each target once, under a
 * kernel id, and its samples carry that id; here each id's text is kept
 * and samples get the TT_EV_STRING id of the text instead, so that the
 * model, the views and recordings see only strings. The kernel forgets its
 * least recently used targets (TT_FD_IDS_MAX): when the texts kept here
 * pass twice that, those the kernel no longer holds go too.
 */
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fd_target.h"
#include "source_bpf_impl.h"
#include "strtab.h"
#include "u64map.h"
#include "util.h"

#include "threads.skel.h"

struct fd_text {
	uint32_t string_id; /* in bs->strings, 0 = not interned (yet, or again) */
	uint32_t len;
	char text[];
};

/* Forgets the texts of ids the kernel's set no longer holds. */
static void prune(struct bpf_source *bs)
{
	struct u64map *live = u64map__new();
	int fd = bpf_map__fd(bs->threads->maps.tt_fd_ids);
	unsigned char key[64] = {0}, next[64];
	struct fd_text *t;
	bool first = true;
	size_t pos = 0;
	uint64_t id;
	__u32 value;

	if (bpf_map__key_size(bs->threads->maps.tt_fd_ids) > sizeof(key)) {
		u64map__free(live);
		return;
	}
	while (!bpf_map_get_next_key(fd, first ? NULL : key, next)) {
		first = false;
		memcpy(key, next, sizeof(key));
		if (!bpf_map_lookup_elem(fd, key, &value))
			u64map__put(live, value, (void *)1);
	}
	while (u64map__next(bs->fd_texts, &pos, &id, (void **)&t)) {
		if (!u64map__get(live, id)) {
			u64map__remove_at(bs->fd_texts, &pos);
			free(t);
		}
	}
	u64map__free(live);
}

void bpf_targets__on_record(struct bpf_source *bs, const struct tt_event_header *ev, size_t size)
{
	const struct tt_fd_target *rec = (const struct tt_fd_target *)ev;
	char text[TT_MAX_STRING_LEN];
	struct fd_text *t;
	size_t len;

	if (fd_target_check(rec, size) < 0) {
		bs->user_drops[TT_DROP_READ_ERROR]++;
		return;
	}
	len = fd_target_format(rec, text, sizeof(text));
	if (len >= sizeof(text))
		len = sizeof(text) - 1;
	if (!bs->fd_texts)
		bs->fd_texts = u64map__new();
	t = xmalloc(sizeof(*t) + len + 1);
	t->string_id = 0;
	t->len = (uint32_t)len;
	memcpy(t->text, text, len + 1);
	/* An id the kernel gave out again (another sampler of the same maps): the new text. */
	free(u64map__put(bs->fd_texts, rec->id, t));
	if (u64map__count(bs->fd_texts) > 2 * TT_FD_IDS_MAX && bs->threads)
		prune(bs);
}

void bpf_targets__translate(struct bpf_source *bs, struct tt_thread_sample *s)
{
	struct fd_text *t;
	uint64_t now = s->hdr.time_ns;

	if (!s->syscall_target_id)
		return;
	t = bs->fd_texts ? u64map__get(bs->fd_texts, s->syscall_target_id) : NULL;
	if (!t || !t->len) {
		s->syscall_target_id = 0;
		return;
	}
	/* Its string again, unless retired since: then interned anew. */
	if (!t->string_id || !source_string_again(bs->strings, t->string_id, now))
		t->string_id = source_intern(bs->strings, &bs->base.sink, t->text, t->len, now);
	s->syscall_target_id = t->string_id;
}

bool bpf_targets__touch(struct bpf_source *bs, const struct tt_thread_sample *s, uint64_t now_ns)
{
	return !s->syscall_target_id ||
	       source_string_again(bs->strings, s->syscall_target_id, now_ns);
}

void bpf_targets__free(struct bpf_source *bs)
{
	u64map__free_all(bs->fd_texts, free);
	bs->fd_texts = NULL;
}
