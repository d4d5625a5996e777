/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Least privilege: once the BPF programs are loaded and attached threadtop
 * keeps only the capabilities it still uses (files are created as the user
 * who ran it through sudo, which needs none: invoker.h).
 */
#ifndef THREADTOP_PRIVILEGES_H
#define THREADTOP_PRIVILEGES_H

#include <stddef.h>

struct capability_need {
	int cap;	 /* CAP_* */
	const char *why; /* what threadtop still does with it */
	bool dormant;	 /* permitted, not effective: only a child raises it (child_creds.h) */
};

/*
 * Keeps only the capabilities in keep (permitted, and effective unless
 * dormant), empties the
 * inheritable, ambient and bounding sets and sets no_new_privs, so nothing
 * threadtop runs later inherits privilege. A process without capabilities
 * is left as it is. Describes what was kept in desc (desclen bytes).
 * Returns 0 or a negative errno.
 */
int privileges_drop(const struct capability_need *keep, size_t n, char *desc, size_t desclen);

#endif /* THREADTOP_PRIVILEGES_H */
