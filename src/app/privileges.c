// SPDX-License-Identifier: GPL-2.0-only
/* Capability dropping (see privileges.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "privileges.h"

static bool has_any_capability(cap_t caps)
{
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(caps, c, CAP_PERMITTED, &v) == 0 && v == CAP_SET)
			return true;
	}
	return false;
}

int privileges_drop(const struct capability_need *keep, size_t n, char *desc, size_t desclen)
{
	cap_t caps = cap_get_proc();
	cap_value_t kept[64], active[64];
	size_t nr_kept = 0, nr_active = 0, used = 0;
	int err = 0;

	if (desclen)
		desc[0] = '\0';
	if (!caps)
		return -errno;
	if (!has_any_capability(caps)) {
		cap_free(caps);
		snprintf(desc, desclen, "no capabilities to drop");
		return 0;
	}
	for (size_t i = 0; i < n && nr_kept < 64; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(caps, keep[i].cap, CAP_PERMITTED, &v) == 0 && v == CAP_SET) {
			char *name = cap_to_name(keep[i].cap);

			kept[nr_kept++] = keep[i].cap;
			if (!keep[i].dormant)
				active[nr_active++] = keep[i].cap;
			used += (size_t)snprintf(
				desc + used, used < desclen ? desclen - used : 0, "%s%s%s (%s)",
				nr_kept > 1 ? ", " : "", name ? name : "?",
				keep[i].dormant ? " [permitted only]" : "", keep[i].why);
			cap_free(name);
		}
	}
	/* The bounding set first: dropping from it needs CAP_SETPCAP, still held. */
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		bool wanted = false;

		for (size_t i = 0; i < nr_kept; i++)
			wanted |= kept[i] == c;
		if (!wanted && CAP_IS_SUPPORTED(c) && cap_drop_bound(c) < 0 && errno != EINVAL) {
			err = -errno;
			goto out;
		}
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	cap_clear(caps);
	if ((nr_kept && cap_set_flag(caps, CAP_PERMITTED, (int)nr_kept, kept, CAP_SET) < 0) ||
	    (nr_active && cap_set_flag(caps, CAP_EFFECTIVE, (int)nr_active, active, CAP_SET) < 0)) {
		err = -errno;
		goto out;
	}
	if (cap_set_proc(caps) < 0) {
		err = -errno;
		goto out;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		err = -errno;
out:
	cap_free(caps);
	return err;
}
