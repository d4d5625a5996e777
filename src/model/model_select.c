// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which samples a query or an export sees (see model_internal.h): the one
 * model_filter test over threads and sample keys, and a key's samples in a
 * window. The thread views (model_query.c) and the stack rows exports are
 * built from (model_stacks.c) both go through here, so they count the same.
 */
#include <stdio.h>
#include <string.h>

#include "model_internal.h"

bool model_filter_thread(const struct model *m, const struct model_filter *f,
			 const struct thread *t)
{
	if (!f)
		return true;
	if (f->pid && t->pid != f->pid)
		return false;
	if (f->tid && t->tid != f->tid)
		return false;
	if (f->hide_kthreads && t->kthread)
		return false;
	if (f->hide_user_threads && !t->kthread && t->pid != t->tid)
		return false;
	if (f->comm_substr && !strstr(t->comm, f->comm_substr))
		return false;
	if (f->cgroup_id && t->cgroup_id != f->cgroup_id)
		return false;
	/* A Lua function (lj_model.h): the threads that ran it, whatever their samples' stacks. */
	if (lj_frame_is_lua(f->stack_ip) && !lj_model__thread_ran(m->lj, t->tid, f->stack_ip))
		return false;
	return true;
}

/* x86-64: kernel addresses are the upper half. */
static bool kernel_addr(uint64_t ip)
{
	return ip >= 0xffff800000000000ull;
}

bool model__stack_holds(const struct model *m, uint32_t id, uint64_t ip)
{
	const struct tt_stack *st = model__stack(m, id);
	char name[256], module[256];
	struct frame_name fn;
	bool kernel;

	for (unsigned i = 0; st && i < st->nr; i++)
		if (st->ips[i] == ip)
			return true;
	if (st && lj_frame_is_lua(ip)) {
		/* The function in another process, or before its id was reused: one row, one frame. */
		for (unsigned i = 0; i < st->nr; i++)
			if (lj_model__frame_same(m->lj, st->ips[i], ip))
				return true;
		return false;
	}
	if (!st || !st->nr || !m->namer)
		return false;
	kernel = st->flags & TT_STACK_KERNEL;
	if (kernel != kernel_addr(ip))
		return false;
	/* Another address of the same function: one frame in the profile and the tree. */
	model__frame_name(m, st->pid, ip, kernel, &fn);
	snprintf(name, sizeof(name), "%s", fn.name);
	snprintf(module, sizeof(module), "%s", fn.module ? fn.module : "");
	for (unsigned i = 0; i < st->nr; i++) {
		model__frame_name(m, st->pid, st->ips[i], kernel, &fn);
		if (!strcmp(fn.name, name) && !strcmp(fn.module ? fn.module : "", module))
			return true;
	}
	return false;
}

bool model_filter_key(const struct model *m, const struct model_filter *f,
		      const struct sample_key *k)
{
	if (!f)
		return true;
	if (f->stack_ip && !lj_frame_is_lua(f->stack_ip) &&
	    !model__stack_holds(m, k->kstack_id, f->stack_ip) &&
	    !model__stack_holds(m, k->ustack_id, f->stack_ip))
		return false;
	if (f->state_mask && !(f->state_mask & (1u << k->state)))
		return false;
	if (f->syscall != MODEL_ANY_SYSCALL && k->syscall != f->syscall)
		return false;
	if (f->wchan_id && k->wchan_id != f->wchan_id)
		return false;
	if (f->target_id && k->target_id != f->target_id)
		return false;
	/* Labels: 0 = any, MODEL_NO_LABELS = samples without labels, else that combination. */
	if (f->labels_id && k->labels_id != (f->labels_id == MODEL_NO_LABELS ? 0 : f->labels_id))
		return false;
	return true;
}

uint64_t model_key_samples(const struct model *m, const struct thread *t, size_t i,
			   enum model_window window, uint32_t now_sec)
{
	const struct key_counts *kc = &t->keys[i];
	/* Repeats not yet settled into the current key (model.c) count too: they are this interval's. */
	uint64_t pending = i == t->cur_key ? t->pending : 0;
	uint32_t epoch = (uint32_t)m->intervals;

	switch (window) {
	case WIN_INTERVAL:
		return (kc->epoch == epoch ? kc->interval : 0) + pending;
	case WIN_MINUTE:
		if (t->pending_sec > now_sec || now_sec - t->pending_sec >= MINUTE_SLOTS)
			pending = 0;
		return ring_sum_u16(t->key_rings[i], kc->ring_sec, now_sec) + pending;
	case WIN_LAST:
		if (kc->epoch == epoch)
			return kc->last;
		return kc->epoch + 1 == epoch ? kc->interval : 0;
	default:
		return kc->session + pending;
	}
}

bool model__stack_row_labels_pass(const struct model_filter *f, const struct model_stack_row *r)
{
	if (!f || !f->labels_id)
		return true;
	if (!r->labels_known)
		return false;
	return r->labels_id == (f->labels_id == MODEL_NO_LABELS ? 0 : f->labels_id);
}
