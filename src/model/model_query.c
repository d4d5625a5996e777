// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queries over the model (see model.h): walk every thread's sample keys in
 * the chosen window, keep those the filter accepts, fold them into rows by
 * the chosen dimensions, then sort and cut.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "util.h"

#define THREAD_DIMS (DIM_BIT(DIM_PID) | DIM_BIT(DIM_TID) | DIM_BIT(DIM_COMM) | DIM_BIT(DIM_CGROUP))

void model_query_init(struct model_query *q)
{
	*q = (struct model_query){
		.window = WIN_INTERVAL,
		.dims = DIM_BIT(DIM_TID),
		.filter = {.syscall = MODEL_ANY_SYSCALL},
		.sort = SORT_ACTIVE,
	};
}

/* The group a sample belongs to: the fields of the query's dims, rest zero. */
struct group_key { /* a multiple of 8 bytes, no implicit padding */
	uint64_t cgroup_id;
	uint64_t kleaf_ip;
	uint64_t uleaf_ip;
	uint32_t pid;
	uint32_t tid;
	int32_t syscall;
	uint32_t wchan_id;
	uint32_t labels_id;
	uint32_t target_id;
	char comm[TT_COMM_LEN];
	uint8_t state;
	uint8_t pad[7];
};

struct builder {
	const struct model *m;
	const struct model_query *q;
	struct u64map *index; /* hash of group_key -> row index + 1, chained */
	struct model_row *rows;
	/* Rows found by key: not in queries of a row per thread (own rows), which need none. */
	struct group_key *keys;
	size_t *next;	    /* chain of rows with the same hash, index + 1 */
	uint32_t *last_tid; /* last thread counted into each row */
	size_t nr, cap;	    /* rows made; room in last_tid, keys and next */
	size_t rows_cap;    /* room in rows: more than cap when reused */
	uint32_t now_sec;
	struct u64map *funcs;	       /* (pid, leaf address, kernel) -> function, made on demand */
	struct u64map *levels;	       /* the same keys -> their inlined level, where not 0 */
	uint64_t kleaf_ip, uleaf_ip;   /* the leaf addresses of the key make_key made last */
	unsigned kleaf_inl, uleaf_inl; /* and the inlined level there that names it */
	/*
	 * The last row's look-ups, which the next row mostly repeats (threads
	 * of a process come together, and idle threads wait on one channel):
	 * two hash look-ups a row beside 100,000 threads, saved.
	 */
	struct string_memo {
		uint32_t id;
		const char *s; /* model__string(id); id 0 is NULL */
	} cmdline_memo, wchan_memo;
	uint32_t proc_pid; /* 0 = none yet */
	bool proc_found;
	struct model_proc proc;
};

static const char *memo_string(const struct model *m, struct string_memo *memo, uint32_t id)
{
	if (id != memo->id) {
		memo->id = id;
		memo->s = model__string(m, id);
	}
	return memo->s;
}

static uint64_t hash_key(const struct group_key *k)
{
	uint64_t w[sizeof(*k) / 8], h = 0x9e3779b97f4a7c15ull;

	/* Word at a time: this runs once per sample key in every query. */
	memcpy(w, k, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / 8; i++) {
		h ^= w[i] + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
		h *= 0xbf58476d1ce4e5b9ull;
	}
	return h ^ (h >> 31);
}

static uint64_t thread_cpu_ns(const struct builder *b, const struct thread *t)
{
	if (t->cpu_first_ns == UINT64_MAX)
		return 0;
	switch (b->q->window) {
	case WIN_INTERVAL:
		return t->cpu_last_ns - t->cpu_interval_ns;
	case WIN_MINUTE:
		return ring_sum_u32(t->cpu_ring_us, t->cpu_ring_sec, b->now_sec) * NSEC_PER_USEC;
	case WIN_LAST:
		return t->cpu_last_interval_ns;
	default:
		return t->cpu_last_ns - t->cpu_first_ns;
	}
}

/*
 * The function of a leaf frame, the innermost one inlined there (what the
 * call tree's leaf is), in *level its inlined level; asked of the namer once
 * per query and address.
 */
static uint64_t leaf_function(struct builder *b, uint32_t pid, uint64_t ip, bool kernel,
			      unsigned *level)
{
	uint64_t key, id;

	*level = 0;
	if (!ip || !model__frame_namer(b->m))
		return ip; /* addresses: nothing names them (a replay, tests) */
	key = ip * 0x9e3779b97f4a7c15ull ^
	      (kernel ? 0x51ed27ull : pid + 1ull) * 0xbf58476d1ce4e5b9ull;
	if (!b->funcs)
		b->funcs = u64map__new();
	id = (uint64_t)(uintptr_t)u64map__get(b->funcs, key);
	if (!id) {
		unsigned l = model_frame_innermost(b->m, kernel ? 0 : pid, ip, kernel);

		id = model__frame_function(b->m, kernel ? 0 : pid, ip, kernel, l);
		u64map__put(b->funcs, key, (void *)(uintptr_t)id);
		if (l) {
			if (!b->levels)
				b->levels = u64map__new();
			u64map__put(b->levels, key, (void *)(uintptr_t)l);
		}
	}
	if (b->levels)
		*level = (unsigned)(uintptr_t)u64map__get(b->levels, key);
	return id;
}

static void make_key(struct builder *b, const struct thread *t, const struct sample_key *sk,
		     struct group_key *k)
{
	unsigned dims = b->q->dims;

	memset(k, 0, sizeof(*k));
	if (dims & DIM_BIT(DIM_PID))
		k->pid = t->pid;
	if (dims & DIM_BIT(DIM_TID))
		k->tid = t->tid;
	if (dims & DIM_BIT(DIM_COMM))
		memcpy(k->comm, t->comm, TT_COMM_LEN);
	if (dims & DIM_BIT(DIM_STATE))
		k->state = sk->state;
	if (dims & DIM_BIT(DIM_SYSCALL))
		k->syscall = sk->syscall;
	if (dims & DIM_BIT(DIM_WCHAN))
		k->wchan_id = sk->wchan_id;
	if (dims & DIM_BIT(DIM_FD_TARGET))
		k->target_id = sk->target_id;
	if (dims & DIM_BIT(DIM_CGROUP))
		k->cgroup_id = t->cgroup_id;
	/* Leaf frames group by function, as perf top names them, not by address. */
	b->kleaf_ip = b->uleaf_ip = 0;
	b->kleaf_inl = b->uleaf_inl = 0;
	if (dims & DIM_BIT(DIM_KLEAF)) {
		b->kleaf_ip = model__stack_leaf(b->m, sk->kstack_id);
		k->kleaf_ip = leaf_function(b, t->pid, b->kleaf_ip, true, &b->kleaf_inl);
	}
	if (dims & DIM_BIT(DIM_ULEAF)) {
		b->uleaf_ip = model__stack_leaf(b->m, sk->ustack_id);
		k->uleaf_ip = leaf_function(b, t->pid, b->uleaf_ip, false, &b->uleaf_inl);
	}
	if (dims & DIM_BIT(DIM_LABELS))
		k->labels_id = sk->labels_id;
}

/* A row's process columns (USER, NI, RES, ppid for the tree), when a record told them. */
static void fill_proc(struct builder *b, struct model_row *row, uint32_t pid)
{
	const struct model_proc *p = &b->proc;

	if (!pid || pid != b->proc_pid) {
		b->proc_pid = pid;
		b->proc_found = model__proc(b->m, pid, &b->proc);
	}
	if (!b->proc_found)
		return;
	row->proc_known = true;
	row->ppid = p->ppid;
	row->uid = p->uid;
	row->user_id = p->user_id;
	row->nice = p->nice;
	row->rss_bytes = p->rss_bytes;
}

/* A thread's CPU time so far (TIME+). */
static uint64_t thread_total_ns(const struct thread *t)
{
	return t->cpu_first_ns == UINT64_MAX ? 0 : t->cpu_last_ns;
}

/*
 * The row of key k, made if new. own: rows of this thread's tid, which no
 * other thread shares (the table holds one thread per tid): a new row,
 * without the hash look-up, the thread's only call.
 */
static size_t row_for(struct builder *b, const struct group_key *k, const struct thread *t,
		      bool own)
{
	uint64_t h = own ? 0 : hash_key(k);
	size_t idx = own ? 0 : (size_t)(uintptr_t)u64map__get(b->index, h);
	struct model_row *row;
	unsigned dims = b->q->dims;

	for (size_t i = idx; i; i = b->next[i - 1]) {
		if (memcmp(&b->keys[i - 1], k, sizeof(*k)))
			continue;
		/* A process's row is named for its main thread, whichever thread came first. */
		if (t->tid == t->pid && (dims & DIM_BIT(DIM_PID)) && !(dims & DIM_BIT(DIM_TID)) &&
		    !(dims & DIM_BIT(DIM_COMM)))
			b->rows[i - 1].comm = t->comm;
		return i - 1;
	}
	if (b->nr == b->cap) {
		b->cap *= 2;
		if (b->cap > b->rows_cap) {
			b->rows_cap = b->cap;
			b->rows = xrealloc(b->rows, b->rows_cap * sizeof(*b->rows));
		}
		b->last_tid = xrealloc(b->last_tid, b->cap * sizeof(*b->last_tid));
		if (!own) {
			b->keys = xrealloc(b->keys, b->cap * sizeof(*b->keys));
			b->next = xrealloc(b->next, b->cap * sizeof(*b->next));
		}
	}
	row = &b->rows[b->nr];
	memset(row, 0, sizeof(*row));
	b->last_tid[b->nr] = 0;
	if (!own) {
		b->keys[b->nr] = *k;
		b->next[b->nr] = idx;
		u64map__put(b->index, h, (void *)(uintptr_t)(b->nr + 1));
	}

	row->syscall = TT_SYSCALL_NONE;
	if (dims & (DIM_BIT(DIM_PID) | DIM_BIT(DIM_TID) | DIM_BIT(DIM_COMM))) {
		row->pid = t->pid;
		row->comm = t->comm;
		row->cmdline = memo_string(b->m, &b->cmdline_memo, t->cmdline_id);
		row->cmdline_id = t->cmdline_id;
		row->kthread = t->kthread;
		if (dims & (DIM_BIT(DIM_PID) | DIM_BIT(DIM_TID)) && b->m->procs)
			fill_proc(b, row, t->pid);
	}
	if (dims & DIM_BIT(DIM_TID)) {
		row->tid = t->tid;
		row->cur_state = t->cur.state;
		row->cur_syscall = t->cur.syscall;
		row->cur_wchan_id = t->cur.wchan_id;
		row->cur_target_id = t->cur.target_id;
		row->cur_kstack_id = t->cur.kstack_id;
		row->cur_ustack_id = t->cur.ustack_id;
	}
	if (!(dims & (DIM_BIT(DIM_PID) | DIM_BIT(DIM_TID))))
		row->pid = 0;
	row->state = k->state;
	if (dims & DIM_BIT(DIM_SYSCALL))
		row->syscall = k->syscall;
	row->wchan_id = k->wchan_id;
	row->wchan = memo_string(b->m, &b->wchan_memo, k->wchan_id);
	row->target_id = k->target_id;
	row->target = model__string(b->m, k->target_id);
	row->cgroup_id = k->cgroup_id;
	row->kleaf_ip = b->kleaf_ip;
	row->uleaf_ip = b->uleaf_ip;
	row->kleaf_inlined = b->kleaf_inl;
	row->uleaf_inlined = b->uleaf_inl;
	row->leaf_pid = t->pid;
	row->labels_id = k->labels_id;
	return b->nr++;
}

/* A process row is named by its main thread (top's COMMAND), whichever thread came first. */
static void name_by_main(const struct builder *b, struct model_row *row, const struct thread *t)
{
	if (t->tid != t->pid || b->q->dims & DIM_BIT(DIM_TID) || !(b->q->dims & DIM_BIT(DIM_PID)))
		return;
	row->comm = t->comm;
	row->cmdline = model__string(b->m, t->cmdline_id);
	row->cmdline_id = t->cmdline_id;
	row->kthread = t->kthread;
}

/* The filter says nothing about samples: no state, syscall or wait channel. */
static bool filter_keyless(const struct model_filter *f)
{
	return !f->state_mask && f->syscall == MODEL_ANY_SYSCALL && !f->wchan_id && !f->labels_id &&
	       !f->target_id;
}

static void add_thread(struct builder *b, const struct thread *t)
{
	const struct model_filter *f = &b->q->filter;
	/* Thread-level dims: every key of the thread falls in one row, its own with the tid. */
	bool per_thread = !(b->q->dims & ~THREAD_DIMS);
	bool own = per_thread && (b->q->dims & DIM_BIT(DIM_TID));
	size_t r = SIZE_MAX;
	struct group_key k;
	bool counted = false;

	for (size_t i = 0; i < t->nr_keys; i++) {
		const struct key_counts *kc = &t->keys[i];
		uint64_t n;

		if (!model_filter_key(b->m, f, &kc->key))
			continue;
		n = model_key_samples(b->m, t, i, b->q->window, b->now_sec);
		if (!n)
			continue;
		if (!b->q->dims && b->nr) {
			r = 0; /* no dims: one row, every thread's */
		} else if (!per_thread || r == SIZE_MAX) {
			make_key(b, t, &kc->key, &k);
			r = row_for(b, &k, t, own);
		}
		counted = true;
		b->rows[r].samples += n;
		b->rows[r].state_samples[kc->key.state] += n;
		if (b->last_tid[r] != t->tid) {
			b->last_tid[r] = t->tid;
			b->rows[r].nr_threads++;
			name_by_main(b, &b->rows[r], t);
			/* CPU time belongs to the thread, not to one of its samples. */
			if (!(b->q->dims & ~THREAD_DIMS)) {
				b->rows[r].cpu_pct += (double)thread_cpu_ns(b, t);
				b->rows[r].cpu_total_ns += thread_total_ns(t);
			}
		}
	}
	/* A thread that runs or waits for a CPU: its top frame is the work, not an interrupt. */
	if (own && r != SIZE_MAX && (t->cur.state == TT_ST_R || t->cur.state == TT_ST_Q))
		b->rows[r].top_uip = model_thread_top_user(b->m, t, b->q->window, b->now_sec,
							   &b->rows[r].top_uinlined);
	/*
	 * A thread no tick caught (short-lived) that made syscalls or ran or
	 * waited (traced) still gets its row, without samples, in thread views.
	 */
	if (!counted && !(b->q->dims & ~THREAD_DIMS) && filter_keyless(f) &&
	    trace_thread_active(t, b->q->window)) {
		struct sample_key none = {.syscall = TT_SYSCALL_NONE};

		make_key(b, t, &none, &k);
		r = row_for(b, &k, t, own);
		if (b->last_tid[r] != t->tid) {
			b->last_tid[r] = t->tid;
			b->rows[r].nr_threads++;
			b->rows[r].cpu_pct += (double)thread_cpu_ns(b, t);
			b->rows[r].cpu_total_ns += thread_total_ns(t);
		}
	}
}

/*
 * Rows by application labels (alone or with thread-level dims) get the CPU of
 * the on-CPU samples with their labels, when there are such samples and the
 * filter says nothing those samples lack (state, syscall, wait channel, frame).
 */
static bool labels_cpu(const struct model *m, const struct model_query *q)
{
	const struct model_filter *f = &q->filter;

	return (q->dims & DIM_BIT(DIM_LABELS)) &&
	       !(q->dims & ~(THREAD_DIMS | DIM_BIT(DIM_LABELS))) &&
	       (m->traced & MODEL_TRACED_ONCPU) && q->window != WIN_MINUTE && !f->state_mask &&
	       f->syscall == MODEL_ANY_SYSCALL && !f->wchan_id && !f->stack_ip && !f->target_id;
}

struct cpu_add {
	struct builder *b;
	const struct thread *t;
};

static void add_cpu_samples(void *arg, uint32_t labels_id, uint64_t samples)
{
	struct cpu_add *ca = arg;
	const struct model_filter *f = &ca->b->q->filter;
	struct sample_key sk = {.syscall = TT_SYSCALL_NONE, .labels_id = labels_id};
	struct group_key k;
	size_t r;

	if (f->labels_id && labels_id != (f->labels_id == MODEL_NO_LABELS ? 0 : f->labels_id))
		return;
	make_key(ca->b, ca->t, &sk, &k);
	r = row_for(ca->b, &k, ca->t, false);
	ca->b->rows[r].cpu_pct += (double)samples * ca->b->m->cpu_weight_us * 1000.0;
}

static int cmp_rows(const struct model_row *a, const struct model_row *b, enum model_sort sort)
{
	int c = 0;

	switch (sort) {
	case SORT_ACTIVE:
		c = (b->avg_active > a->avg_active) - (b->avg_active < a->avg_active);
		if (!c)
			c = (b->samples > a->samples) - (b->samples < a->samples);
		break;
	case SORT_SAMPLES:
		c = (b->samples > a->samples) - (b->samples < a->samples);
		break;
	case SORT_CPU:
		c = (b->cpu_pct > a->cpu_pct) - (b->cpu_pct < a->cpu_pct);
		break;
	case SORT_PID:
		c = (a->pid > b->pid) - (a->pid < b->pid);
		break;
	case SORT_TID:
		break;
	case SORT_COMM:
		c = text_cmp(a->comm, b->comm);
		break;
	case SORT_STATE:
		c = (a->state > b->state) - (a->state < b->state);
		break;
	case SORT_SYSCALL:
		c = (a->syscall > b->syscall) - (a->syscall < b->syscall);
		break;
	default:
		break;
	}
	if (!c)
		c = (a->pid > b->pid) - (a->pid < b->pid);
	if (!c)
		c = (a->tid > b->tid) - (a->tid < b->tid);
	return c;
}

static _Thread_local const struct model_query *sort_query;

static int qsort_rows(const void *a, const void *b)
{
	int c = cmp_rows(a, b, sort_query->sort);

	return sort_query->reverse ? -c : c;
}

/*
 * The seconds of window that threads' CPU times cover: a thread's CPU time
 * counts from its first sample, so from the run's first pass, while the
 * window starts a period before it (model_clock.c). Without this the first
 * interval read 1/N low for N passes (50% low for a first interval of two).
 */
static double cpu_seconds(const struct model *m, enum model_window window, double window_s)
{
	uint64_t end = window == WIN_LAST ? m->last_end_ns : m->now_ns;
	uint64_t len = (uint64_t)(window_s * 1e9 + 0.5), start;

	if (!m->first_pass_ns || len > end)
		return window_s;
	start = end - len;
	if (m->first_pass_ns <= start)
		return window_s;
	return m->first_pass_ns < end ? (double)(end - m->first_pass_ns) / 1e9 : 0.0;
}

/* What turns a row's counts into averages and shares. */
struct row_scale {
	double window_s, weight_s, cpu_s;
};

/* Sums over the rows (struct model_result's totals). */
struct row_totals {
	uint64_t samples;
	uint64_t states[TT_ST_MAX];
	double cpu_pct, active;
};

/* The rows from..to-1 are complete: their averages and shares, and the totals. */
static void finish_rows(const struct builder *b, size_t from, size_t to, const struct row_scale *sc,
			struct row_totals *tot)
{
	const struct model_query *q = b->q;

	for (size_t i = from; i < to; i++) {
		struct model_row *row = &b->rows[i];
		uint64_t active = 0;

		for (unsigned st = 0; st < TT_ST_MAX; st++) {
			if (model_state_active(st))
				active += row->state_samples[st];
			tot->states[st] += row->state_samples[st];
		}

		tot->samples += row->samples;
		/* A process's own CPU time counts its exited threads too (top's TIME+). */
		if (row->proc_known && !(q->dims & DIM_BIT(DIM_TID)) &&
		    q->dims & DIM_BIT(DIM_PID)) {
			struct model_proc p;

			if (model__proc(b->m, row->pid, &p) && p.cpu_time_ns > row->cpu_total_ns)
				row->cpu_total_ns = p.cpu_time_ns;
		}
		if (sc->window_s > 0) {
			row->avg_active = (double)active * sc->weight_s / sc->window_s;
			row->avg_threads = (double)row->samples * sc->weight_s / sc->window_s;
			row->cpu_pct = sc->cpu_s > 0 ? row->cpu_pct / 1e9 / sc->cpu_s * 100.0 : 0;
		} else {
			row->cpu_pct = 0;
		}
		tot->cpu_pct += row->cpu_pct;
		tot->active += row->avg_active;
	}
}

/*
 * model__query into ret's rows when it has some (reuse), and with now
 * model__now's figures from the same walk.
 */
static int run_query(struct model *m, const struct model_query *q, struct model_result *ret,
		     bool reuse, struct model_now *now)
{
	struct builder b = {.m = m, .q = q};
	bool own_rows = !(q->dims & ~THREAD_DIMS) && (q->dims & DIM_BIT(DIM_TID));
	double window_s = model__window_seconds(m, q->window);
	struct row_scale sc = {
		.window_s = window_s,
		.weight_s = model__sample_weight_s(m, q->window), /* the period achieved */
		/* On-CPU samples (by labels) stand for their own periods, counted from the start. */
		.cpu_s = labels_cpu(m, q) ? window_s : cpu_seconds(m, q->window, window_s),
	};
	struct row_totals tot = {0};
	/* Rows by labels get CPU in a second walk: finished after it. */
	bool finish_early = own_rows && !labels_cpu(m, q);
	size_t finished = 0;
	struct thread *t;
	size_t pos = 0;

	model_repeat_flush(m);
	if (q->window >= WIN_MAX || q->sort >= SORT_MAX)
		return -EINVAL;
	b.index = u64map__new();
	/* A row per thread: as many as threads, made once. Own rows need no keys (row_for). */
	b.cap = own_rows ? u64map__count(m->threads) + 1 : 64;
	if (reuse && ret->rows && ret->cap >= b.cap) {
		b.rows = ret->rows;
		b.rows_cap = ret->cap;
	} else {
		if (reuse)
			free(ret->rows);
		b.rows_cap = b.cap;
		b.rows = xmalloc(b.rows_cap * sizeof(*b.rows));
	}
	b.last_tid = xmalloc(b.cap * sizeof(*b.last_tid));
	b.keys = own_rows ? NULL : xmalloc(b.cap * sizeof(*b.keys));
	b.next = own_rows ? NULL : xmalloc(b.cap * sizeof(*b.next));
	b.now_sec = model_sec(m, m->now_ns);
	if (now) {
		memset(now, 0, sizeof(*now));
		now->pass_ns = m->last_tick_ns;
	}
	while (model_thread_next(m, &pos, &t)) {
		if (now)
			model_now_add(m, t, now);
		if (!model_filter_thread(m, &q->filter, t))
			continue;
		add_thread(&b, t);
		/*
		 * A thread's own row is complete once its keys are in: finished
		 * now, while it is in the cache, not in a second pass over 100,000
		 * rows (32 MB) that have left it.
		 */
		if (finish_early) {
			finish_rows(&b, finished, b.nr, &sc, &tot);
			finished = b.nr;
		}
	}
	if (labels_cpu(m, q)) {
		pos = 0;
		while (model_thread_next(m, &pos, &t)) {
			struct cpu_add ca = {&b, t};

			if (model_filter_thread(m, &q->filter, t))
				trace_oncpu_labels(t, q->window, add_cpu_samples, &ca);
		}
	}

	finish_rows(&b, finished, b.nr, &sc, &tot);
	memset(ret, 0, sizeof(*ret));
	ret->total_samples = tot.samples;
	memcpy(ret->total_states, tot.states, sizeof(ret->total_states));
	ret->total_cpu_pct = tot.cpu_pct;
	ret->total_active = tot.active;
	sort_query = q;
	if (b.nr > 1 && q->sort != SORT_NONE)
		qsort(b.rows, b.nr, sizeof(*b.rows), qsort_rows);
	ret->rows = b.rows;
	ret->cap = b.rows_cap;
	ret->nr = q->limit && q->limit < b.nr ? q->limit : b.nr;
	ret->window_s = window_s;
	ret->cpu_valid = !(q->dims & ~THREAD_DIMS) || labels_cpu(m, q);
	free(b.keys);
	free(b.next);
	free(b.last_tid);
	u64map__free(b.index);
	u64map__free(b.funcs);
	u64map__free(b.levels);
	return 0;
}

int model__query(struct model *m, const struct model_query *q, struct model_result *ret)
{
	return run_query(m, q, ret, false, NULL);
}

int model__query_into(struct model *m, const struct model_query *q, struct model_result *res)
{
	return run_query(m, q, res, true, NULL);
}

int model__query_into_now(struct model *m, const struct model_query *q, struct model_result *res,
			  struct model_now *now)
{
	return run_query(m, q, res, true, now);
}

int model__box(struct model *m, enum model_window window, struct model_result *ret,
	       struct model_now *now)
{
	struct model_query q;

	model_query_init(&q);
	q.window = window;
	q.dims = 0;
	return run_query(m, &q, ret, false, now);
}

void model_result__release(struct model_result *res)
{
	free(res->rows);
	memset(res, 0, sizeof(*res));
}

static int cmp_syscall_counts(const void *a, const void *b)
{
	const struct model_syscall_count *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

int model__thread_syscalls(struct model *m, uint32_t tid, enum model_window window,
			   struct model_syscall_count **ret)
{
	struct thread *t;
	uint32_t now_sec = model_sec(m, m->now_ns);

	model_repeat_flush(m);
	t = u64map__get(m->threads, tid);
	struct model_syscall_count *out = NULL;
	size_t nr = 0, cap = 0;

	*ret = NULL;
	if (!t)
		return -ENOENT;
	for (size_t i = 0; i < t->nr_keys; i++) {
		const struct key_counts *kc = &t->keys[i];
		uint64_t n = model_key_samples(m, t, i, window, now_sec);
		size_t j;

		if (!n || kc->key.syscall < 0)
			continue;
		for (j = 0; j < nr && out[j].nr != kc->key.syscall; j++)
			;
		if (j == nr) {
			xgrow((void **)&out, &cap, nr + 1, sizeof(*out));
			out[nr++] = (struct model_syscall_count){kc->key.syscall, 0};
		}
		out[j].samples += n;
	}
	if (nr)
		qsort(out, nr, sizeof(*out), cmp_syscall_counts);
	*ret = out;
	return (int)nr;
}

int model__stack_samples(struct model *m, const struct model_query *q,
			 struct model_stack_count **ret, uint64_t *ret_total)
{
	return model__stack_samples_except(m, q, NULL, ret, ret_total);
}

int model__stack_samples_except(struct model *m, const struct model_query *q,
				const struct u64map *skip_tids, struct model_stack_count **ret,
				uint64_t *ret_total)
{
	uint32_t now_sec = model_sec(m, m->now_ns);
	struct model_stack_counts set = {0};
	struct u64map *pcomms = NULL;
	size_t pos = 0;
	uint64_t total = 0, weight_ns;
	struct thread *t;

	*ret = NULL;
	*ret_total = 0;
	if (q->window >= WIN_MAX)
		return -EINVAL;
	/* As the profile weighs thread samples (profile.c): the period achieved, in us. */
	weight_ns = (uint64_t)(model__sample_weight_s(m, q->window) * 1e6 + 0.5) * NSEC_PER_USEC;
	if (!weight_ns)
		weight_ns = (uint64_t)m->weight_us * NSEC_PER_USEC;
	model_repeat_flush(m);
	while (model_thread_next(m, &pos, &t)) {
		const char *pcomm = NULL; /* asked for at the thread's first stack */

		if (!model_filter_thread(m, &q->filter, t) ||
		    (skip_tids && u64map__get(skip_tids, t->tid)))
			continue;
		for (size_t i = 0; i < t->nr_keys; i++) {
			const struct key_counts *kc = &t->keys[i];
			uint64_t n;

			if (!model_filter_key(m, &q->filter, &kc->key))
				continue;
			n = model_key_samples(m, t, i, q->window, now_sec);
			if (!n)
				continue;
			total += n;
			if (!kc->key.kstack_id && !kc->key.ustack_id)
				continue;
			if (!pcomm)
				pcomm = model_process_comm_memo(m, t, &pcomms);
			model_stack_counts__add(&set, kc->key.kstack_id, kc->key.ustack_id, t->pid,
						pcomm, n, n * weight_ns);
		}
	}
	u64map__free(pcomms);
	model_stack_counts__done(&set);
	*ret = set.out;
	*ret_total = total;
	return (int)set.nr;
}
