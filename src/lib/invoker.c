// SPDX-License-Identifier: GPL-2.0-only
/* The user who ran threadtop through sudo (see invoker.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "invoker.h"

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

int invoker_take_fd(int fd)
{
	unsigned uid, gid;

	if (!invoker_ids(&uid, &gid))
		return 0;
	return fchown(fd, uid, gid) < 0 ? -errno : 0;
}
