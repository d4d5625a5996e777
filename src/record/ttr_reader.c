// SPDX-License-Identifier: GPL-2.0-only
/*
 * The .ttr reader (see ttr_reader.h). Trusts nothing in the file: every
 * size is bounded before anything is allocated, every chunk is CRC-checked
 * before it is decompressed, and every record is validated by the codec.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "event_codec.h"
#include "ttr_reader.h"
#include "user_file.h"
#include "util.h"
#include "ttr_format.h"

_Static_assert(TTR_KIND_EVENTS == TTR_CHUNK_EVENTS, "chunk kinds");
_Static_assert(TTR_KIND_SNAPSHOT == TTR_CHUNK_SNAPSHOT, "chunk kinds");
_Static_assert(TTR_FLAG_DICT == TTR_CF_DICT, "chunk flags");

struct ttr_reader {
	int fd;
	char *name;
	uint64_t size;
	uint64_t header_size;
	char *info;	       /* "key=value\n" text, NUL-terminated */
	char **keys, **values; /* into info_split */
	char *info_split;
	size_t nr_info;

	struct ttr_chunk *chunks;
	size_t nr_chunks, cap_chunks;
	bool finished;
	char damage[384];

	/* The loaded chunk. */
	ZSTD_DCtx *dctx;
	unsigned char *stored, *raw;
	size_t stored_cap, raw_cap;
	size_t raw_len, pos;
	uint32_t nr_read, nr_expected;
	uint64_t chunk_off;
	uint64_t skipped;
	char error[384];
};

static void set_error(struct ttr_reader *r, char *buf, size_t len, uint64_t off, const char *fmt,
		      ...) __attribute__((format(printf, 5, 6)));

static void set_error(struct ttr_reader *r, char *buf, size_t len, uint64_t off, const char *fmt,
		      ...)
{
	va_list ap;
	int n = snprintf(buf, len, "%s: offset %llu: ", r->name, (unsigned long long)off);

	if (n < 0 || (size_t)n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
}

static int read_at(struct ttr_reader *r, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(r->fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		done += (size_t)n;
	}
	return 0;
}

static void split_info(struct ttr_reader *r)
{
	size_t cap = 0;
	char *line, *save = NULL;

	r->info_split = xstrdup(r->info);
	for (line = strtok_r(r->info_split, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		xgrow((void **)&r->keys, &cap, r->nr_info + 1, sizeof(*r->keys));
		r->values = xrealloc(r->values, cap * sizeof(*r->values));
		r->keys[r->nr_info] = line;
		r->values[r->nr_info++] = eq + 1;
	}
}

static int read_header(struct ttr_reader *r, char *err, size_t errlen)
{
	unsigned char fixed[TTR_HEADER_FIXED], crcbuf[4];
	uint32_t header_size, info_len, crc;
	uint16_t major, minor;
	int e;

	if (r->size == 0) {
		set_error(r, err, errlen, 0, "empty file, not a threadtop recording");
		return -EBADMSG;
	}
	if (r->size < TTR_MAGIC_LEN || read_at(r, fixed, TTR_MAGIC_LEN, 0) < 0 ||
	    memcmp(fixed, TTR_MAGIC, TTR_MAGIC_LEN)) {
		set_error(r, err, errlen, 0, "not a threadtop recording (bad magic)");
		return -EBADMSG;
	}
	if (r->size < TTR_HEADER_FIXED + 4) {
		set_error(r, err, errlen, r->size, "file ends inside its header (%llu bytes)",
			  (unsigned long long)r->size);
		return -EBADMSG;
	}
	e = read_at(r, fixed, TTR_HEADER_FIXED, 0);
	if (e < 0) {
		set_error(r, err, errlen, 0, "cannot read the header: %s", strerror(-e));
		return e;
	}
	major = ttr_get16(fixed + 8);
	minor = ttr_get16(fixed + 10);
	header_size = ttr_get32(fixed + 12);
	info_len = ttr_get32(fixed + 20);
	if (major > TTR_MAJOR) {
		set_error(r, err, errlen, 8,
			  "recording format %u.%u is newer than this threadtop reads (%u.x); "
			  "replay it with a newer threadtop",
			  major, minor, TTR_MAJOR);
		return -EPROTONOSUPPORT;
	}
	if (major == 0) {
		set_error(r, err, errlen, 8, "bad format version 0.%u", minor);
		return -EBADMSG;
	}
	if (info_len > TTR_MAX_INFO || header_size != TTR_HEADER_FIXED + info_len + 4) {
		set_error(r, err, errlen, 12, "header size %u out of bounds", header_size);
		return -EBADMSG;
	}
	if (header_size > r->size) {
		set_error(r, err, errlen, r->size, "file ends inside its header (%llu of %u bytes)",
			  (unsigned long long)r->size, header_size);
		return -EBADMSG;
	}
	r->info = xmalloc((size_t)info_len + TTR_HEADER_FIXED + 1);
	memcpy(r->info, fixed, TTR_HEADER_FIXED);
	e = read_at(r, r->info + TTR_HEADER_FIXED, info_len, TTR_HEADER_FIXED);
	if (!e)
		e = read_at(r, crcbuf, 4, TTR_HEADER_FIXED + info_len);
	if (e < 0) {
		set_error(r, err, errlen, TTR_HEADER_FIXED, "cannot read the header: %s",
			  strerror(-e));
		return e;
	}
	crc = (uint32_t)crc32(0, (unsigned char *)r->info, TTR_HEADER_FIXED + info_len);
	if (crc != ttr_get32(crcbuf)) {
		set_error(r, err, errlen, TTR_HEADER_FIXED + info_len, "header CRC mismatch");
		return -EBADMSG;
	}
	memmove(r->info, r->info + TTR_HEADER_FIXED, info_len);
	r->info[info_len] = '\0';
	if (strlen(r->info) != info_len) {
		set_error(r, err, errlen, TTR_HEADER_FIXED, "NUL byte in the host info");
		return -EBADMSG;
	}
	r->header_size = header_size;
	split_info(r);
	return 0;
}

static void add_chunk(struct ttr_reader *r, uint64_t off, const struct ttr_chunk_header *h)
{
	xgrow((void **)&r->chunks, &r->cap_chunks, r->nr_chunks + 1, sizeof(*r->chunks));
	r->chunks[r->nr_chunks++] = (struct ttr_chunk){
		.offset = off,
		.first_ns = h->first_ns,
		.last_ns = h->last_ns,
		.nr_records = h->nr_records,
		.nr_intervals = h->nr_intervals,
		.stored_size = h->stored_size,
		.kind = h->kind,
		.flags = h->flags,
	};
}

/* Walks the chunk headers (a file without a usable index). */
static void scan(struct ttr_reader *r)
{
	unsigned char buf[TTR_CHUNK_HEADER];
	uint64_t off = r->header_size;

	r->nr_chunks = 0;
	while (off < r->size) {
		struct ttr_chunk_header h;
		const char *why;

		if (r->size - off < TTR_CHUNK_HEADER) {
			set_error(r, r->damage, sizeof(r->damage), off,
				  "file ends inside a chunk header (recording cut short)");
			return;
		}
		if (read_at(r, buf, sizeof(buf), off) < 0) {
			set_error(r, r->damage, sizeof(r->damage), off, "cannot read: %s",
				  strerror(errno));
			return;
		}
		why = ttr_chunk_header_decode(buf, &h);
		if (why) {
			set_error(r, r->damage, sizeof(r->damage), off, "%s", why);
			return;
		}
		if (h.stored_size > r->size - off - TTR_CHUNK_HEADER) {
			set_error(r, r->damage, sizeof(r->damage), off,
				  "file ends inside a chunk (recording cut short)");
			return;
		}
		if (h.kind == TTR_CHUNK_INDEX)
			return; /* the index of an otherwise unusable trailer: the end */
		add_chunk(r, off, &h);
		off += TTR_CHUNK_HEADER + (uint64_t)h.stored_size;
	}
}

/* Uses the index the trailer points at, if everything about it checks out. */
static bool load_index(struct ttr_reader *r)
{
	unsigned char trailer[TTR_TRAILER], buf[TTR_CHUNK_HEADER];
	struct ttr_chunk_header h;
	uint64_t index_off, next;
	unsigned char *entries;
	size_t n;

	if (r->size < r->header_size + TTR_CHUNK_HEADER + TTR_TRAILER ||
	    read_at(r, trailer, sizeof(trailer), r->size - TTR_TRAILER) < 0 ||
	    memcmp(trailer, TTR_TRAILER_MAGIC, 8))
		return false;
	index_off = ttr_get64(trailer + 8);
	if (index_off < r->header_size || index_off > r->size - TTR_TRAILER - TTR_CHUNK_HEADER ||
	    read_at(r, buf, sizeof(buf), index_off) < 0 || ttr_chunk_header_decode(buf, &h) ||
	    h.kind != TTR_CHUNK_INDEX || h.compression != TTR_COMP_NONE ||
	    index_off + TTR_CHUNK_HEADER + h.stored_size != r->size - TTR_TRAILER ||
	    h.stored_size % TTR_INDEX_ENTRY || h.nr_records != h.stored_size / TTR_INDEX_ENTRY)
		return false;
	entries = xmalloc(h.stored_size + 1);
	if (read_at(r, entries, h.stored_size, index_off + TTR_CHUNK_HEADER) < 0 ||
	    crc32(0, entries, h.stored_size) != h.payload_crc) {
		free(entries);
		return false;
	}
	n = h.nr_records;
	next = r->header_size;
	r->nr_chunks = 0;
	for (size_t i = 0; i < n; i++) {
		struct ttr_index_entry e;
		struct ttr_chunk_header ch = {0};

		ttr_index_entry_decode(entries + i * TTR_INDEX_ENTRY, &e);
		/* Chunks are contiguous: an index that says otherwise is not used. */
		if (e.offset != next || e.stored_size > TTR_MAX_STORED ||
		    e.offset + TTR_CHUNK_HEADER + e.stored_size > index_off ||
		    e.first_ns > e.last_ns) {
			free(entries);
			r->nr_chunks = 0;
			return false;
		}
		ch.kind = e.kind;
		ch.flags = e.flags;
		ch.stored_size = e.stored_size;
		ch.first_ns = e.first_ns;
		ch.last_ns = e.last_ns;
		ch.nr_records = e.nr_records;
		ch.nr_intervals = e.nr_intervals;
		add_chunk(r, e.offset, &ch);
		next = e.offset + TTR_CHUNK_HEADER + e.stored_size;
	}
	free(entries);
	if (next != index_off) {
		r->nr_chunks = 0;
		return false;
	}
	return true;
}

struct ttr_reader *ttr_reader__open_fd(int fd, const char *name, char *err, size_t errlen)
{
	struct ttr_reader *r = xcalloc(1, sizeof(*r));
	struct stat st;
	int e;

	r->fd = fd;
	r->name = xstrdup(name);
	if (fstat(fd, &st) < 0) {
		e = -errno;
		set_error(r, err, errlen, 0, "cannot stat: %s", strerror(-e));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		e = -EINVAL;
		set_error(r, err, errlen, 0, "not a regular file");
		goto fail;
	}
	r->size = (uint64_t)st.st_size;
	e = read_header(r, err, errlen);
	if (e < 0)
		goto fail;
	r->finished = load_index(r);
	if (!r->finished)
		scan(r);
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx) {
		e = -ENOMEM;
		set_error(r, err, errlen, 0, "cannot create a zstd context");
		goto fail;
	}
	return r;
fail:
	ttr_reader__free(r);
	errno = -e;
	return NULL;
}

struct ttr_reader *ttr_reader__open(const char *path, char *err, size_t errlen)
{
	int fd = user_file_open(path, USER_FILE_READ, false, 0);

	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			 user_file_reason(fd, USER_FILE_READ));
		errno = -fd;
		return NULL;
	}
	return ttr_reader__open_fd(fd, path, err, errlen);
}

void ttr_reader__free(struct ttr_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->name);
	free(r->info);
	free(r->info_split);
	free(r->keys);
	free(r->values);
	free(r->chunks);
	free(r->stored);
	free(r->raw);
	free(r);
}

const char *ttr_reader__info(const struct ttr_reader *r, const char *key)
{
	for (size_t i = 0; i < r->nr_info; i++)
		if (!strcmp(r->keys[i], key))
			return r->values[i];
	return NULL;
}

size_t ttr_reader__nr_chunks(const struct ttr_reader *r)
{
	return r->nr_chunks;
}

const struct ttr_chunk *ttr_reader__chunk(const struct ttr_reader *r, size_t i)
{
	return i < r->nr_chunks ? &r->chunks[i] : NULL;
}

bool ttr_reader__finished(const struct ttr_reader *r)
{
	return r->finished;
}

const char *ttr_reader__damage(const struct ttr_reader *r)
{
	return r->damage[0] ? r->damage : NULL;
}

const char *ttr_reader__error(const struct ttr_reader *r)
{
	return r->error;
}

uint64_t ttr_reader__skipped(const struct ttr_reader *r)
{
	return r->skipped;
}

size_t ttr_reader__find(const struct ttr_reader *r, uint64_t time_ns)
{
	size_t lo = 0, hi = r->nr_chunks;

	/* Chunks are in time order; the first whose last record is at or after time_ns. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->chunks[mid].last_ns < time_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void *grow_buf(unsigned char **buf, size_t *cap, size_t need)
{
	if (need > *cap) {
		free(*buf);
		*buf = xmalloc(need);
		*cap = need;
	}
	return *buf;
}

int ttr_reader__load(struct ttr_reader *r, size_t i)
{
	unsigned char buf[TTR_CHUNK_HEADER];
	const struct ttr_chunk *c;
	struct ttr_chunk_header h;
	unsigned long long fsize;
	const char *why;
	int e;

	r->raw_len = r->pos = 0;
	r->nr_read = r->nr_expected = 0;
	if (i >= r->nr_chunks) {
		set_error(r, r->error, sizeof(r->error), r->size, "no chunk %zu", i);
		return -EINVAL;
	}
	c = &r->chunks[i];
	r->chunk_off = c->offset;
	e = read_at(r, buf, sizeof(buf), c->offset);
	if (e < 0) {
		set_error(r, r->error, sizeof(r->error), c->offset, "cannot read chunk: %s",
			  e == -ENODATA ? "file shrank" : strerror(-e));
		return -EIO;
	}
	why = ttr_chunk_header_decode(buf, &h);
	if (!why && (h.kind != c->kind || h.stored_size != c->stored_size))
		why = "chunk does not match the index";
	if (why) {
		set_error(r, r->error, sizeof(r->error), c->offset, "%s", why);
		return -EBADMSG;
	}
	grow_buf(&r->stored, &r->stored_cap, (size_t)h.stored_size + 1);
	e = read_at(r, r->stored, h.stored_size, c->offset + TTR_CHUNK_HEADER);
	if (e < 0) {
		set_error(r, r->error, sizeof(r->error), c->offset, "cannot read chunk: %s",
			  e == -ENODATA ? "file shrank" : strerror(-e));
		return -EIO;
	}
	if ((uint32_t)crc32(0, r->stored, h.stored_size) != h.payload_crc) {
		set_error(r, r->error, sizeof(r->error), c->offset,
			  "chunk payload CRC mismatch (bytes %llu to %llu damaged?)",
			  (unsigned long long)(c->offset + TTR_CHUNK_HEADER),
			  (unsigned long long)(c->offset + TTR_CHUNK_HEADER + h.stored_size));
		return -EBADMSG;
	}
	grow_buf(&r->raw, &r->raw_cap, (size_t)h.raw_size + 1);
	if (h.compression == TTR_COMP_NONE) {
		memcpy(r->raw, r->stored, h.raw_size);
	} else {
		size_t n;

		fsize = ZSTD_getFrameContentSize(r->stored, h.stored_size);
		if (fsize != h.raw_size) {
			set_error(r, r->error, sizeof(r->error), c->offset,
				  "compressed size does not match the chunk header");
			return -EBADMSG;
		}
		n = ZSTD_decompressDCtx(r->dctx, r->raw, h.raw_size, r->stored, h.stored_size);
		if (ZSTD_isError(n) || n != h.raw_size) {
			set_error(r, r->error, sizeof(r->error), c->offset,
				  "chunk does not decompress: %s",
				  ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
			return -EBADMSG;
		}
	}
	r->raw_len = h.raw_size;
	r->nr_expected = h.nr_records;
	return 0;
}

int ttr_reader__next(struct ttr_reader *r, struct tt_event_header *out, size_t cap)
{
	const unsigned char *p;
	size_t left;

	for (;;) {
		uint16_t type, version;
		uint32_t size;
		const char *why = NULL;
		ssize_t n;

		left = r->raw_len - r->pos;
		p = r->raw + r->pos;
		if (!left) {
			if (r->nr_read != r->nr_expected) {
				set_error(r, r->error, sizeof(r->error), r->chunk_off,
					  "chunk holds %u records, its header says %u", r->nr_read,
					  r->nr_expected);
				return -EBADMSG;
			}
			return 0;
		}
		if (left < sizeof(struct tt_event_header)) {
			why = "record cut at the end of its chunk";
			goto bad;
		}
		type = ttr_get16(p);
		version = ttr_get16(p + 2);
		size = ttr_get32(p + 4);
		if (size < sizeof(struct tt_event_header) || size > left) {
			why = size > left ? "record runs past the end of its chunk"
					  : "record shorter than a header";
			goto bad;
		}
		r->nr_read++;
		if (!tt_event_known(type, version)) {
			r->skipped++;
			r->pos += size;
			continue;
		}
		n = tt_event_decode(p, left, out, cap, &why);
		if (n == -EAGAIN)
			why = "record cut at the end of its chunk";
		if (n < 0)
			goto bad;
		r->pos += (size_t)n;
		return 1;
	bad:
		set_error(r, r->error, sizeof(r->error), r->chunk_off,
			  "record %u at byte %zu of the chunk: %s", r->nr_read, r->pos, why);
		return -EBADMSG;
	}
}
