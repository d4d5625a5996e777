/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lines of source files, for the Hot pane's source lines (hotlines.h): the
 * file a binary's DWARF names, read as the process sees it (under
 * /proc/PID/root first, then as is) and as the invoking user (user_file.h:
 * regular files only, never a FIFO or a device), since the path comes from
 * a binary any user may have built. Bounded: SOURCE_FILE_MAX bytes of a
 * file, SOURCE_FILES files kept, a line cut at the caller's buffer. The
 * text is raw bytes: renderers escape.
 */
#ifndef THREADTOP_SOURCE_FILE_H
#define THREADTOP_SOURCE_FILE_H

#include <stddef.h>
#include <stdint.h>

#define SOURCE_FILE_MAX (8u << 20)
#define SOURCE_FILES 8

struct source_files;

/* proc_root: NULL = "/proc". */
struct source_files *source_files__new(const char *proc_root);
void source_files__free(struct source_files *sf);
/*
 * Line `line` (from 1) of file path of process pid into buf (len bytes, NUL
 * ended, no newline, tabs as spaces). Returns 0, or a negative errno: the
 * file could not be read (-ENOENT, -EACCES as the user, -ENXIO not a
 * regular file, -EFBIG past SOURCE_FILE_MAX), -ERANGE it has fewer lines,
 * -EINVAL a relative path.
 */
int source_files__line(struct source_files *sf, uint32_t pid, const char *path, unsigned line,
		       char *buf, size_t len);

#endif /* THREADTOP_SOURCE_FILE_H */
