// SPDX-License-Identifier: GPL-2.0-only
/* The user who ran threadtop through sudo (see invoker.h). */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/fsuid.h>
#include <unistd.h>

#include "invoker.h"

#define INVOKER_MAX_GROUPS 256

static int parse_id(const char *s, unsigned *ret)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return -ENOENT;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT_MAX - 1)
		return -EINVAL;
	*ret = (unsigned)v;
	return 0;
}

int invoker_ids(unsigned *ret_uid, unsigned *ret_gid)
{
	unsigned uid, gid;

	if (geteuid() != 0 || parse_id(getenv("SUDO_UID"), &uid) < 0 ||
	    parse_id(getenv("SUDO_GID"), &gid) < 0)
		return 0;
	*ret_uid = uid;
	*ret_gid = gid;
	return 1;
}

/* The user's groups (SUDO_GID first), or just SUDO_GID when they have no entry. */
static int user_groups(unsigned uid, unsigned gid, gid_t *groups, int cap)
{
	struct passwd *pw = getpwuid((uid_t)uid);
	int n = cap;

	if (pw && getgrouplist(pw->pw_name, (gid_t)gid, groups, &n) >= 0 && n > 0)
		return n;
	groups[0] = (gid_t)gid;
	return 1;
}

int invoker_init(void)
{
	gid_t groups[INVOKER_MAX_GROUPS];
	unsigned uid, gid;
	int n;

	if (!invoker_ids(&uid, &gid))
		return 0;
	/* root's groups (group root among them) must not open files for the user */
	n = user_groups(uid, gid, groups, INVOKER_MAX_GROUPS);
	if (setgroups((size_t)n, groups) < 0)
		return -errno;
	if (setresgid((gid_t)-1, (gid_t)-1, (gid_t)gid) < 0)
		return -errno;
	if (setresuid((uid_t)-1, (uid_t)-1, (uid_t)uid) < 0)
		return -errno;
	return 0;
}

/* Sets the file system IDs; setfsuid reports no error, so read them back. */
static bool set_fs_ids(unsigned uid, unsigned gid)
{
	setfsgid((gid_t)gid);
	setfsuid((uid_t)uid);
	return (unsigned)setfsuid((uid_t)-1) == uid && (unsigned)setfsgid((gid_t)-1) == gid;
}

int invoker_enter(struct invoker_fs *ret_fs)
{
	unsigned uid, gid;

	ret_fs->active = false;
	if (!invoker_ids(&uid, &gid))
		return 0;
	if (!set_fs_ids(uid, gid)) {
		set_fs_ids(0, 0);
		return -EPERM;
	}
	ret_fs->active = true;
	return 0;
}

void invoker_leave(const struct invoker_fs *fs)
{
	if (fs->active)
		set_fs_ids(0, 0);
}
