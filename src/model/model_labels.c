// SPDX-License-Identifier: GPL-2.0-only
/*
 * Application labels in the model (see model.h): the names of the label
 * slots, each thread's current combination of values, and the interning of
 * combinations so that a sample key holds one id. A combination is four
 * string ids (one per slot, 0 = unset) interned as 16 bytes. On-CPU samples
 * and off-CPU records name a combination by the kernel's hash of it, learnt
 * from the TT_EV_THREAD_LABELS records that precede them.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "strtab.h"
#include "util.h"

struct model_labels {
	char names[TT_LABEL_SLOTS][TT_COMM_LEN];
	struct strtab *values; /* value text -> id */
	struct strtab *combos; /* uint32_t[TT_LABEL_SLOTS] as bytes -> labels id */
	struct u64map *hashes; /* labels_hash of the records -> labels id */
};

static struct model_labels *labels_of(struct model *m)
{
	if (!m->labels) {
		m->labels = xcalloc(1, sizeof(*m->labels));
		m->labels->values = strtab__new();
		m->labels->combos = strtab__new();
		m->labels->hashes = u64map__new();
	}
	return m->labels;
}

void model_labels_free(struct model *m)
{
	if (!m->labels)
		return;
	strtab__free(m->labels->values);
	strtab__free(m->labels->combos);
	u64map__free(m->labels->hashes);
	free(m->labels);
	m->labels = NULL;
}

static uint32_t value_id(struct model_labels *ml, const struct tt_label_value *v)
{
	char text[TT_LABEL_VALUE_LEN + 24];
	size_t len;

	switch (v->kind) {
	case TT_LABEL_NUMBER:
		len = (size_t)snprintf(text, sizeof(text), "%" PRIu64, (uint64_t)v->num);
		break;
	case TT_LABEL_STRING:
		len = strnlen(v->str, sizeof(v->str));
		memcpy(text, v->str, len);
		break;
	case TT_LABEL_UNREADABLE:
		len = (size_t)snprintf(text, sizeof(text), "?unreadable");
		break;
	default:
		return 0;
	}
	return strtab__intern(ml->values, text, len, NULL);
}

static void ingest_thread_labels(struct model *m, const struct tt_thread_labels *rec)
{
	struct model_labels *ml = labels_of(m);
	struct thread *t = model_thread_get(m, rec->pid, rec->tid, 0);
	uint32_t ids[TT_LABEL_SLOTS] = {0};
	bool any = false;

	for (unsigned i = 0; i < TT_LABEL_SLOTS; i++) {
		if (rec->set_mask & (1u << i)) {
			ids[i] = value_id(ml, &rec->v[i]);
			any |= ids[i] != 0;
		}
	}
	t->labels_id = any ? strtab__intern(ml->combos, (const char *)ids, sizeof(ids), NULL) : 0;
	t->last_seen_ns = rec->hdr.time_ns;
	if (rec->hdr.version >= 2 && rec->labels_hash)
		u64map__put(ml->hashes, rec->labels_hash, (void *)(uintptr_t)t->labels_id);
}

uint32_t model_labels_of_hash(const struct model *m, const struct thread *t, uint32_t hash)
{
	void *id;

	if (!hash)
		return 0;
	if (m->labels) {
		id = u64map__get(m->labels->hashes, hash);
		if (id)
			return (uint32_t)(uintptr_t)id;
	}
	return t->labels_id;
}

void model_labels_ingest(struct model *m, const struct tt_event_header *ev)
{
	if (ev->type == TT_EV_THREAD_LABELS) {
		ingest_thread_labels(m, (const struct tt_thread_labels *)ev);
	} else if (ev->type == TT_EV_LABEL_NAME) {
		const struct tt_label_name *n = (const struct tt_label_name *)ev;

		if (n->slot < TT_LABEL_SLOTS) {
			memcpy(labels_of(m)->names[n->slot], n->name, TT_COMM_LEN);
			labels_of(m)->names[n->slot][TT_COMM_LEN - 1] = '\0';
		}
	}
}

int model__labels(const struct model *m, uint32_t labels_id, const char **names,
		  const char **values)
{
	const uint32_t *ids;
	size_t len;
	int n = 0;

	for (unsigned i = 0; i < TT_LABEL_SLOTS; i++)
		names[i] = values[i] = NULL;
	if (!m->labels || !labels_id)
		return 0;
	ids = (const uint32_t *)strtab__get(m->labels->combos, labels_id, &len);
	if (!ids || len != TT_LABEL_SLOTS * sizeof(uint32_t))
		return 0;
	for (unsigned i = 0; i < TT_LABEL_SLOTS; i++) {
		uint32_t id;

		memcpy(&id, (const char *)ids + i * sizeof(id), sizeof(id));
		if (!id)
			continue;
		values[i] = strtab__get(m->labels->values, id, NULL);
		names[i] = m->labels->names[i][0] ? m->labels->names[i] : NULL;
		n++;
	}
	return n;
}

uint32_t model__thread_labels(const struct model *m, uint32_t tid)
{
	const struct thread *t = u64map__get(m->threads, tid);

	return t ? t->labels_id : 0;
}

const char *model__label_name(const struct model *m, unsigned slot)
{
	if (!m->labels || slot >= TT_LABEL_SLOTS || !m->labels->names[slot][0])
		return NULL;
	return m->labels->names[slot];
}
