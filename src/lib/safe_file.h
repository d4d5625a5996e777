/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Writing a file the safe way, for exports: the data goes to a temporary
 * file in the target's directory (created O_EXCL, so never through a
 * symlink), is flushed and synced, and only then renamed onto the final
 * name: readers never see a partial file, a full disk leaves nothing
 * behind, and an existing file is replaced only when forced (a symlink at
 * the final name is replaced itself, never followed; a FIFO or device is
 * refused). Under sudo every step (check, create, rename) is done with the
 * sudo user's file system IDs (invoker_enter), so the file is theirs and
 * lands only where they may write, even after the capability drop.
 */
#ifndef THREADTOP_SAFE_FILE_H
#define THREADTOP_SAFE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct safe_file;

/*
 * Checks that path can be written (by the sudo user under sudo): its
 * directory exists and may be written, and path does not exist unless force
 * (a directory, FIFO or device is never replaced). Returns 0 or a negative
 * errno (-EEXIST, -EISDIR, -ENXIO, -ENOENT, -EACCES, ...).
 */
int safe_file_check(const char *path, bool force);

/*
 * Starts writing path. Returns NULL with errno set (as safe_file_check, or
 * why the temporary file could not be created).
 */
struct safe_file *safe_file__open(const char *path, bool force);

/* The stream to write to; owned by the safe_file. */
FILE *safe_file__stream(struct safe_file *sf);

/*
 * Flushes, syncs and renames the data onto the final name, and frees sf. On any error (a write failed earlier, the
 * disk is full, the name was taken meanwhile) the temporary file is
 * removed, nothing is left under the final name, and a negative errno is
 * returned. *ret_size (may be NULL) gets the bytes written on success.
 */
int safe_file__commit(struct safe_file *sf, size_t *ret_size);

/* Gives up: removes the temporary file and frees sf. Accepts NULL. */
void safe_file__abort(struct safe_file *sf);

#endif /* THREADTOP_SAFE_FILE_H */
