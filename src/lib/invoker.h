/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user who ran threadtop through sudo (SUDO_UID/SUDO_GID while threadtop
 * is root): the files threadtop creates are given to them, not left to root.
 */
#ifndef THREADTOP_INVOKER_H
#define THREADTOP_INVOKER_H

/*
 * Gives fd to the user who invoked sudo (SUDO_UID/SUDO_GID) when threadtop
 * runs as root through sudo; otherwise does nothing. Returns 0 or -errno.
 */
int invoker_take_fd(int fd);

/* Whether invoker_take_fd has someone to give files to. */
int invoker_ids(unsigned *ret_uid, unsigned *ret_gid);

#endif /* THREADTOP_INVOKER_H */
