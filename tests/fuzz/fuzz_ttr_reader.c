// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the .ttr reader with arbitrary files: open (header, trailer index or
 * chunk scan), then load every chunk and decode every record. Each input runs
 * twice: as is (exercising the CRC checks) and with every CRC the reader
 * checks made right, so that mutations reach the index, zstd and the record
 * decoder behind them. Nothing may crash, leak or allocate without bound.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "event_codec.h"
#include "ttr_reader.h"
#include "ttr_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fix_crc(unsigned char *p, size_t at, size_t from, size_t len)
{
	ttr_put32(p + at, (uint32_t)crc32(0, p + from, (uInt)len));
}

/* Makes the header, chunk header, payload and index CRCs right where the layout allows. */
static void fix_crcs(unsigned char *p, size_t size)
{
	size_t off, info_len;

	if (size < TTR_HEADER_FIXED + 4)
		return;
	info_len = ttr_get32(p + 20);
	if (info_len > size - TTR_HEADER_FIXED - 4)
		return;
	fix_crc(p, TTR_HEADER_FIXED + info_len, 0, TTR_HEADER_FIXED + info_len);
	off = TTR_HEADER_FIXED + info_len + 4;
	while (size - off >= TTR_CHUNK_HEADER) {
		size_t stored = ttr_get32(p + off + 8);

		if (stored > size - off - TTR_CHUNK_HEADER)
			stored = size - off - TTR_CHUNK_HEADER;
		fix_crc(p + off, 40, TTR_CHUNK_HEADER, stored);
		fix_crc(p + off, 44, 0, 44);
		off += TTR_CHUNK_HEADER + ttr_get32(p + off + 8);
		if (off > size)
			break;
	}
}

static void run(const uint8_t *data, size_t size)
{
	static _Alignas(8) unsigned char out[TT_EVENT_MAX_SIZE];
	struct ttr_reader *r;
	char err[384];
	int fd = memfd_create("fuzz.ttr", MFD_CLOEXEC);

	if (fd < 0)
		return;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	r = ttr_reader__open_fd(fd, "fuzz.ttr", err, sizeof(err));
	if (!r)
		return;
	ttr_reader__info(r, "hz");
	ttr_reader__find(r, 12345);
	for (size_t i = 0; i < ttr_reader__nr_chunks(r); i++) {
		if (ttr_reader__load(r, i) < 0)
			continue;
		while (ttr_reader__next(r, (struct tt_event_header *)out, sizeof(out)) > 0)
			if (tt_event_validate((struct tt_event_header *)out, sizeof(out)) != 0)
				abort();
	}
	ttr_reader__free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy;

	if (size > (4u << 20))
		return 0;
	run(data, size);
	copy = malloc(size ? size : 1);
	if (size)
		memcpy(copy, data, size);
	fix_crcs(copy, size);
	run(copy, size);
	free(copy);
	return 0;
}
