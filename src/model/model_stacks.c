// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stack queries over the model (see model_stacks.h): walk every thread's
 * sample keys in a window and return one row per key that has samples, so
 * exporters see exactly the samples the thread views count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "model_stacks.h"
#include "util.h"

static int cmp_rows(const void *a, const void *b)
{
	const struct model_thread_stack *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->syscall != y->syscall)
		return x->syscall < y->syscall ? -1 : 1;
	if (x->kstack_id != y->kstack_id)
		return x->kstack_id < y->kstack_id ? -1 : 1;
	if (x->ustack_id != y->ustack_id)
		return x->ustack_id < y->ustack_id ? -1 : 1;
	if (x->labels_id != y->labels_id)
		return x->labels_id < y->labels_id ? -1 : 1;
	return 0;
}

/* The comm of t's process's main thread, NULL when the model does not hold it. */
static const char *main_comm(const struct model *m, const struct thread *t)
{
	const struct thread *main_thread = t->pid == t->tid ? t : u64map__get(m->threads, t->pid);

	return main_thread && main_thread->pid == t->pid && main_thread->comm[0] ? main_thread->comm
										 : NULL;
}

const char *model_process_comm(const struct model *m, const struct thread *t)
{
	const char *comm = main_comm(m, t);

	return comm ? comm : t->comm;
}

const char *model_process_comm_memo(const struct model *m, const struct thread *t,
				    struct u64map **memo)
{
	static const char no_main[] = ""; /* the memo's "no main thread known" */
	const char *comm;

	if (t->pid == t->tid)
		return model_process_comm(m, t);
	if (!*memo)
		*memo = u64map__new();
	comm = u64map__get(*memo, t->pid);
	if (!comm) {
		comm = main_comm(m, t);
		comm = comm ? comm : no_main;
		u64map__put(*memo, t->pid, (void *)comm);
	}
	return comm == no_main ? t->comm : comm; /* as model_process_comm names it */
}

int model__thread_stacks(struct model *m, enum model_window window,
			 const struct model_filter *filter, struct model_thread_stack **ret)
{
	uint32_t now_sec = model_sec(m, m->now_ns);
	struct model_thread_stack *rows = NULL;
	size_t nr = 0, cap = 0, pos = 0;
	struct u64map *pcomms = NULL;
	struct thread *t;

	if (window >= WIN_MAX || !ret)
		return -EINVAL;
	model_repeat_flush(m);
	while (model_thread_next(m, &pos, &t)) {
		const char *pcomm;

		if (!model_filter_thread(m, filter, t))
			continue;
		pcomm = model_process_comm_memo(m, t, &pcomms);
		for (size_t i = 0; i < t->nr_keys; i++) {
			const struct key_counts *kc = &t->keys[i];
			uint64_t n = model_key_samples(m, t, i, window, now_sec);

			if (!n || !model_filter_key(m, filter, &kc->key))
				continue;
			xgrow((void **)&rows, &cap, nr + 1, sizeof(*rows));
			rows[nr++] = (struct model_thread_stack){
				.pid = t->pid,
				.tid = t->tid,
				.comm = t->comm,
				.pcomm = pcomm,
				.kthread = t->kthread,
				.state = kc->key.state,
				.syscall = kc->key.syscall,
				.kstack_id = kc->key.kstack_id,
				.ustack_id = kc->key.ustack_id,
				.labels_id = kc->key.labels_id,
				.samples = n,
			};
		}
	}
	u64map__free(pcomms);
	if (nr)
		qsort(rows, nr, sizeof(*rows), cmp_rows);
	*ret = rows;
	return (int)nr;
}
