// SPDX-License-Identifier: GPL-2.0-only
/* The BPF source (see source_bpf.h). Not built yet: says so, so auto falls back. */
#include <errno.h>
#include <stdio.h>

#include "threadtop/source_bpf.h"

struct source *bpf_source__new(const struct bpf_source_opts *opts, struct event_sink sink,
			       char *err, size_t errlen)
{
	snprintf(err, errlen, "BPF source: not in this build yet; use --source proc");
	errno = ENOTSUP;
	return NULL;
}
