/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF source: the kernel-side samplers (bpf/) loaded with libbpf
 * skeletons, all records arriving through one ring buffer.
 */
#ifndef THREADTOP_SOURCE_BPF_H
#define THREADTOP_SOURCE_BPF_H

#include <stddef.h>

#include "threadtop/source.h"

struct bpf_source_opts {
	const int *pids; /* only these processes; NULL = all */
	size_t nr_pids;
	unsigned hz;  /* task-iterator sampling rate */
	int self_pid; /* left out in the kernel */
};

/*
 * Probes, loads and attaches. On failure returns NULL with errno set and a
 * one-line reason in err: what failed, why, and what to do.
 */
struct source *bpf_source__new(const struct bpf_source_opts *opts, struct event_sink sink,
			       char *err, size_t errlen);

#endif /* THREADTOP_SOURCE_BPF_H */
