/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stack queries over the model for exporters and the stacks view: every
 * (thread, state, syscall, kernel stack, user stack) combination the thread
 * sampler saw in a window, with its sample count. Exporters turn these rows
 * into folded stacks, pprof samples and flame graphs.
 */
#ifndef THREADTOP_MODEL_STACKS_H
#define THREADTOP_MODEL_STACKS_H

#include <stdint.h>

#include "model.h"

struct model_thread_stack {
	uint32_t pid;
	uint32_t tid;
	const char *comm;  /* the thread's name */
	const char *pcomm; /* the process's name (its main thread's comm), else comm */
	bool kthread;
	uint8_t state;	    /* enum tt_state */
	int32_t syscall;    /* TT_SYSCALL_NONE when not in one */
	uint32_t kstack_id; /* model__stack ids, 0 = none */
	uint32_t ustack_id;
	uint32_t labels_id; /* application labels (model__labels), 0 = none */
	uint64_t samples;   /* in the window */
};

/*
 * The thread samples of window that pass filter (NULL = all; its comm,
 * state, syscall and thread fields apply), one row per distinct key, sorted
 * by pid, tid, then most samples first. *ret is allocated (free it); its
 * strings are owned by the model, valid until the next ingest or interval
 * end. Returns the count of rows or a negative errno.
 */
int model__thread_stacks(struct model *m, enum model_window window,
			 const struct model_filter *filter, struct model_thread_stack **ret);

#endif /* THREADTOP_MODEL_STACKS_H */
