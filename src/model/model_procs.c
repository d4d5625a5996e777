// SPDX-License-Identifier: GPL-2.0-only
/*
 * Processes and the box, as top shows them (see model.h): the process table
 * the TT_EV_PROC_INFO records fill (parent, user, nice, resident memory, CPU
 * time of the whole process), the latest TT_EV_HOST_STATS (load average,
 * uptime, memory and swap), the threads alive now and their states at the
 * latest sampling pass, and the process tree order of per-process rows.
 * Everything here comes from records, so a replay shows what the live run did.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "util.h"

struct proc_entry {
	struct tt_proc_info info;
};

void model_procs_ingest(struct model *m, const struct tt_event_header *ev)
{
	if (ev->type == TT_EV_HOST_STATS) {
		m->host = *(const struct tt_host_stats *)ev;
		m->has_host = true;
		return;
	}
	if (ev->type == TT_EV_PROC_INFO) {
		const struct tt_proc_info *pi = (const struct tt_proc_info *)ev;
		struct proc_entry *e;

		if (!m->procs)
			m->procs = u64map__new();
		e = u64map__get(m->procs, pi->pid);
		if (!e) {
			e = xcalloc(1, sizeof(*e));
			u64map__put(m->procs, pi->pid, e);
		}
		e->info = *pi;
	}
}

/* Forgets processes no record has described for the retention time (they exited). */
void model_procs_end_interval(struct model *m, uint64_t now_ns)
{
	struct proc_entry *e;
	uint64_t pid;
	size_t pos = 0;

	if (!m->procs)
		return;
	while (u64map__next(m->procs, &pos, &pid, (void **)&e)) {
		if (e->info.hdr.time_ns + m->opts.retain_ns < now_ns) {
			u64map__remove_at(m->procs, &pos);
			free(e);
		}
	}
}

void model_procs_strings(const struct model *m, void (*add)(void *arg, uint32_t id), void *arg)
{
	const struct proc_entry *e;
	uint64_t pid;
	size_t pos = 0;

	while (m->procs && u64map__next(m->procs, &pos, &pid, (void **)&e))
		add(arg, e->info.user_id);
}

void model_procs_free(struct model *m)
{
	struct proc_entry *e;
	uint64_t pid;
	size_t pos = 0;

	if (!m->procs)
		return;
	while (u64map__next(m->procs, &pos, &pid, (void **)&e))
		free(e);
	u64map__free(m->procs);
	m->procs = NULL;
}

bool model__proc(const struct model *m, uint32_t pid, struct model_proc *ret)
{
	const struct proc_entry *e = m->procs && pid ? u64map__get(m->procs, pid) : NULL;

	if (!e)
		return false;
	*ret = (struct model_proc){
		.ppid = e->info.ppid,
		.uid = e->info.uid,
		.user_id = e->info.user_id,
		.nice = e->info.nice,
		.nr_threads = e->info.nr_threads,
		.rss_bytes = e->info.rss_bytes,
		.cpu_time_ns = e->info.cpu_time_ns,
	};
	return true;
}

bool model__host(const struct model *m, struct tt_host_stats *ret)
{
	if (!m->has_host)
		return false;
	*ret = m->host;
	return true;
}

void model_now_add(const struct model *m, const struct thread *t, struct model_now *now)
{
	/*
	 * The samples of a pass are timed at or after its tick (the sources
	 * stamp the pass start): a thread the latest pass saw is alive now;
	 * one only the retention keeps (it exited) is not.
	 */
	if (t->last_seen_ns < m->last_tick_ns || t->cur.state >= TT_ST_MAX)
		return;
	now->alive++;
	now->states[t->cur.state]++;
}

void model__now(struct model *m, struct model_now *ret)
{
	struct thread *t;
	size_t pos = 0;

	memset(ret, 0, sizeof(*ret));
	model_repeat_flush(m); /* repeats move last_seen_ns */
	ret->pass_ns = m->last_tick_ns;
	while (model_thread_next(m, &pos, &t))
		model_now_add(m, t, ret);
}

/* Tree order: a process's children follow it, each subtree in the rows' order. */
struct tree_build {
	struct model_row *rows;
	size_t nr;
	struct u64map *index;		    /* pid -> row index + 1 */
	size_t *first_child, *next_sibling; /* row index + 1, 0 = none */
	struct model_row *out;
	uint8_t *depth, *last;
	bool *done;
	size_t nr_out;
	uint32_t *ppid;
};

static void tree_emit(struct tree_build *b, size_t i, unsigned depth, bool last)
{
	/*
	 * Recursive over depth, bounded: deeper rows are left for the end, and a
	 * parent cycle is never reached from a root (all its members have parents).
	 */
	b->done[i] = true;
	b->out[b->nr_out] = b->rows[i];
	b->depth[b->nr_out] = (uint8_t)depth;
	b->last[b->nr_out] = last;
	b->nr_out++;
	for (size_t c = b->first_child[i]; c; c = b->next_sibling[c - 1])
		if (depth < MODEL_TREE_MAX_DEPTH)
			tree_emit(b, c - 1, depth + 1, !b->next_sibling[c - 1]);
}

int model_rows_tree(const struct model *m, struct model_row *rows, size_t nr, uint8_t *ret_depth,
		    uint8_t *ret_last)
{
	struct tree_build b = {.rows = rows, .nr = nr};
	size_t *tail;

	if (!nr)
		return 0;
	b.index = u64map__new();
	b.first_child = xcalloc(nr, sizeof(*b.first_child));
	b.next_sibling = xcalloc(nr, sizeof(*b.next_sibling));
	b.ppid = xcalloc(nr, sizeof(*b.ppid));
	tail = xcalloc(nr, sizeof(*tail));
	b.done = xcalloc(nr, sizeof(*b.done));
	b.out = xmalloc(nr * sizeof(*b.out));
	b.depth = ret_depth;
	b.last = ret_last;
	for (size_t i = 0; i < nr; i++)
		u64map__put(b.index, rows[i].pid, (void *)(uintptr_t)(i + 1));
	/* Children in the order the rows came (the sort), appended to their parent's list. */
	for (size_t i = 0; i < nr; i++) {
		struct model_proc p;
		size_t parent;

		b.ppid[i] = model__proc(m, rows[i].pid, &p) ? p.ppid : 0;
		parent = b.ppid[i] && b.ppid[i] != rows[i].pid
				 ? (size_t)(uintptr_t)u64map__get(b.index, b.ppid[i])
				 : 0;
		if (!parent) {
			b.ppid[i] = 0; /* a root: its parent is not among the rows */
			continue;
		}
		if (tail[parent - 1])
			b.next_sibling[tail[parent - 1] - 1] = i + 1;
		else
			b.first_child[parent - 1] = i + 1;
		tail[parent - 1] = i + 1;
	}
	for (size_t i = 0; i < nr; i++)
		if (!b.ppid[i])
			tree_emit(&b, i, 0, true);
	/* Rows no root reaches (a parent cycle, too deep) follow, flat, in their order. */
	for (size_t i = 0; i < nr && b.nr_out < nr; i++) {
		if (b.done[i])
			continue;
		b.out[b.nr_out] = rows[i];
		b.depth[b.nr_out] = 0;
		b.last[b.nr_out++] = true;
	}
	memcpy(rows, b.out, nr * sizeof(*rows));
	free(b.out);
	free(tail);
	free(b.done);
	free(b.ppid);
	free(b.first_child);
	free(b.next_sibling);
	u64map__free(b.index);
	return 0;
}
