/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who the commands threadtop starts (--cmd, threadtop run) run as: never with
 * threadtop's capabilities. Under sudo they run as the invoking user
 * (SUDO_UID/SUDO_GID, with that user's groups), as plain root as nobody,
 * and with --cmd-as-root as threadtop itself. Resolved in the parent (user
 * and group lookups are not safe after fork), applied in the child between
 * fork and exec with system calls only.
 */
#ifndef THREADTOP_CHILD_CREDS_H
#define THREADTOP_CHILD_CREDS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CHILD_CREDS_MAX_GROUPS 256
#define CHILD_CREDS_FALLBACK_ID 65534 /* nobody/nogroup where the name is unknown */

struct child_creds {
	bool as_root;	 /* --cmd-as-root: the child keeps threadtop's uid and capabilities */
	bool change_ids; /* threadtop is root: set uid, gid and groups below */
	uid_t uid;
	gid_t gid;
	size_t nr_groups;
	gid_t groups[CHILD_CREDS_MAX_GROUPS];
	char user[64]; /* the user's name (or "uid N"), for messages */
};

/*
 * Fills ret for a child of this process: as_root keeps it as threadtop is.
 * Returns 0, or a negative errno with a one-line reason in err (errlen bytes).
 */
int child_creds_resolve(struct child_creds *ret, bool as_root, char *err, size_t errlen);

/*
 * In the child, after fork and before exec (async-signal-safe), or in a
 * single-threaded threadtop that gives up root (a replay): capabilities are
 * per thread, so other threads would keep theirs. Sets
 * no_new_privs, empties the bounding and ambient sets, takes the user's
 * groups, gid and uid (real, effective, saved) and clears every capability
 * (effective, permitted, inheritable), then checks that all of it holds.
 * Uses CAP_SETPCAP, CAP_SETUID and CAP_SETGID while it still may (raising them
 * from the permitted set). Returns 0 or a negative errno; the child must not
 * exec after a failure.
 */
int child_creds_apply(const struct child_creds *c);

#endif /* THREADTOP_CHILD_CREDS_H */
