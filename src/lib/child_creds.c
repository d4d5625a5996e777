// SPDX-License-Identifier: GPL-2.0-only
/* The credentials of threadtop's children (see child_creds.h). */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child_creds.h"
#include "invoker.h"

#define LAST_CAP_MAX 63 /* capabilities are bits of two 32-bit words */

static void set_user(struct child_creds *c, const struct passwd *pw)
{
	if (pw)
		snprintf(c->user, sizeof(c->user), "%s", pw->pw_name);
	else
		snprintf(c->user, sizeof(c->user), "uid %u", (unsigned)c->uid);
}

int child_creds_resolve(struct child_creds *ret, bool as_root, char *err, size_t errlen)
{
	struct child_creds c = {.as_root = as_root};
	struct passwd *pw = NULL;
	unsigned uid, gid;

	err[0] = '\0';
	if (as_root || geteuid() != 0) {
		c.uid = geteuid();
		c.gid = getegid();
		set_user(&c, getpwuid(c.uid));
		*ret = c;
		return 0;
	}
	c.change_ids = true;
	if (invoker_ids(&uid, &gid)) {
		c.uid = uid;
		c.gid = gid;
		pw = getpwuid(c.uid);
		set_user(&c, pw);
		if (pw) {
			int n = CHILD_CREDS_MAX_GROUPS;

			if (getgrouplist(pw->pw_name, c.gid, c.groups, &n) < 0) {
				snprintf(
					err, errlen,
					"%s is in more than %d groups: cannot give a command all of "
					"them; use --cmd-as-root or fewer groups",
					c.user, CHILD_CREDS_MAX_GROUPS);
				return -E2BIG;
			}
			c.nr_groups = (size_t)n;
		}
	} else {
		/* Plain root, no sudo: nobody, the user that owns nothing. */
		pw = getpwnam("nobody");
		c.uid = pw ? pw->pw_uid : CHILD_CREDS_FALLBACK_ID;
		c.gid = pw ? pw->pw_gid : CHILD_CREDS_FALLBACK_ID;
		set_user(&c, pw);
	}
	if (c.uid == 0) {
		snprintf(
			err, errlen,
			"SUDO_UID is 0: a command would run as root; use --cmd-as-root to mean it");
		return -EPERM;
	}
	if (!c.nr_groups) {
		c.groups[0] = c.gid;
		c.nr_groups = 1;
	}
	*ret = c;
	return 0;
}

static int caps_get(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};

	return syscall(SYS_capget, &hdr, data) < 0 ? -errno : 0;
}

static int caps_set(const struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};

	return syscall(SYS_capset, &hdr, data) < 0 ? -errno : 0;
}

static int empty_bounding_set(bool must)
{
	for (int cap = 0; cap <= LAST_CAP_MAX; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (in < 0)
			return 0; /* EINVAL: past the kernel's last capability */
		if (in && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && must)
			return -errno;
	}
	return 0;
}

static int check(const struct child_creds *c)
{
	struct __user_cap_data_struct data[2];
	uid_t r, e, s;
	gid_t rg, eg, sg;
	int err = caps_get(data);

	if (err < 0)
		return err;
	for (int i = 0; i < 2; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return -EPERM;
	/* (The ambient set is a subset of permitted: empty with it.) */
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return -EPERM;
	if (!c->change_ids)
		return 0;
	for (int cap = 0; cap <= LAST_CAP_MAX; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (in < 0)
			break;
		if (in)
			return -EPERM;
	}
	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0)
		return -errno;
	if (r != c->uid || e != c->uid || s != c->uid || rg != c->gid || eg != c->gid ||
	    sg != c->gid)
		return -EPERM;
	return 0;
}

int child_creds_apply(const struct child_creds *c)
{
	struct __user_cap_data_struct data[2];
	int err;

	if (c->as_root)
		return 0;
	/* Raise what threadtop keeps permitted but not effective for this moment. */
	err = caps_get(data);
	if (err < 0)
		return err;
	for (int i = 0; i < 2; i++)
		data[i].effective = data[i].permitted;
	caps_set(data);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	/* Without CAP_SETPCAP (threadtop not root) no_new_privs already bars any gain. */
	err = empty_bounding_set(c->change_ids);
	if (err < 0)
		return err;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	if (c->change_ids) {
		if (setgroups(c->nr_groups, c->groups) < 0 ||
		    setresgid(c->gid, c->gid, c->gid) < 0 || setresuid(c->uid, c->uid, c->uid) < 0)
			return -errno;
	}
	memset(data, 0, sizeof(data));
	err = caps_set(data);
	if (err < 0)
		return err;
	return check(c);
}
