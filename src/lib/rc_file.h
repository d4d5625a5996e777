/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rc file, ~/.config/threadtop/threadtoprc (htop's htoprc habit): lines
 * of "key=value", "#" comments. Read with a size bound; written whole through
 * user_file.h (as the sudo user, never through a symlink). What the keys mean
 * is the front end's business; this only reads and writes lines.
 */
#ifndef THREADTOP_RC_FILE_H
#define THREADTOP_RC_FILE_H

#include <stddef.h>

#define RC_FILE_MAX 16384 /* bytes read at most: an rc file is a few lines */

/*
 * The rc file's path into buf: $XDG_CONFIG_HOME/threadtop/threadtoprc when
 * set, else the home of the user who ran threadtop (the sudo user under
 * sudo) + /.config/threadtop/threadtoprc. 0, or -ENOENT without a home.
 */
int rc_file_path(char *buf, size_t len);

/*
 * Reads path and calls fn for each "key=value" line (spaces around both
 * trimmed); fn returns NULL, or why it refuses the line ("unknown key").
 * Returns the lines taken (0 when the file does not exist), or -EINVAL at
 * the first bad line with "PATH:LINE: reason" in err (the lines before it
 * stay taken), or another negative errno with the reason in err.
 */
int rc_file_read(const char *path, const char *(*fn)(void *ctx, const char *key, const char *value),
		 void *ctx, char *err, size_t errlen);

/*
 * Writes text as the whole file path, creating its directory (mode 0700)
 * when missing. Returns 0 or a negative errno with "PATH: reason" in err.
 */
int rc_file_write(const char *path, const char *text, char *err, size_t errlen);

#endif /* THREADTOP_RC_FILE_H */
