/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the fd argument of a sampled syscall names (issue #30), in user
 * space: which argument is the fd (the one table, bpf/fd_target.shared.h),
 * and the text the views show for a TT_EV_FD_TARGET record of the thread
 * sampler: a path, "tcp 127.0.0.1:41000->127.0.0.1:5000", "unix /run/x",
 * "pipe:[1234]", "anon_inode:[eventfd]". The text is raw (a file name may
 * hold any byte but NUL): the views escape it (escape.h, json.h).
 */
#ifndef THREADTOP_FD_TARGET_H
#define THREADTOP_FD_TARGET_H

#include <stddef.h>
#include <linux/types.h>

#include "threadtop/events.h"
#include "fd_target.shared.h"

/* The argument (0 to 5) of syscall nr that is an fd, or -1 when none is. */
int fd_target_arg(int nr);

/* 0 when the size bytes at rec are a well-formed TT_EV_FD_TARGET record, else -EINVAL. */
int fd_target_check(const struct tt_fd_target *rec, size_t size);

/*
 * The text of a checked record into out (cap bytes, NUL-terminated unless
 * cap is 0; never a NUL inside). Returns its length (as snprintf: what it
 * would have been when cap is short).
 */
size_t fd_target_format(const struct tt_fd_target *rec, char *out, size_t cap);

#endif /* THREADTOP_FD_TARGET_H */
