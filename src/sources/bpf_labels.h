/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The application-label part of the BPF source (bpf/labels.bpf.c): loads the
 * object sharing the first object's ring buffer and filters, attaches one
 * uprobe per label definition (two for a scope) parameterised by the attach
 * cookie, and runs the label iterator before each thread-sampling pass.
 */
#ifndef THREADTOP_BPF_LABELS_H
#define THREADTOP_BPF_LABELS_H

#include <stdint.h>

#include "labels.h"
#include "threadtop/source.h"

struct bpf_object;
struct bpf_labels;

/* Called with one line per definition that could not attach (the run goes on). */
typedef void (*bpf_labels_warn_fn)(const char *msg);

/*
 * Loads and attaches. first is the already loaded object whose shared maps
 * (tt_events, tt_drops, tt_tgids, tt_stack_ids, tt_counters) are reused;
 * labels_fd, unless -1, the tt_labels map of the samplers that tag their
 * samples with labels (bpf/labels.bpf.h), which the probes then fill.
 * Returns NULL with a one-line reason in err when the object cannot load or
 * no definition could attach.
 */
struct bpf_labels *bpf_labels__new(const struct label_set *set, struct bpf_object *first,
				   int labels_fd, int self_pid, bool filter_tgids,
				   bpf_labels_warn_fn warn, char *err, size_t errlen);
/* Sends the label names once (first call) and runs the label iterator. */
int bpf_labels__tick(struct bpf_labels *l, const struct event_sink *sink, uint64_t now);
void bpf_labels__free(struct bpf_labels *l);

#endif /* THREADTOP_BPF_LABELS_H */
