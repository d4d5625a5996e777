/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The on-disk layout of a .ttr recording, shared by the writer (record.c)
 * and the reader (ttr_reader.c). assets/ttr-format.md is the specification;
 * this header is its C transcription. Every integer is little-endian and
 * every structure is written field by field, never as a raw C struct.
 */
#ifndef THREADTOP_TTR_FORMAT_H
#define THREADTOP_TTR_FORMAT_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

/* File header: magic, then the fixed fields, the host info text, its CRC. */
#define TTR_MAGIC "\x89TTR\r\n\x1a\n"
#define TTR_MAGIC_LEN 8
#define TTR_MAJOR 1	    /* a reader refuses a newer major */
#define TTR_MINOR 0	    /* additions an older reader can ignore */
#define TTR_HEADER_FIXED 24 /* magic, major, minor, header_size, flags, info_len */
#define TTR_MAX_INFO 65536  /* bytes of host info text */

/* Chunk header: 48 bytes, then stored_size bytes of payload. */
#define TTR_CHUNK_MAGIC 0x4b435454u /* "TTCK" */
#define TTR_CHUNK_HEADER 48
#define TTR_MAX_RAW (16u << 20)	   /* bytes of a chunk's decoded payload */
#define TTR_MAX_STORED (17u << 20) /* bytes of a chunk's stored payload */

enum ttr_chunk_kind {
	TTR_CHUNK_EVENTS = 1,	/* encoded event records, in stream order */
	TTR_CHUNK_SNAPSHOT = 2, /* dictionaries as of the next chunk: for seeking only */
	TTR_CHUNK_INDEX = 3,	/* the time index, last chunk of a finished file */
};

enum ttr_compression {
	TTR_COMP_NONE = 0,
	TTR_COMP_ZSTD = 1,
};

/* Index entry (payload of a TTR_CHUNK_INDEX chunk): one per chunk before it. */
#define TTR_INDEX_ENTRY 40

/* Trailer: the last 16 bytes of a finished file. */
#define TTR_TRAILER_MAGIC "TTR-END\n"
#define TTR_TRAILER 16

/* Chunk flags. */
#define TTR_CF_DICT (1u << 0) /* holds dictionary records (string, stack, thread_info, ...) */

struct ttr_chunk_header {
	uint32_t magic;
	uint8_t kind;	     /* enum ttr_chunk_kind */
	uint8_t compression; /* enum ttr_compression */
	uint16_t flags;	     /* TTR_CF_* */
	uint32_t stored_size;
	uint32_t raw_size;
	uint64_t first_ns; /* smallest record time in the chunk */
	uint64_t last_ns;  /* largest record time in the chunk */
	uint32_t nr_records;
	uint32_t nr_intervals; /* TT_EV_INTERVAL marks in the chunk */
	uint32_t payload_crc;  /* crc32 of the stored payload */
	uint32_t header_crc;   /* crc32 of the 44 bytes before it */
};

struct ttr_index_entry {
	uint64_t offset; /* of the chunk header in the file */
	uint64_t first_ns;
	uint64_t last_ns;
	uint32_t nr_records;
	uint32_t nr_intervals;
	uint8_t kind;
	uint8_t compression;
	uint16_t flags; /* TTR_CF_* */
	uint32_t stored_size;
};

static inline void ttr_put16(unsigned char *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static inline void ttr_put32(unsigned char *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static inline void ttr_put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static inline uint16_t ttr_get16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static inline uint32_t ttr_get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static inline uint64_t ttr_get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* Encodes h into 48 bytes, computing header_crc. */
void ttr_chunk_header_encode(struct ttr_chunk_header *h, unsigned char *out);
/* Decodes 48 bytes; returns NULL when sound, else what is wrong. */
const char *ttr_chunk_header_decode(const unsigned char *in, struct ttr_chunk_header *ret);

void ttr_index_entry_encode(const struct ttr_index_entry *e, unsigned char *out);
void ttr_index_entry_decode(const unsigned char *in, struct ttr_index_entry *ret);

#endif /* THREADTOP_TTR_FORMAT_H */
