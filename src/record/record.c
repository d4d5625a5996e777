// SPDX-License-Identifier: GPL-2.0-only
/*
 * The .ttr writer (see record.h and assets/ttr-format.md). It keeps the
 * pending chunk in memory, and, so that a reader can seek without replaying
 * from the start, a copy of the dictionaries (strings, stacks, the latest
 * thread_info of live threads) that it writes out as a snapshot chunk after
 * every tenth chunk that changed them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "event_codec.h"
#include "hash.h"
#include "record.h"
#include "u64map.h"
#include "user_file.h"
#include "util.h"
#include "ttr_format.h"

#define CHUNK_RAW_TARGET (4u << 20) /* cut a chunk earlier than 1 s past this */
#define SNAPSHOT_EVERY 10	    /* dictionary-changing chunks between snapshots */
#define INFO_RETAIN_NS (60 * NSEC_PER_SEC)

/* A dictionary record kept for snapshots, already encoded. */
struct dict_entry {
	uint64_t last_seen_ns;
	uint32_t len;
	unsigned char data[];
};

struct recorder {
	int fd;
	char *path;
	uint64_t off; /* end of the last whole chunk */
	uint64_t max_size;
	int level;
	uint64_t chunk_ns;
	ZSTD_CCtx *cctx;

	/* The pending chunk. */
	unsigned char *raw;
	size_t raw_len, raw_cap;
	unsigned char *stored;
	size_t stored_cap;
	uint64_t chunk_start_ns, first_ns, last_ns;
	uint32_t nr_records, nr_intervals;
	uint16_t flags;

	struct ttr_index_entry *index;
	size_t nr_index, cap_index;

	struct u64map *strings, *stacks, *infos; /* id or tid -> struct dict_entry */
	struct u64map *frames, *labels;		 /* frame hash, label slot -> entry */
	struct u64map *build_ids;		 /* hash of (pid, module) -> entry */
	unsigned dict_chunks;			 /* since the last snapshot */

	uint64_t records;
	bool stopped;
	char error[320];
};

static void put_value(char *buf, size_t len, size_t *o, const char *key, const char *value)
{
	size_t start;

	if (*o >= len)
		return;
	*o += (size_t)snprintf(buf + *o, len - *o, "%s=", key);
	start = *o;
	if (*o < len)
		*o += (size_t)snprintf(buf + *o, len - *o, "%s\n", value);
	/* One line per key: a newline inside a value would start a bogus key. */
	for (size_t i = start; i + 1 < *o && i < len; i++)
		if (buf[i] == '\n' || buf[i] == '\r')
			buf[i] = ' ';
}

size_t recorder_host_info(char *buf, size_t len)
{
	char host[256] = "", num[64], boot_id[64] = "";
	struct utsname u;
	size_t o = 0;
	int fd;

	gethostname(host, sizeof(host) - 1);
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, boot_id, sizeof(boot_id) - 1);

		boot_id[n > 0 ? n : 0] = '\0';
		boot_id[strcspn(boot_id, "\n")] = '\0';
		close(fd);
	}
	put_value(buf, len, &o, "hostname", host);
	put_value(buf, len, &o, "kernel", u.release);
	put_value(buf, len, &o, "kernel_version", u.version);
	put_value(buf, len, &o, "machine", u.machine);
	snprintf(num, sizeof(num), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	put_value(buf, len, &o, "nr_cpus", num);
	snprintf(num, sizeof(num), "%ld", sysconf(_SC_CLK_TCK));
	put_value(buf, len, &o, "clock_ticks", num);
	/* CLOCK_REALTIME at CLOCK_MONOTONIC 0: turns event times into wall time. */
	snprintf(num, sizeof(num), "%llu", (unsigned long long)(realtime_ns() - monotonic_ns()));
	put_value(buf, len, &o, "boot_time_ns", num);
	if (boot_id[0])
		put_value(buf, len, &o, "boot_id", boot_id);
	return o < len ? o : len - 1;
}

static void stop(struct recorder *r, int err, const char *why)
{
	if (r->stopped)
		return;
	r->stopped = true;
	/* Cut a torn chunk off so the file ends on a whole one. */
	if (ftruncate(r->fd, (off_t)r->off) < 0) {
		/* Nothing more to do: readers stop at the torn chunk. */
	}
	snprintf(r->error, sizeof(r->error),
		 "recording to %s stopped at %llu bytes: %s; the file replays up to there", r->path,
		 (unsigned long long)r->off, why ? why : strerror(err));
}

static int write_all(struct recorder *r, const struct iovec *iov, int nr, uint64_t total)
{
	uint64_t done = 0;

	while (done < total) {
		struct iovec v[3];
		uint64_t skip = done;
		int n = 0;
		ssize_t w;

		for (int i = 0; i < nr; i++) {
			if (skip >= iov[i].iov_len) {
				skip -= iov[i].iov_len;
				continue;
			}
			v[n].iov_base = (char *)iov[i].iov_base + skip;
			v[n].iov_len = iov[i].iov_len - skip;
			skip = 0;
			n++;
		}
		w = pwritev(r->fd, v, n, (off_t)(r->off + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -ENOSPC;
		done += (uint64_t)w;
	}
	return 0;
}

/* Appends one chunk (header + payload) at r->off; on failure stops the recording. */
static int append_chunk(struct recorder *r, struct ttr_chunk_header *h, const void *payload,
			bool reserve_index)
{
	unsigned char head[TTR_CHUNK_HEADER];
	uint64_t total = TTR_CHUNK_HEADER + (uint64_t)h->stored_size;
	uint64_t reserve = 0;
	struct iovec iov[2];
	int err;

	if (r->stopped)
		return 0;
	if (reserve_index)
		reserve = TTR_CHUNK_HEADER + (r->nr_index + 2) * (uint64_t)TTR_INDEX_ENTRY +
			  TTR_TRAILER;
	if (r->max_size && r->off + total + reserve > r->max_size) {
		char why[96];

		snprintf(why, sizeof(why), "reached --max-size (%llu bytes)",
			 (unsigned long long)r->max_size);
		stop(r, EFBIG, why);
		return -EFBIG;
	}
	h->payload_crc = (uint32_t)crc32(0, payload, h->stored_size);
	ttr_chunk_header_encode(h, head);
	iov[0] = (struct iovec){head, sizeof(head)};
	iov[1] = (struct iovec){(void *)payload, h->stored_size};
	err = write_all(r, iov, 2, total);
	if (err < 0) {
		stop(r, -err, NULL);
		return err;
	}
	if (h->kind != TTR_CHUNK_INDEX) {
		xgrow((void **)&r->index, &r->cap_index, r->nr_index + 1, sizeof(*r->index));
		r->index[r->nr_index++] = (struct ttr_index_entry){
			.offset = r->off,
			.first_ns = h->first_ns,
			.last_ns = h->last_ns,
			.nr_records = h->nr_records,
			.nr_intervals = h->nr_intervals,
			.kind = h->kind,
			.compression = h->compression,
			.flags = h->flags,
			.stored_size = h->stored_size,
		};
	}
	/* Start write-back now, without waiting: bounds what a power cut loses. */
	sync_file_range(r->fd, (off_t)r->off, (off_t)total, SYNC_FILE_RANGE_WRITE);
	r->off += total;
	return 0;
}

/* Compresses raw (len bytes) into h and r->stored; returns the payload to write. */
static const void *compress_chunk(struct recorder *r, const void *raw, size_t len,
				  struct ttr_chunk_header *h)
{
	size_t bound = ZSTD_compressBound(len), n;

	h->raw_size = (uint32_t)len;
	if (bound > r->stored_cap) {
		free(r->stored);
		r->stored = xmalloc(bound);
		r->stored_cap = bound;
	}
	n = r->level < 0 ? len
			 : ZSTD_compressCCtx(r->cctx, r->stored, r->stored_cap, raw, len, r->level);
	if (ZSTD_isError(n) || n >= len) {
		h->compression = TTR_COMP_NONE;
		h->stored_size = (uint32_t)len;
		return raw;
	}
	h->compression = TTR_COMP_ZSTD;
	h->stored_size = (uint32_t)n;
	return r->stored;
}

static void forget_old_infos(struct recorder *r, uint64_t now)
{
	struct dict_entry *e;
	uint64_t tid;
	size_t pos = 0;

	while (u64map__next(r->infos, &pos, &tid, (void **)&e)) {
		if (e->last_seen_ns + INFO_RETAIN_NS < now) {
			u64map__remove_at(r->infos, &pos);
			free(e);
		}
	}
}

static void append_dict(unsigned char **buf, size_t *len, size_t *cap, struct u64map *map)
{
	struct dict_entry *e;
	uint64_t key;
	size_t pos = 0;

	while (u64map__next(map, &pos, &key, (void **)&e)) {
		xgrow((void **)buf, cap, *len + e->len, 1);
		memcpy(*buf + *len, e->data, e->len);
		*len += e->len;
	}
}

/* Writes the dictionaries as they stand after the last chunk. */
static int write_snapshot(struct recorder *r)
{
	struct ttr_chunk_header h = {.kind = TTR_CHUNK_SNAPSHOT, .flags = TTR_CF_DICT};
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	const void *payload;
	int err;

	forget_old_infos(r, r->last_ns);
	append_dict(&buf, &len, &cap, r->strings);
	append_dict(&buf, &len, &cap, r->stacks);
	append_dict(&buf, &len, &cap, r->infos);
	append_dict(&buf, &len, &cap, r->build_ids);
	append_dict(&buf, &len, &cap, r->frames);
	append_dict(&buf, &len, &cap, r->labels);
	h.nr_records = (uint32_t)(u64map__count(r->strings) + u64map__count(r->stacks) +
				  u64map__count(r->infos) + u64map__count(r->build_ids) +
				  u64map__count(r->frames) + u64map__count(r->labels));
	h.first_ns = h.last_ns = r->last_ns;
	if (len > TTR_MAX_RAW) {
		free(buf);
		return 0; /* too big to snapshot: seeking falls back to scanning */
	}
	payload = compress_chunk(r, buf, len, &h);
	err = append_chunk(r, &h, payload, true);
	free(buf);
	r->dict_chunks = 0;
	return err;
}

int recorder__flush(struct recorder *r)
{
	struct ttr_chunk_header h = {.kind = TTR_CHUNK_EVENTS};
	const void *payload;
	int err;

	if (r->stopped || !r->nr_records)
		return 0;
	h.flags = r->flags;
	h.first_ns = r->first_ns;
	h.last_ns = r->last_ns;
	h.nr_records = r->nr_records;
	h.nr_intervals = r->nr_intervals;
	payload = compress_chunk(r, r->raw, r->raw_len, &h);
	err = append_chunk(r, &h, payload, true);
	if (!err && (r->flags & TTR_CF_DICT) && ++r->dict_chunks >= SNAPSHOT_EVERY)
		err = write_snapshot(r);
	r->raw_len = 0;
	r->nr_records = r->nr_intervals = 0;
	r->flags = 0;
	return err;
}

static void keep_dict(struct u64map *map, uint64_t key, const unsigned char *data, size_t len,
		      uint64_t now)
{
	struct dict_entry *e = xmalloc(sizeof(*e) + len);

	e->last_seen_ns = now;
	e->len = (uint32_t)len;
	memcpy(e->data, data, len);
	free(u64map__put(map, key, e));
}

/* Keeps what a snapshot needs from the record just encoded at data. */
static void track(struct recorder *r, const struct tt_event_header *ev, const unsigned char *data,
		  size_t len)
{
	struct dict_entry *e;

	switch (ev->type) {
	case TT_EV_STRING:
		/* A retirement (len 0) keeps the text: the thread records a
		 * snapshot holds may still name it. */
		if (!((const struct tt_string *)ev)->len)
			break;
		keep_dict(r->strings, ((const struct tt_string *)ev)->id, data, len, ev->time_ns);
		r->flags |= TTR_CF_DICT;
		break;
	case TT_EV_STACK:
		keep_dict(r->stacks, ((const struct tt_stack *)ev)->id, data, len, ev->time_ns);
		r->flags |= TTR_CF_DICT;
		break;
	case TT_EV_THREAD_INFO:
		keep_dict(r->infos, ((const struct tt_thread_info *)ev)->tid, data, len,
			  ev->time_ns);
		r->flags |= TTR_CF_DICT;
		break;
	case TT_EV_FRAME_NAME: {
		const struct tt_frame_name *f = (const struct tt_frame_name *)ev;

		keep_dict(r->frames,
			  f->addr * 0x9e3779b97f4a7c15ull ^
				  ((uint64_t)f->pid << 1 | (f->flags & 1)),
			  data, len, ev->time_ns);
		r->flags |= TTR_CF_DICT;
		break;
	}
	case TT_EV_BUILD_ID: {
		const struct tt_build_id *b = (const struct tt_build_id *)ev;
		uint64_t h = hash_bytes(HASH_INIT ^ b->pid, b->data, b->module_len);

		keep_dict(r->build_ids, h, data, len, ev->time_ns);
		r->flags |= TTR_CF_DICT;
		break;
	}
	case TT_EV_LABEL_NAME:
		keep_dict(r->labels, ((const struct tt_label_name *)ev)->slot, data, len,
			  ev->time_ns);
		r->flags |= TTR_CF_DICT;
		break;
	case TT_EV_THREAD_SAMPLE:
		e = u64map__get(r->infos, ((const struct tt_thread_sample *)ev)->tid);
		if (e && ev->time_ns > e->last_seen_ns)
			e->last_seen_ns = ev->time_ns;
		break;
	case TT_EV_INTERVAL:
		r->nr_intervals++;
		break;
	default:
		break;
	}
}

int recorder__write(struct recorder *r, const struct tt_event_header *ev)
{
	ssize_t n;

	if (r->stopped)
		return 0;
	xgrow((void **)&r->raw, &r->raw_cap, r->raw_len + ev->size, 1);
	n = tt_event_encode(ev, r->raw + r->raw_len, r->raw_cap - r->raw_len);
	if (n < 0)
		return 0; /* not a valid record: the caller validated, so never */
	if (!r->nr_records) {
		r->chunk_start_ns = r->first_ns = r->last_ns = ev->time_ns;
	} else {
		if (ev->time_ns < r->first_ns)
			r->first_ns = ev->time_ns;
		if (ev->time_ns > r->last_ns)
			r->last_ns = ev->time_ns;
	}
	track(r, ev, r->raw + r->raw_len, (size_t)n);
	r->raw_len += (size_t)n;
	r->nr_records++;
	r->records++;
	if (ev->time_ns >= r->chunk_start_ns + r->chunk_ns || r->raw_len >= CHUNK_RAW_TARGET)
		return recorder__flush(r);
	return 0;
}

/* "records=thread_sample:1 thread_info:1 ...\n": the record versions this build writes. */
static size_t record_versions(char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "records=");

	for (unsigned type = 1; type < TT_EV_TYPE_MAX && o < len; type++) {
		unsigned v = 1;

		if (!tt_event_known(type, 1))
			continue;
		while (tt_event_known(type, v + 1))
			v++;
		o += (size_t)snprintf(buf + o, len - o, "%s%s:%u", o > 8 ? " " : "",
				      tt_event_type_name(type), v);
	}
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, "\n");
	return o < len ? o : len;
}

static int write_header(struct recorder *r, const struct recorder_opts *o)
{
	char *info = xmalloc(TTR_MAX_INFO);
	unsigned char *buf = xmalloc(TTR_HEADER_FIXED + TTR_MAX_INFO + 4);
	size_t len = 0;
	char num[64];
	struct iovec iov;
	int err;

#define KV(k, ...)                                                              \
	do {                                                                    \
		if (len < TTR_MAX_INFO)                                         \
			len += (size_t)snprintf(info + len, TTR_MAX_INFO - len, \
						k "=" __VA_ARGS__);             \
	} while (0)
	KV("format", "threadtop recording\n");
	KV("threadtop_version", "%s\n", TT_VERSION);
	len += recorder_host_info(info + len, TTR_MAX_INFO - len);
	KV("source", "%s\n", o->source ? o->source : "unknown");
	KV("hz", "%u\n", o->hz);
	KV("interval_s", "%.6f\n", o->interval_s);
	if (o->pids)
		KV("pids", "%s\n", o->pids);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)realtime_ns());
	KV("start_realtime_ns", "%s\n", num);
#undef KV
	len += record_versions(info + len, TTR_MAX_INFO - len);
	if (o->extra_info && len < TTR_MAX_INFO)
		len += (size_t)snprintf(info + len, TTR_MAX_INFO - len, "%s", o->extra_info);
	if (len >= TTR_MAX_INFO)
		len = TTR_MAX_INFO - 1;

	memcpy(buf, TTR_MAGIC, TTR_MAGIC_LEN);
	ttr_put16(buf + 8, TTR_MAJOR);
	ttr_put16(buf + 10, TTR_MINOR);
	ttr_put32(buf + 12, (uint32_t)(TTR_HEADER_FIXED + len + 4));
	ttr_put32(buf + 16, 0);
	ttr_put32(buf + 20, (uint32_t)len);
	memcpy(buf + TTR_HEADER_FIXED, info, len);
	ttr_put32(buf + TTR_HEADER_FIXED + len,
		  (uint32_t)crc32(0, buf, (uInt)(TTR_HEADER_FIXED + len)));
	iov = (struct iovec){buf, TTR_HEADER_FIXED + len + 4};
	err = write_all(r, &iov, 1, iov.iov_len);
	if (!err)
		r->off = iov.iov_len;
	free(info);
	free(buf);
	return err;
}

struct recorder *recorder__new(const struct recorder_opts *o, char *err, size_t errlen)
{
	struct recorder *r;
	int e;

	r = xcalloc(1, sizeof(*r));
	r->fd = user_file_open(o->path, USER_FILE_CREATE, o->force, 0644);
	if (r->fd < 0) {
		e = -r->fd;
		snprintf(err, errlen, "-w %s: cannot create the recording: %s", o->path,
			 user_file_reason(-e, USER_FILE_CREATE));
		free(r);
		errno = e;
		return NULL;
	}
	r->path = xstrdup(o->path);
	r->max_size = o->max_size;
	r->level = o->level ? o->level : 3;
	if (r->level > ZSTD_maxCLevel())
		r->level = ZSTD_maxCLevel();
	r->chunk_ns = o->chunk_ns ? o->chunk_ns : NSEC_PER_SEC;
	r->cctx = ZSTD_createCCtx();
	r->strings = u64map__new();
	r->stacks = u64map__new();
	r->infos = u64map__new();
	r->frames = u64map__new();
	r->build_ids = u64map__new();
	r->labels = u64map__new();
	e = r->cctx ? write_header(r, o) : -ENOMEM;
	if (e < 0) {
		snprintf(err, errlen, "-w %s: cannot write the recording header: %s", o->path,
			 strerror(-e));
		close(r->fd);
		r->fd = -1;
		user_file_unlink(o->path);
		recorder__close(r);
		errno = -e;
		return NULL;
	}
	return r;
}

bool recorder__stopped(const struct recorder *r)
{
	return r->stopped;
}

const char *recorder__error(const struct recorder *r)
{
	return r->error[0] ? r->error : NULL;
}

uint64_t recorder__bytes(const struct recorder *r)
{
	return r->off;
}

uint64_t recorder__records(const struct recorder *r)
{
	return r->records;
}

/* The index chunk and the trailer that points at it. */
static int write_index(struct recorder *r)
{
	struct ttr_chunk_header h = {.kind = TTR_CHUNK_INDEX, .compression = TTR_COMP_NONE};
	size_t len = r->nr_index * TTR_INDEX_ENTRY;
	unsigned char *buf = xmalloc(len + 1), trailer[TTR_TRAILER];
	uint64_t index_off = r->off;
	struct iovec iov;
	int err;

	for (size_t i = 0; i < r->nr_index; i++)
		ttr_index_entry_encode(&r->index[i], buf + i * TTR_INDEX_ENTRY);
	h.raw_size = h.stored_size = (uint32_t)len;
	h.nr_records = (uint32_t)r->nr_index;
	if (r->nr_index) {
		h.first_ns = r->index[0].first_ns;
		h.last_ns = r->index[r->nr_index - 1].last_ns;
	}
	if (h.first_ns > h.last_ns)
		h.last_ns = h.first_ns;
	err = append_chunk(r, &h, buf, false);
	free(buf);
	if (err < 0)
		return err;
	memcpy(trailer, TTR_TRAILER_MAGIC, 8);
	ttr_put64(trailer + 8, index_off);
	iov = (struct iovec){trailer, sizeof(trailer)};
	err = write_all(r, &iov, 1, sizeof(trailer));
	if (err < 0) {
		stop(r, -err, NULL);
		return err;
	}
	r->off += sizeof(trailer);
	return 0;
}

static void free_dict(struct u64map *map)
{
	void *e;
	uint64_t key;
	size_t pos = 0;

	while (u64map__next(map, &pos, &key, &e))
		free(e);
	u64map__free(map);
}

int recorder__close(struct recorder *r)
{
	int err = 0;

	if (!r)
		return 0;
	if (r->fd >= 0) {
		err = recorder__flush(r);
		if (!err && !r->stopped)
			err = write_index(r);
		if (fdatasync(r->fd) < 0 && !err)
			err = -errno;
		if (close(r->fd) < 0 && !err)
			err = -errno;
	}
	ZSTD_freeCCtx(r->cctx);
	free_dict(r->strings);
	free_dict(r->stacks);
	free_dict(r->infos);
	free_dict(r->frames);
	free_dict(r->build_ids);
	free_dict(r->labels);
	free(r->raw);
	free(r->stored);
	free(r->index);
	free(r->path);
	free(r);
	return err;
}
