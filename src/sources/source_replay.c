// SPDX-License-Identifier: GPL-2.0-only
/*
 * The replay source (see source_replay.h): walks the event chunks of a
 * recording in order (snapshot chunks are only for seeking) and emits their
 * records, stopping after each interval mark so that the loop can handle
 * signals and the front end can draw.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "event_codec.h"
#include "source_replay.h"
#include "util.h"

#define RECORDS_PER_CALL 65536 /* without an interval mark, yield after this many */

struct replay_source {
	struct source base;
	struct ttr_reader *rd;
	int efd;
	size_t next_chunk; /* the chunk to load next */
	bool loaded;	   /* records of a chunk are being emitted */
	union {
		struct tt_event_header hdr;
		unsigned char buf[TT_EVENT_MAX_SIZE];
	} ev;
};

static struct replay_source *to_replay(struct source *src)
{
	return (struct replay_source *)src;
}

static int replay_fd(struct source *src)
{
	return to_replay(src)->efd;
}

static int replay_tick(struct source *src, uint64_t now_ns)
{
	return 0; /* the recording's marks drive the clock, not the loop's timer */
}

/* Loads the next event chunk; returns 1, 0 at the end, or a negative errno. */
static int load_next(struct replay_source *rs)
{
	size_t n = ttr_reader__nr_chunks(rs->rd);

	while (rs->next_chunk < n &&
	       ttr_reader__chunk(rs->rd, rs->next_chunk)->kind != TTR_KIND_EVENTS)
		rs->next_chunk++;
	if (rs->next_chunk >= n)
		return 0;
	if (ttr_reader__load(rs->rd, rs->next_chunk++) < 0) {
		snprintf(rs->base.error, sizeof(rs->base.error), "%s", ttr_reader__error(rs->rd));
		return -EBADMSG;
	}
	rs->loaded = true;
	return 1;
}

static int at_end(struct replay_source *rs)
{
	const char *damage = ttr_reader__damage(rs->rd);

	if (damage) {
		snprintf(rs->base.error, sizeof(rs->base.error), "%s", damage);
		return -EBADMSG;
	}
	rs->base.error[0] = '\0';
	return SOURCE_EOF;
}

static int replay_ready(struct source *src)
{
	struct replay_source *rs = to_replay(src);

	for (unsigned budget = RECORDS_PER_CALL; budget; budget--) {
		int n;

		if (!rs->loaded) {
			n = load_next(rs);
			if (n < 0)
				return n;
			if (n == 0)
				return at_end(rs);
		}
		n = ttr_reader__next(rs->rd, &rs->ev.hdr, sizeof(rs->ev));
		if (n < 0) {
			snprintf(src->error, sizeof(src->error), "%s", ttr_reader__error(rs->rd));
			return -EBADMSG;
		}
		if (n == 0) {
			rs->loaded = false;
			continue;
		}
		sink_emit(&src->sink, &rs->ev.hdr);
		if (rs->ev.hdr.type == TT_EV_INTERVAL)
			return 0;
	}
	return 0;
}

static bool is_dict(uint16_t type)
{
	return type == TT_EV_STRING || type == TT_EV_STACK || type == TT_EV_THREAD_INFO ||
	       type == TT_EV_FRAME_NAME || type == TT_EV_BUILD_ID || type == TT_EV_LABEL_NAME;
}

/*
 * Emits the dictionary records of chunk i (all of a snapshot, the
 * dictionary records of an event chunk), timed at when_ns: as of the jump.
 */
static int emit_dicts(struct replay_source *rs, size_t i, uint64_t when_ns)
{
	int n;

	if (ttr_reader__load(rs->rd, i) < 0)
		goto bad;
	while ((n = ttr_reader__next(rs->rd, &rs->ev.hdr, sizeof(rs->ev))) > 0) {
		if (!is_dict(rs->ev.hdr.type))
			continue;
		rs->ev.hdr.time_ns = when_ns;
		sink_emit(&rs->base.sink, &rs->ev.hdr);
	}
	if (n == 0)
		return 0;
bad:
	snprintf(rs->base.error, sizeof(rs->base.error), "%s", ttr_reader__error(rs->rd));
	return -EBADMSG;
}

int replay_source__seek(struct source *src, uint64_t time_ns)
{
	struct replay_source *rs = to_replay(src);
	size_t n = ttr_reader__nr_chunks(rs->rd), k, s;
	const struct ttr_chunk *c;
	uint64_t when;
	int err;

	k = ttr_reader__find(rs->rd, time_ns);
	while (k < n && ttr_reader__chunk(rs->rd, k)->kind != TTR_KIND_EVENTS)
		k++;
	if (k >= n)
		return -ERANGE;
	c = ttr_reader__chunk(rs->rd, k);
	when = c->first_ns;
	/* The latest snapshot before k, then what changed the dictionaries since. */
	for (s = k; s > 0; s--)
		if (ttr_reader__chunk(rs->rd, s - 1)->kind == TTR_KIND_SNAPSHOT)
			break;
	if (s > 0) {
		err = emit_dicts(rs, s - 1, when);
		if (err < 0)
			return err;
	}
	for (size_t i = s; i < k; i++) {
		c = ttr_reader__chunk(rs->rd, i);
		if (c->kind != TTR_KIND_EVENTS || !(c->flags & TTR_FLAG_DICT))
			continue;
		err = emit_dicts(rs, i, when);
		if (err < 0)
			return err;
	}
	rs->next_chunk = k;
	rs->loaded = false;
	return 0;
}

static void replay_free(struct source *src)
{
	struct replay_source *rs = to_replay(src);

	if (!rs)
		return;
	if (rs->efd >= 0)
		close(rs->efd);
	ttr_reader__free(rs->rd);
	free(rs);
}

static const struct source_ops replay_ops = {
	.name = "replay",
	.fd = replay_fd,
	.tick = replay_tick,
	.ready = replay_ready,
	.free = replay_free,
};

struct source *replay_source__new(const char *path, struct event_sink sink, char *err,
				  size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	return replay_source__new_fd(fd, path, sink, err, errlen);
}

struct source *replay_source__new_fd(int fd, const char *path, struct event_sink sink, char *err,
				     size_t errlen)
{
	struct replay_source *rs;
	struct ttr_reader *rd = ttr_reader__open_fd(fd, path, err, errlen);
	int e;

	if (!rd)
		return NULL;
	rs = xcalloc(1, sizeof(*rs));
	rs->base.ops = &replay_ops;
	rs->base.sink = sink;
	rs->rd = rd;
	/* Always readable: the loop calls ready() until the end (as fast as possible). */
	rs->efd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rs->efd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot create an eventfd: %s", path, strerror(e));
		replay_free(&rs->base);
		errno = e;
		return NULL;
	}
	return &rs->base;
}

const struct ttr_reader *replay_source__reader(struct source *src)
{
	return to_replay(src)->rd;
}
