// SPDX-License-Identifier: GPL-2.0-only
/* Encoding and checking of .ttr chunk headers and index entries (see ttr_format.h). */
#include <zlib.h>

#include "ttr_format.h"

void ttr_chunk_header_encode(struct ttr_chunk_header *h, unsigned char *out)
{
	h->magic = TTR_CHUNK_MAGIC;
	ttr_put32(out, h->magic);
	out[4] = h->kind;
	out[5] = h->compression;
	ttr_put16(out + 6, h->flags);
	ttr_put32(out + 8, h->stored_size);
	ttr_put32(out + 12, h->raw_size);
	ttr_put64(out + 16, h->first_ns);
	ttr_put64(out + 24, h->last_ns);
	ttr_put32(out + 32, h->nr_records);
	ttr_put32(out + 36, h->nr_intervals);
	ttr_put32(out + 40, h->payload_crc);
	h->header_crc = (uint32_t)crc32(0, out, 44);
	ttr_put32(out + 44, h->header_crc);
}

const char *ttr_chunk_header_decode(const unsigned char *in, struct ttr_chunk_header *ret)
{
	struct ttr_chunk_header h;

	h.magic = ttr_get32(in);
	if (h.magic != TTR_CHUNK_MAGIC)
		return "no chunk starts here (bad chunk magic)";
	h.header_crc = ttr_get32(in + 44);
	if (h.header_crc != (uint32_t)crc32(0, in, 44))
		return "chunk header CRC mismatch";
	h.kind = in[4];
	h.compression = in[5];
	h.flags = ttr_get16(in + 6);
	h.stored_size = ttr_get32(in + 8);
	h.raw_size = ttr_get32(in + 12);
	h.first_ns = ttr_get64(in + 16);
	h.last_ns = ttr_get64(in + 24);
	h.nr_records = ttr_get32(in + 32);
	h.nr_intervals = ttr_get32(in + 36);
	h.payload_crc = ttr_get32(in + 40);
	if (h.compression != TTR_COMP_NONE && h.compression != TTR_COMP_ZSTD)
		return "unknown chunk compression";
	if (h.raw_size > TTR_MAX_RAW || h.stored_size > TTR_MAX_STORED)
		return "chunk size out of bounds";
	if (h.compression == TTR_COMP_NONE && h.raw_size != h.stored_size)
		return "uncompressed chunk with two sizes";
	if (h.first_ns > h.last_ns)
		return "chunk time range reversed";
	*ret = h;
	return NULL;
}

void ttr_index_entry_encode(const struct ttr_index_entry *e, unsigned char *out)
{
	ttr_put64(out, e->offset);
	ttr_put64(out + 8, e->first_ns);
	ttr_put64(out + 16, e->last_ns);
	ttr_put32(out + 24, e->nr_records);
	ttr_put32(out + 28, e->nr_intervals);
	out[32] = e->kind;
	out[33] = e->compression;
	ttr_put16(out + 34, e->flags);
	ttr_put32(out + 36, e->stored_size);
}

void ttr_index_entry_decode(const unsigned char *in, struct ttr_index_entry *ret)
{
	ret->offset = ttr_get64(in);
	ret->first_ns = ttr_get64(in + 8);
	ret->last_ns = ttr_get64(in + 16);
	ret->nr_records = ttr_get32(in + 24);
	ret->nr_intervals = ttr_get32(in + 28);
	ret->kind = in[32];
	ret->compression = in[33];
	ret->flags = ttr_get16(in + 34);
	ret->stored_size = ttr_get32(in + 36);
}
