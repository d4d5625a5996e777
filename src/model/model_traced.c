// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model's traced data (see model.h): on-CPU samples, off-CPU time and
 * block I/O requests (--io: count, time and bytes) per thread and stack
 * pair, exact syscall figures and run-queue waits per thread, and the cost
 * of each BPF program. Kept for three windows (this
 * interval, the last complete one, the session), per thread in arrays:
 * syscalls searched linearly (a thread makes few), stacks through a hash
 * index past a few (a busy thread has thousands, and every on-CPU sample
 * looks its stack up).
 * On-CPU and off-CPU stacks are kept apart per application labels. Stacks
 * also keep the last minute, in a ring of seconds made when the stack has
 * data and freed once it has had none for a minute, so the Stacks pane's
 * "last minute" has the tracers' stacks as the other windows do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "util.h"

/* A stack's last minute: value and count per second (slot = sec % 60). Values
 * in ns are in us here (a u32 of ns holds 4 s), bytes in 512-byte sectors (a
 * block request's unit), saturating. */
struct trace_ring {
	uint32_t sec; /* newest second written */
	uint32_t value[MINUTE_SLOTS];
	uint32_t count[MINUTE_SLOTS];
};

struct trace_stack {
	struct trace_ring *ring; /* NULL: nothing in the last minute */
	uint32_t kstack_id;
	uint32_t ustack_id;
	uint32_t labels_id; /* model__labels id, 0 = none */
	/* false: recorded by a threadtop whose samples had no labels */
	uint32_t labels_known : 1;
	/* 1 + index of the next older entry of the same stack pair in the index, 0 = none */
	uint32_t next : 31;
	uint64_t value[W_MAX];
	uint64_t count[W_MAX];
};

/* A thread's stacks: searched linearly up to INDEX_FROM entries, then indexed. */
#define INDEX_FROM 8

struct trace_stacks {
	struct trace_stack *arr;
	size_t nr, cap;
	struct u64map *index; /* stack pair -> 1 + index of its newest entry (NULL: none yet) */
};

struct trace_syscall {
	int32_t nr;
	uint64_t count[W_MAX];
	uint64_t total_ns[W_MAX];
	uint64_t hist[W_MAX][TT_SYSCALL_HIST_BUCKETS];
};

/*
 * The stack sets of a thread (enum trace_set): on-CPU samples, off-CPU
 * time, and block I/O requests in two sets built in step (the same stack
 * pairs at the same indices): their time and their bytes, each with the
 * requests as its count.
 */
enum trace_set { SET_ON, SET_OFF, SET_IO_NS, SET_IO_BYTES, SET_MAX };

struct thread_trace {
	struct trace_stacks set[SET_MAX];
	struct trace_syscall *sc;
	size_t nr_sc, cap_sc;
	uint64_t runq_count[W_MAX], runq_ns[W_MAX];
	/* The request its latest sample in D waits on (--io), hdr.time_ns that sample's; 0: none. */
	struct tt_io_wait io_wait;
};

struct prog_stat {
	char name[TT_COMM_LEN];
	uint64_t run_cnt[W_MAX], run_time_ns[W_MAX], misses[W_MAX];
};

int trace_window_index(enum model_window window)
{
	switch (window) {
	case WIN_INTERVAL:
		return W_INTERVAL;
	case WIN_SESSION:
		return W_SESSION;
	case WIN_LAST:
		return W_LAST;
	default:
		return -EOPNOTSUPP;
	}
}

static struct thread_trace *trace_of(struct thread *t)
{
	if (!t->trace)
		t->trace = xcalloc(1, sizeof(*t->trace));
	return t->trace;
}

static uint64_t pair_key(uint32_t kstack, uint32_t ustack)
{
	return (uint64_t)kstack << 32 | ustack;
}

/* Indexes entry i, the newest; makes the index when the stacks outgrow a linear search. */
static void index_add(struct trace_stacks *st, size_t i)
{
	uint64_t key = pair_key(st->arr[i].kstack_id, st->arr[i].ustack_id);

	if (!st->index) {
		if (st->nr <= INDEX_FROM)
			return;
		st->index = u64map__new();
		for (size_t j = 0; j < i; j++)
			index_add(st, j);
	}
	st->arr[i].next = (uint32_t)(uintptr_t)u64map__put(st->index, key, (void *)(i + 1));
}

/* The stacks' entry with these labels (labels_id is ignored when !known). */
static struct trace_stack *stack_get(struct trace_stacks *st, uint32_t kstack, uint32_t ustack,
				     bool known, uint32_t labels_id)
{
	struct trace_stack *ts;
	size_t i;

	if (!known)
		labels_id = 0;
	if (st->index) {
		for (i = (uintptr_t)u64map__get(st->index, pair_key(kstack, ustack)); i;
		     i = st->arr[i - 1].next) {
			ts = &st->arr[i - 1];
			if (ts->labels_known == known && ts->labels_id == labels_id)
				return ts;
		}
	} else {
		for (i = 0; i < st->nr; i++) {
			ts = &st->arr[i];
			if (ts->kstack_id == kstack && ts->ustack_id == ustack &&
			    ts->labels_known == known && ts->labels_id == labels_id)
				return ts;
		}
	}
	xgrow((void **)&st->arr, &st->cap, st->nr + 1, sizeof(*st->arr));
	ts = &st->arr[st->nr++];
	memset(ts, 0, sizeof(*ts));
	ts->kstack_id = kstack;
	ts->ustack_id = ustack;
	ts->labels_known = known;
	ts->labels_id = labels_id;
	index_add(st, st->nr - 1);
	return ts;
}

static uint32_t sat_add(uint32_t a, uint64_t b)
{
	return b >= UINT32_MAX - a ? UINT32_MAX : a + (uint32_t)b;
}

/* Adds to ts's minute ring at the record's second (a late record counts in the newest). */
static void ring_add(const struct model *m, struct trace_stack *ts, uint64_t time_ns,
		     uint64_t value, uint64_t count)
{
	uint32_t sec = model_sec(m, time_ns);
	struct trace_ring *r = ts->ring;

	if (!r) {
		r = ts->ring = xcalloc(1, sizeof(*r));
		r->sec = sec;
	}
	if (sec > r->sec) {
		if (sec - r->sec >= MINUTE_SLOTS) {
			memset(r->value, 0, sizeof(r->value));
			memset(r->count, 0, sizeof(r->count));
		} else {
			for (uint32_t s = r->sec + 1; s <= sec; s++) {
				r->value[s % MINUTE_SLOTS] = 0;
				r->count[s % MINUTE_SLOTS] = 0;
			}
		}
		r->sec = sec;
	}
	r->value[r->sec % MINUTE_SLOTS] = sat_add(r->value[r->sec % MINUTE_SLOTS], value);
	r->count[r->sec % MINUTE_SLOTS] = sat_add(r->count[r->sec % MINUTE_SLOTS], count);
}

/* A traced record names a thread; it keeps the thread alive and its comm known. */
static struct thread *touch(struct model *m, uint32_t pid, uint32_t tid, const char *comm,
			    uint64_t time_ns)
{
	struct thread *t = model_thread_get(m, pid, tid, 0);

	if (comm && comm[0] && !t->comm[0]) {
		memcpy(t->comm, comm, TT_COMM_LEN);
		t->comm[TT_COMM_LEN - 1] = '\0';
	}
	if (time_ns > t->last_seen_ns)
		t->last_seen_ns = time_ns;
	return t;
}

static void ingest_cpu_sample(struct model *m, const struct tt_cpu_sample *s)
{
	struct thread *t = touch(m, s->pid, s->tid, s->comm, s->hdr.time_ns);
	struct thread_trace *tr = trace_of(t);
	/* Version 1 has no labels_hash field: read it only when the version has it. */
	bool known = s->hdr.version >= 2 && (s->flags & TT_CPU_LABELS);
	struct trace_stack *ts = stack_get(&tr->set[SET_ON], s->kstack_id, s->ustack_id, known,
					   known ? model_labels_of_hash(m, t, s->labels_hash) : 0);

	if (s->flags & TT_CPU_KTHREAD)
		t->kthread = true;
	m->cpu_weight_us = s->weight_us;
	for (int w = 0; w < W_ACCUM; w++) {
		ts->value[w]++;
		ts->count[w]++;
	}
	model_timed__add(&m->timed, &(struct model_timed){
					    .time_ns = s->hdr.time_ns,
					    .pid = s->pid,
					    .tid = s->tid,
					    .kstack_id = s->kstack_id,
					    .ustack_id = s->ustack_id,
					    .labels_id = ts->labels_id,
					    .interval = (uint32_t)m->intervals,
					    .labels_known = known,
				    });
	ring_add(m, ts, s->hdr.time_ns, 1, 1);
	m->traced |= MODEL_TRACED_ONCPU;
}

static void ingest_syscall_stats(struct model *m, const struct tt_syscall_stats *s)
{
	struct thread_trace *tr = trace_of(touch(m, s->pid, s->tid, NULL, s->hdr.time_ns));
	struct trace_syscall *sc = NULL;

	for (size_t i = 0; i < tr->nr_sc && !sc; i++)
		if (tr->sc[i].nr == s->nr)
			sc = &tr->sc[i];
	if (!sc) {
		xgrow((void **)&tr->sc, &tr->cap_sc, tr->nr_sc + 1, sizeof(*tr->sc));
		sc = &tr->sc[tr->nr_sc++];
		memset(sc, 0, sizeof(*sc));
		sc->nr = s->nr;
	}
	for (int w = 0; w < W_ACCUM; w++) {
		sc->count[w] += s->count;
		sc->total_ns[w] += s->total_ns;
		for (int b = 0; b < TT_SYSCALL_HIST_BUCKETS; b++)
			sc->hist[w][b] += s->hist[b];
	}
	m->traced |= MODEL_TRACED_SYSCALLS;
}

static void ingest_offcpu(struct model *m, const struct tt_offcpu *o)
{
	struct thread *t = touch(m, o->pid, o->tid, o->comm, o->hdr.time_ns);
	struct thread_trace *tr = trace_of(t);
	bool known = o->hdr.version >= 2;

	if (o->kind == TT_OFFCPU_RUNQ) {
		for (int w = 0; w < W_ACCUM; w++) {
			tr->runq_count[w] += o->count;
			tr->runq_ns[w] += o->total_ns;
		}
	} else {
		struct trace_stack *ts =
			stack_get(&tr->set[SET_OFF], o->kstack_id, o->ustack_id, known,
				  known ? model_labels_of_hash(m, t, o->labels_hash) : 0);

		for (int w = 0; w < W_ACCUM; w++) {
			ts->value[w] += o->total_ns;
			ts->count[w] += o->count;
		}
		ring_add(m, ts, o->hdr.time_ns, o->total_ns / NSEC_PER_USEC, o->count);
	}
	m->traced |= MODEL_TRACED_OFFCPU;
}

/*
 * Block I/O requests by the stacks that made them (version 3 records; the
 * model_io.c tables take every record). The two sets grow in step, so the
 * entry of a stack pair has the same index in both.
 */
void trace_io_stacks_add(struct model *m, const struct tt_io_stats *r)
{
	struct thread_trace *tr;
	struct trace_stack *ns, *bytes;

	if (r->hdr.version < 3 || (!r->kstack_id && !r->ustack_id))
		return;
	tr = trace_of(touch(m, r->pid, r->tid, r->comm, r->hdr.time_ns));
	ns = stack_get(&tr->set[SET_IO_NS], r->kstack_id, r->ustack_id, false, 0);
	bytes = stack_get(&tr->set[SET_IO_BYTES], r->kstack_id, r->ustack_id, false, 0);
	for (int w = 0; w < W_ACCUM; w++) {
		ns->value[w] += r->total_ns;
		ns->count[w] += r->count;
		bytes->value[w] += r->bytes;
		bytes->count[w] += r->count;
	}
	ring_add(m, ns, r->hdr.time_ns, r->total_ns / NSEC_PER_USEC, r->count);
	ring_add(m, bytes, r->hdr.time_ns, r->bytes >> 9, r->count);
	m->traced |= MODEL_TRACED_IO_STACKS;
}

/*
 * The request a thread's sample in D waits on: it comes with the sample (the
 * same time, before or after it) and holds while the thread repeats it
 * (trace_sample_seen). A thread not seen yet has no sample to hold it.
 */
static void ingest_io_wait(struct model *m, const struct tt_io_wait *w)
{
	struct thread *t = u64map__get(m->threads, w->tid);

	if (!t || t->pid != w->pid)
		return;
	trace_of(t)->io_wait = *w;
	t->trace->io_wait.disk[TT_IO_DISK_LEN - 1] = '\0';
}

void trace_sample_seen(struct thread *t, uint64_t time_ns)
{
	/* A new sample without its own request ends the old one's. */
	if (t->trace && t->trace->io_wait.hdr.time_ns && t->trace->io_wait.hdr.time_ns != time_ns)
		t->trace->io_wait.hdr.time_ns = 0;
}

int model__thread_io_wait(const struct model *m, uint32_t tid, struct model_io_wait *ret)
{
	struct thread *t = u64map__get(m->threads, tid);
	const struct tt_io_wait *w;

	if (!t || !t->trace || !t->trace->io_wait.hdr.time_ns || t->cur.state != TT_ST_D)
		return -ENOENT;
	w = &t->trace->io_wait;
	*ret = (struct model_io_wait){
		.major = w->major,
		.minor = w->minor,
		.disk = w->disk,
		.op = w->op < TT_IO_OP_MAX ? w->op : TT_IO_OTHER,
		.issued = w->flags & TT_IO_WAIT_ISSUED,
		.bytes = w->bytes,
		/* The thread has not run since (its repeats): in flight until then at least. */
		.age_ns = w->age_ns +
			  (t->last_seen_ns > w->hdr.time_ns ? t->last_seen_ns - w->hdr.time_ns : 0),
	};
	return 0;
}

static void ingest_prog_stats(struct model *m, const struct tt_prog_stats *p)
{
	struct prog_stat *ps = NULL;
	char name[TT_COMM_LEN];

	memcpy(name, p->name, TT_COMM_LEN);
	name[TT_COMM_LEN - 1] = '\0';
	for (size_t i = 0; i < m->nr_progs && !ps; i++)
		if (!strcmp(m->progs[i].name, name))
			ps = &m->progs[i];
	if (!ps) {
		xgrow((void **)&m->progs, &m->cap_progs, m->nr_progs + 1, sizeof(*m->progs));
		ps = &m->progs[m->nr_progs++];
		memset(ps, 0, sizeof(*ps));
		memcpy(ps->name, name, TT_COMM_LEN);
	}
	for (int w = 0; w < W_ACCUM; w++) {
		ps->run_cnt[w] += p->run_cnt;
		ps->run_time_ns[w] += p->run_time_ns;
		ps->misses[w] += p->recursion_misses;
	}
	m->traced |= MODEL_TRACED_PROGS;
}

void traced_ingest(struct model *m, const struct tt_event_header *ev)
{
	switch (ev->type) {
	case TT_EV_CPU_SAMPLE:
		ingest_cpu_sample(m, (const struct tt_cpu_sample *)ev);
		break;
	case TT_EV_SYSCALL_STATS:
		ingest_syscall_stats(m, (const struct tt_syscall_stats *)ev);
		break;
	case TT_EV_OFFCPU:
		ingest_offcpu(m, (const struct tt_offcpu *)ev);
		break;
	case TT_EV_PROG_STATS:
		ingest_prog_stats(m, (const struct tt_prog_stats *)ev);
		break;
	case TT_EV_IO_STATS:
		model_io_ingest(m, (const struct tt_io_stats *)ev);
		break;
	case TT_EV_IO_WAIT:
		ingest_io_wait(m, (const struct tt_io_wait *)ev);
		break;
	default:
		break;
	}
}

static size_t index_bytes(const struct trace_stacks *st)
{
	return st->index ? u64map__bytes(st->index) : 0;
}

size_t trace_thread_bytes(const struct thread_trace *tr)
{
	size_t n;

	if (!tr)
		return 0;
	n = sizeof(*tr) + tr->cap_sc * sizeof(struct trace_syscall);
	for (int k = 0; k < SET_MAX; k++)
		n += tr->set[k].cap * sizeof(struct trace_stack) + index_bytes(&tr->set[k]);
	return n;
}

void trace_thread_stacks(const struct thread_trace *tr, void (*fn)(void *arg, uint32_t stack_id),
			 void *arg)
{
	if (!tr)
		return;
	/* SET_IO_BYTES holds the stack pairs of SET_IO_NS. */
	for (int k = 0; k < SET_IO_BYTES; k++) {
		for (size_t i = 0; i < tr->set[k].nr; i++) {
			fn(arg, tr->set[k].arr[i].kstack_id);
			fn(arg, tr->set[k].arr[i].ustack_id);
		}
	}
}

void trace_thread_free(struct thread_trace *tr)
{
	if (!tr)
		return;
	for (int k = 0; k < SET_MAX; k++) {
		for (size_t i = 0; i < tr->set[k].nr; i++)
			free(tr->set[k].arr[i].ring);
		free(tr->set[k].arr);
		u64map__free(tr->set[k].index);
	}
	free(tr->sc);
	free(tr);
}

static void end_stacks(struct trace_stack *arr, size_t nr, uint32_t now_sec)
{
	for (size_t i = 0; i < nr; i++) {
		/* A ring whose newest second left the minute holds nothing: free it. */
		if (arr[i].ring && arr[i].ring->sec + MINUTE_SLOTS <= now_sec) {
			free(arr[i].ring);
			arr[i].ring = NULL;
		}
		arr[i].value[W_LAST] = arr[i].value[W_INTERVAL];
		arr[i].count[W_LAST] = arr[i].count[W_INTERVAL];
		arr[i].value[W_INTERVAL] = 0;
		arr[i].count[W_INTERVAL] = 0;
	}
}

void trace_end_interval(struct model *m, struct thread *t)
{
	struct thread_trace *tr = t->trace;

	if (!tr)
		return;
	for (int k = 0; k < SET_MAX; k++)
		end_stacks(tr->set[k].arr, tr->set[k].nr, model_sec(m, m->now_ns));
	for (size_t i = 0; i < tr->nr_sc; i++) {
		tr->sc[i].count[W_LAST] = tr->sc[i].count[W_INTERVAL];
		tr->sc[i].total_ns[W_LAST] = tr->sc[i].total_ns[W_INTERVAL];
		memcpy(tr->sc[i].hist[W_LAST], tr->sc[i].hist[W_INTERVAL],
		       sizeof(tr->sc[i].hist[W_LAST]));
		tr->sc[i].count[W_INTERVAL] = 0;
		tr->sc[i].total_ns[W_INTERVAL] = 0;
		memset(tr->sc[i].hist[W_INTERVAL], 0, sizeof(tr->sc[i].hist[W_INTERVAL]));
	}
	tr->runq_count[W_LAST] = tr->runq_count[W_INTERVAL];
	tr->runq_ns[W_LAST] = tr->runq_ns[W_INTERVAL];
	tr->runq_count[W_INTERVAL] = 0;
	tr->runq_ns[W_INTERVAL] = 0;
}

void trace_model_end_interval(struct model *m)
{
	for (size_t i = 0; i < m->nr_progs; i++) {
		m->progs[i].run_cnt[W_LAST] = m->progs[i].run_cnt[W_INTERVAL];
		m->progs[i].run_time_ns[W_LAST] = m->progs[i].run_time_ns[W_INTERVAL];
		m->progs[i].misses[W_LAST] = m->progs[i].misses[W_INTERVAL];
		m->progs[i].run_cnt[W_INTERVAL] = 0;
		m->progs[i].run_time_ns[W_INTERVAL] = 0;
		m->progs[i].misses[W_INTERVAL] = 0;
	}
}

void trace_model_free(struct model *m)
{
	free(m->progs);
	m->progs = NULL;
	m->nr_progs = m->cap_progs = 0;
}

bool trace_thread_active(const struct thread *t, enum model_window window)
{
	const struct thread_trace *tr = t->trace;
	int w = trace_window_index(window);

	if (!tr || w < 0)
		return false;
	/* Off-CPU time settled at an interval's end comes with no switch: time counts too. */
	if (tr->runq_count[w] || tr->runq_ns[w])
		return true;
	for (size_t i = 0; i < tr->nr_sc; i++)
		if (tr->sc[i].count[w])
			return true;
	for (int k = 0; k < SET_IO_BYTES; k++)
		for (size_t i = 0; i < tr->set[k].nr; i++)
			if (tr->set[k].arr[i].count[w] || tr->set[k].arr[i].value[w])
				return true;
	return false;
}

unsigned model__traced(const struct model *m)
{
	return m->traced;
}

static int cmp_stack_rows(const void *a, const void *b)
{
	const struct model_stack_row *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->kstack_id != y->kstack_id)
		return x->kstack_id < y->kstack_id ? -1 : 1;
	if (x->ustack_id != y->ustack_id)
		return x->ustack_id < y->ustack_id ? -1 : 1;
	return (x->labels_id > y->labels_id) - (x->labels_id < y->labels_id);
}

/* The value and count of ts of set k in window w, or in the minute (w < 0) from its ring. */
static void stack_in(const struct trace_stack *ts, int w, enum trace_set k, uint32_t now_sec,
		     uint64_t *value, uint64_t *count)
{
	if (w >= 0) {
		*value = ts->value[w];
		*count = ts->count[w];
		return;
	}
	*value = *count = 0;
	if (!ts->ring)
		return;
	*value = ring_sum_u32(ts->ring->value, ts->ring->sec, now_sec);
	*count = ring_sum_u32(ts->ring->count, ts->ring->sec, now_sec);
	if (k == SET_OFF || k == SET_IO_NS)
		*value *= NSEC_PER_USEC;
	else if (k == SET_IO_BYTES)
		*value <<= 9;
}

/* The rows of set k (SET_IO_NS: with the bytes of SET_IO_BYTES), most first. */
static int stack_rows(struct model *m, enum model_window window, enum trace_set k,
		      struct model_stack_row **ret)
{
	int w = trace_window_index(window);
	struct model_stack_row *rows = NULL;
	size_t nr = 0, cap = 0, pos = 0;
	uint32_t now_sec = model_sec(m, m->now_ns);
	struct thread *t;

	*ret = NULL;
	if (w < 0 && window != WIN_MINUTE)
		return w;
	while (model_thread_next(m, &pos, &t)) {
		const struct trace_stacks *st, *bst;

		if (!t->trace)
			continue;
		st = &t->trace->set[k];
		bst = &t->trace->set[SET_IO_BYTES];
		for (size_t i = 0; i < st->nr; i++) {
			const struct trace_stack *ts = &st->arr[i];
			uint64_t value, count, bytes = 0, unused;

			stack_in(ts, w, k, now_sec, &value, &count);
			if (!count && !value)
				continue;
			if (k == SET_IO_NS && i < bst->nr)
				stack_in(&bst->arr[i], w, SET_IO_BYTES, now_sec, &bytes, &unused);
			xgrow((void **)&rows, &cap, nr + 1, sizeof(*rows));
			rows[nr++] = (struct model_stack_row){
				.pid = t->pid,
				.tid = t->tid,
				.comm = t->comm,
				.pcomm = model_process_comm(m, t),
				.kstack_id = ts->kstack_id,
				.ustack_id = ts->ustack_id,
				.value = value,
				.count = count,
				.bytes = bytes,
				.labels_id = ts->labels_id,
				.labels_known = ts->labels_known,
			};
		}
	}
	if (nr)
		qsort(rows, nr, sizeof(*rows), cmp_stack_rows);
	*ret = rows;
	return (int)nr;
}

void trace_oncpu_labels(const struct thread *t, enum model_window window,
			void (*add)(void *arg, uint32_t labels_id, uint64_t samples), void *arg)
{
	int w = trace_window_index(window);

	if (!t->trace || w < 0)
		return;
	for (size_t i = 0; i < t->trace->set[SET_ON].nr; i++) {
		const struct trace_stack *ts = &t->trace->set[SET_ON].arr[i];

		if (ts->labels_known && ts->count[w])
			add(arg, ts->labels_id, ts->count[w]);
	}
}

bool trace_oncpu_each(const struct model *m, const struct thread *t, enum model_window window,
		      void (*add)(void *arg, uint32_t ustack_id, uint64_t samples), void *arg)
{
	int w = trace_window_index(window);
	bool any = false;

	if (!(m->traced & MODEL_TRACED_ONCPU) || (w < 0 && window != WIN_MINUTE))
		return false;
	for (size_t i = 0; t->trace && i < t->trace->set[SET_ON].nr; i++) {
		const struct trace_stack *ts = &t->trace->set[SET_ON].arr[i];
		uint64_t value, count;

		stack_in(ts, w, SET_ON, model_sec(m, m->now_ns), &value, &count);
		if (!count)
			continue;
		any = true;
		add(arg, ts->ustack_id, count);
	}
	return any;
}

int model__oncpu(struct model *m, enum model_window window, struct model_stack_row **ret)
{
	return stack_rows(m, window, SET_ON, ret);
}

int model__offcpu(struct model *m, enum model_window window, struct model_stack_row **ret)
{
	return stack_rows(m, window, SET_OFF, ret);
}

int model__io_stacks(struct model *m, enum model_window window, struct model_stack_row **ret)
{
	return stack_rows(m, window, SET_IO_NS, ret);
}

static int cmp_syscall_stats(const void *a, const void *b)
{
	const struct model_syscall_stat *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

int model__thread_syscall_stats(struct model *m, uint32_t tid, enum model_window window,
				struct model_syscall_stat **ret)
{
	struct thread *t = u64map__get(m->threads, tid);
	int w = trace_window_index(window);
	struct model_syscall_stat *out;
	size_t nr = 0;

	*ret = NULL;
	if (w < 0)
		return w;
	if (!t || !t->trace || !t->trace->nr_sc)
		return 0;
	out = xcalloc(t->trace->nr_sc, sizeof(*out));
	for (size_t i = 0; i < t->trace->nr_sc; i++) {
		const struct trace_syscall *sc = &t->trace->sc[i];

		if (!sc->count[w])
			continue;
		out[nr].nr = sc->nr;
		out[nr].count = sc->count[w];
		out[nr].total_ns = sc->total_ns[w];
		memcpy(out[nr].hist, sc->hist[w], sizeof(out[nr].hist));
		nr++;
	}
	if (!nr) {
		free(out);
		return 0;
	}
	qsort(out, nr, sizeof(*out), cmp_syscall_stats);
	*ret = out;
	return (int)nr;
}

int model__thread_runq(struct model *m, uint32_t tid, enum model_window window, uint64_t *ret_count,
		       uint64_t *ret_total_ns)
{
	struct thread *t = u64map__get(m->threads, tid);
	int w = trace_window_index(window);

	if (w < 0)
		return w;
	if (!t || !t->trace)
		return -ENOENT;
	*ret_count = t->trace->runq_count[w];
	*ret_total_ns = t->trace->runq_ns[w];
	return 0;
}

int model__prog_stats(struct model *m, enum model_window window, struct model_prog_stat **ret)
{
	int w = trace_window_index(window);
	struct model_prog_stat *out;

	*ret = NULL;
	if (w < 0)
		return w;
	if (!m->nr_progs)
		return 0;
	out = xcalloc(m->nr_progs, sizeof(*out));
	for (size_t i = 0; i < m->nr_progs; i++) {
		out[i].name = m->progs[i].name;
		out[i].run_cnt = m->progs[i].run_cnt[w];
		out[i].run_time_ns = m->progs[i].run_time_ns[w];
		out[i].recursion_misses = m->progs[i].misses[w];
	}
	*ret = out;
	return (int)m->nr_progs;
}
