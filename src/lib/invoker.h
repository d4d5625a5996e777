/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user who ran threadtop through sudo (SUDO_UID/SUDO_GID while threadtop
 * is root): the files threadtop creates are created as them (file system
 * IDs switched around each open), never by root for them.
 */
#ifndef THREADTOP_INVOKER_H
#define THREADTOP_INVOKER_H

#include <stdbool.h>

/* Whether threadtop runs as root through sudo; their IDs in ret_uid, ret_gid. */
int invoker_ids(unsigned *ret_uid, unsigned *ret_gid);

/*
 * Called once at start, while threadtop still has CAP_SETUID and
 * CAP_SETGID, before any thread starts: under sudo, makes the sudo user's
 * IDs the saved set-user and set-group IDs and their groups the
 * supplementary groups, so that invoker_enter works after the capability
 * drop (a process may set its file system IDs to its saved IDs without
 * capabilities). Real and effective IDs stay 0. Not under sudo, does
 * nothing. Returns 0 or a negative errno.
 */
int invoker_init(void);

/* What invoker_enter changed, for invoker_leave. */
struct invoker_fs {
	bool active;
};

/*
 * Until invoker_leave, files are looked up, opened and created with the sudo
 * user's file system IDs (root's file capabilities do not apply: the kernel
 * checks the user's permissions). Not under sudo, does nothing. Returns 0, or
 * -EPERM when the IDs cannot be switched (invoker_init was not called or
 * failed): the caller must then not open the file.
 */
int invoker_enter(struct invoker_fs *ret_fs);

/* Back to root's file system IDs. */
void invoker_leave(const struct invoker_fs *fs);

#endif /* THREADTOP_INVOKER_H */
