/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The .ttr reader (format in assets/ttr-format.md): checks the header, gets
 * the chunk index from the file's trailer or, for a file whose recorder was
 * killed, by walking the chunk headers, then loads chunks one at a time and
 * hands out their records decoded and validated. Everything read is bounded
 * and checked; a damaged file yields one line naming the file, the offset
 * and the reason. Library code: it never prints.
 */
#ifndef THREADTOP_TTR_READER_H
#define THREADTOP_TTR_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"

struct ttr_reader;

/* One chunk of the file, as the index describes it. */
struct ttr_chunk {
	uint64_t offset; /* of its header in the file */
	uint64_t first_ns, last_ns;
	uint32_t nr_records;
	uint32_t nr_intervals; /* interval marks in it */
	uint32_t stored_size;
	uint8_t kind;	/* TTR_CHUNK_EVENTS (1), TTR_CHUNK_SNAPSHOT (2) */
	uint16_t flags; /* bit 0: holds dictionary records */
};

#define TTR_KIND_EVENTS 1
#define TTR_KIND_SNAPSHOT 2
#define TTR_FLAG_DICT 1

/*
 * Opens path, or fd (which the reader then owns; name is for messages).
 * Returns NULL with errno set and "NAME: offset N: reason" in err when the
 * file is not a readable recording. Damage after a good header is not an
 * error here: the index stops before it and ttr_reader__damage says where.
 */
struct ttr_reader *ttr_reader__open(const char *path, char *err, size_t errlen);
struct ttr_reader *ttr_reader__open_fd(int fd, const char *name, char *err, size_t errlen);
void ttr_reader__free(struct ttr_reader *r);

/* A host info value ("hostname", "kernel", "hz", ...), or NULL. Owned by r. */
const char *ttr_reader__info(const struct ttr_reader *r, const char *key);

size_t ttr_reader__nr_chunks(const struct ttr_reader *r);
const struct ttr_chunk *ttr_reader__chunk(const struct ttr_reader *r, size_t i);
/* The file has its index and trailer: the recorder finished cleanly. */
bool ttr_reader__finished(const struct ttr_reader *r);
/* "NAME: offset N: reason" for damage found while indexing, or NULL. */
const char *ttr_reader__damage(const struct ttr_reader *r);

/* The first chunk whose records may reach time_ns (binary search); nr_chunks if none. */
size_t ttr_reader__find(const struct ttr_reader *r, uint64_t time_ns);

/* Loads chunk i. Returns 0, or -EBADMSG / -EIO with ttr_reader__error set. */
int ttr_reader__load(struct ttr_reader *r, size_t i);
/*
 * The next record of the loaded chunk, decoded into out (cap bytes,
 * TT_EVENT_MAX_SIZE is enough). Returns 1, 0 at the end of the chunk, or
 * -EBADMSG with ttr_reader__error set. Records of types or versions this
 * threadtop does not know are skipped (counted in ttr_reader__skipped).
 */
int ttr_reader__next(struct ttr_reader *r, struct tt_event_header *out, size_t cap);
uint64_t ttr_reader__skipped(const struct ttr_reader *r);
/* The last error, "NAME: offset N: reason". Owned by r. */
const char *ttr_reader__error(const struct ttr_reader *r);

#endif /* THREADTOP_TTR_READER_H */
