/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Opening a file the user named on the command line (-w, --log, -r,
 * --labels; exports go through safe_file, which uses the same rules): only
 * a regular file, never blocking on a FIFO or opening a device, never
 * writing through a final symlink, never truncating a file threadtop did
 * not create, and under sudo as the sudo user (invoker.h), so the user can
 * make threadtop write nothing they could not write themselves.
 */
#ifndef THREADTOP_USER_FILE_H
#define THREADTOP_USER_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum user_file_how {
	USER_FILE_READ,	  /* an existing regular file (symlinks followed), read only */
	USER_FILE_CREATE, /* a new file (O_EXCL); with force an existing one is removed first */
	USER_FILE_APPEND, /* appended to, created when missing (not through a symlink) */
};

/*
 * Opens path (O_CLOEXEC, blocking I/O once open). mode is for a created
 * file. Returns the fd, or a negative errno: -ELOOP (a symlink to write
 * through; CREATE with force replaces the link itself), -EISDIR, -ENXIO (a FIFO, socket or device), -EEXIST (CREATE of
 * an existing file without force), -EPERM (the sudo user's IDs could not be
 * taken), or the open's own error (-EACCES: the user may not write there).
 */
int user_file_open(const char *path, enum user_file_how how, bool force, mode_t mode);

/* Removes path (a file user_file_open created) as the sudo user. 0 or -errno. */
int user_file_unlink(const char *path);

/*
 * Why user_file_open (or safe_file) failed, with what to do, in words for a
 * one-line message: "a symbolic link: threadtop does not write through
 * links; name the file itself". Points to static storage or strerror's.
 */
const char *user_file_reason(int err, enum user_file_how how);

#endif /* THREADTOP_USER_FILE_H */
