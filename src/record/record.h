/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The recorder: a tee of the event stream into a .ttr file (format in
 * assets/ttr-format.md). Records are encoded portably, gathered into chunks
 * of about a second, zstd-compressed, CRC-checked and appended with one write
 * each, so a killed recorder leaves every chunk it wrote readable. A failed
 * write (full disk) or the size cap stops the recording, never the caller:
 * the file is cut back to its last whole chunk and stays readable.
 */
#ifndef THREADTOP_RECORD_H
#define THREADTOP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"

struct recorder;

struct recorder_opts {
	const char *path;
	bool force;	    /* replace an existing file (never a FIFO, device or directory) */
	uint64_t max_size;  /* bytes; 0 = no cap */
	const char *source; /* "bpf", "proc", ...: replays report it */
	unsigned hz;	    /* thread sampling rate */
	double interval_s;  /* output interval */
	const char *pids;   /* "-p" as given, or NULL */
	int level;	    /* zstd level; 0 = default (3), -1 = store uncompressed */
	/* Extra "key=value\n" lines for the host info, or NULL (tests, replays). */
	const char *extra_info;
	/* Chunk span in ns; 0 = one second (tests use smaller). */
	uint64_t chunk_ns;
};

/*
 * Creates o->path (user_file_open: a new regular file, as the sudo user
 * under sudo; an existing file only with o->force, which removes it first)
 * and writes the file header with the host info. Returns NULL with errno
 * set and a one-line reason in err on failure (-EEXIST: exists, no force).
 */
struct recorder *recorder__new(const struct recorder_opts *o, char *err, size_t errlen);

/*
 * Appends one validated record. Returns 0, or a negative errno the first
 * time the recording stops (then recorder__error says why, in one line);
 * later calls do nothing and return 0.
 */
int recorder__write(struct recorder *r, const struct tt_event_header *ev);

/* Writes out the pending chunk now (tests, and before a planned stop). */
int recorder__flush(struct recorder *r);

/* Whether the recording stopped early (error or size cap). */
bool recorder__stopped(const struct recorder *r);
const char *recorder__error(const struct recorder *r);
/* Bytes in the file so far, and records written. */
uint64_t recorder__bytes(const struct recorder *r);
uint64_t recorder__records(const struct recorder *r);

/*
 * Flushes, writes the time index and the trailer, syncs and closes; frees r.
 * Returns 0 or a negative errno (the file then still replays: it lacks only
 * the index, which readers rebuild). Accepts NULL.
 */
int recorder__close(struct recorder *r);

/* Fills buf with the host's "key=value\n" lines (hostname, kernel, CPUs, boot time). */
size_t recorder_host_info(char *buf, size_t len);

#endif /* THREADTOP_RECORD_H */
