/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Application labels as the samplers see them: the per-thread label slots
 * the uprobes of labels.bpf.c fill (one task-storage map, shared by every
 * object that includes this file through bpf_map__reuse_fd), and how a
 * sampler tags its sample with them: one task-storage lookup, and a
 * TT_EV_THREAD_LABELS record first when the labels changed since last sent,
 * so that user space knows the hash the sample carries.
 */
#ifndef THREADTOP_LABELS_BPF_H
#define THREADTOP_LABELS_BPF_H

#include "common.bpf.h"

struct thread_labels {
	__u32 set_mask;
	__u32 sent_mask; /* set_mask as last sent, with sent_gen */
	__u32 gen;	 /* bumped on every change */
	__u32 sent_gen;
	__u32 hash; /* of set_mask and the set values (label_hash), 0 = none set */
	__u32 pad;
	struct tt_label_value v[TT_LABEL_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_labels);
} tt_labels SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tt_thread_labels);
} tt_label_scratch SEC(".maps");

/* Whether labels are defined (--label): without, the samplers do not look. */
const volatile bool tt_labels_on = false;

/*
 * The identity of a combination of label values, the same for every thread
 * that has it: a hash of the set slots' kind, number and string bytes (the
 * probes zero a string before reading it, so bytes past its end are zero).
 */
static __always_inline __u32 label_hash(const struct thread_labels *tl)
{
	__u64 h = 0x9e3779b97f4a7c15ull ^ tl->set_mask, w;

	if (!tl->set_mask)
		return 0;
	for (int i = 0; i < TT_LABEL_SLOTS; i++) {
		const struct tt_label_value *v = &tl->v[i];

		if (!(tl->set_mask & (1u << i)))
			continue;
		h = mix64(h ^ ((__u64)i << 8 | v->kind));
		h = mix64(h ^ v->num);
		for (int j = 0; j < TT_LABEL_VALUE_LEN / 8; j++) {
			__builtin_memcpy(&w, v->str + j * 8, 8);
			h = mix64(h ^ w);
		}
	}
	h ^= h >> 32;
	return (__u32)h ? (__u32)h : 1;
}

/* Sends task's labels; on success they count as sent. */
static __always_inline void send_thread_labels(struct task_struct *task, struct thread_labels *tl)
{
	struct tt_thread_labels *rec;
	__u32 zero = 0, gen = tl->gen, mask = tl->set_mask;

	rec = bpf_map_lookup_elem(&tt_label_scratch, &zero);
	if (!rec)
		return;
	rec->hdr.type = TT_EV_THREAD_LABELS;
	rec->hdr.version = TT_THREAD_LABELS_VERSION;
	rec->hdr.size = sizeof(*rec);
	rec->hdr.time_ns = bpf_ktime_get_ns();
	rec->pid = task->tgid;
	rec->tid = task->pid;
	rec->set_mask = mask;
	rec->labels_hash = tl->hash;
	__builtin_memcpy(rec->v, tl->v, sizeof(rec->v));
	if (!emit(rec, sizeof(*rec))) {
		tl->sent_gen = gen;
		tl->sent_mask = mask;
	}
}

static __always_inline bool labels_unsent(const struct thread_labels *tl)
{
	return tl->gen != tl->sent_gen || tl->set_mask != tl->sent_mask;
}

/*
 * The labels hash of task for a sample, 0 = none (or no labels defined).
 * Sends the labels first when they changed since last sent.
 */
static __always_inline __u32 labels_for_sample(struct task_struct *task)
{
	struct thread_labels *tl;

	if (!tt_labels_on)
		return 0;
	tl = bpf_task_storage_get(&tt_labels, task, 0, 0);
	if (!tl)
		return 0;
	if (labels_unsent(tl))
		send_thread_labels(task, tl);
	return tl->set_mask ? tl->hash : 0;
}

#endif /* THREADTOP_LABELS_BPF_H */
