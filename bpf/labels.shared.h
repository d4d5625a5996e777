/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the label probes (labels.bpf.c) share with their loader
 * (src/sources/bpf_labels.c): the configuration of each probe, one entry of
 * tt_label_conf per --label definition, picked by the attach cookie. No
 * includes: the includer brings __u32 and friends, and threadtop/events.h
 * (TT_LABEL_VALUE_LEN).
 */
#ifndef THREADTOP_BPF_LABELS_SHARED_H
#define THREADTOP_BPF_LABELS_SHARED_H

/* Entries of tt_label_conf: at least LABEL_MAX_DEFS (checked by the loader). */
#define TT_LABEL_CONFS 64

enum { TT_LABEL_OP_SET = 0, TT_LABEL_OP_CLEAR = 1 };

enum {
	TT_LABEL_ARG_NONE = 0,
	TT_LABEL_ARG_NUMBER = 1,
	TT_LABEL_ARG_STRING = 2,
	TT_LABEL_ARG_LITERAL = 3,
};

struct tt_label_conf {
	__u32 slot;
	__u32 op;	/* TT_LABEL_OP_* on entry; a return probe always clears */
	__u32 arg_kind; /* TT_LABEL_ARG_* */
	__u32 argn;	/* 1 to 6 */
	char literal[TT_LABEL_VALUE_LEN];
};

#endif /* THREADTOP_BPF_LABELS_SHARED_H */
