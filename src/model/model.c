// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model's ingest side (see model.h): the thread table, per-window
 * counters, dictionaries and drop counters. Queries are in model_query.c.
 */
#include <stdlib.h>
#include <string.h>

#include "dict_budget.h"
#include "model_internal.h"
#include "util.h"

#define DEFAULT_RETAIN_NS (60 * NSEC_PER_SEC)

static const char *const drop_names[MODEL_DROP_MAX] = {
	[TT_DROP_RINGBUF_FULL] = "ringbuf_full", [TT_DROP_MAP_FULL] = "map_full",
	[TT_DROP_DEDUP_FULL] = "dedup_full",	 [TT_DROP_VANISHED] = "vanished",
	[TT_DROP_READ_ERROR] = "read_error",	 [MODEL_DROP_DICT_FULL] = "dict_full",
};

const char *model_drop_name(unsigned reason)
{
	return reason < MODEL_DROP_MAX ? drop_names[reason] : "unknown";
}

struct model *model__new(const struct model_opts *opts)
{
	struct model *m = xcalloc(1, sizeof(*m));

	if (opts)
		m->opts = *opts;
	if (!m->opts.retain_ns)
		m->opts.retain_ns = DEFAULT_RETAIN_NS;
	m->threads = u64map__new();
	m->thread_slab = slab__new(sizeof(struct thread));
	m->strings = u64map__new();
	m->stacks = u64map__new();
	m->use = use_model__new();
	m->lj = lj_model__new();
	return m;
}

/* What a thread holds apart from its slot. */
static void thread_free_parts(void *obj)
{
	struct thread *t = obj;

	trace_thread_free(t->trace);
	if (t->keys != &t->key0) {
		free(t->keys);
		free(t->key_rings);
	}
}

/* Forgets thread t: out of the table, its slot back. */
static void thread_forget(struct model *m, struct thread *t)
{
	u64map__remove(m->threads, t->tid);
	thread_free_parts(t);
	slab__release(m->thread_slab, t);
	m->threads_freed++;
}

static void free_values(struct u64map *map, void (*fn)(void *))
{
	uint64_t key;
	void *value;
	size_t pos = 0;

	while (u64map__next(map, &pos, &key, &value))
		fn(value);
	u64map__free(map);
}

/* What the dictionaries took from the budget, before they go. */
static void give_back(struct model *m)
{
	const struct tt_stack *st;
	const char *s;
	uint64_t key;
	size_t pos = 0;

	if (!m->budget)
		return;
	while (u64map__next(m->strings, &pos, &key, (void **)&s))
		dict_budget__give(m->budget, 0, strlen(s));
	pos = 0;
	while (u64map__next(m->stacks, &pos, &key, (void **)&st))
		dict_budget__give(m->budget, st->pid, st->hdr.size);
}

void model__free(struct model *m)
{
	if (!m)
		return;
	model_labels_free(m);
	model_procs_free(m);
	model_repeat_free(m);
	u64map__free(m->threads);
	slab__free(m->thread_slab, thread_free_parts);
	give_back(m);
	free_values(m->strings, free);
	u64map__free(m->strings_retired);
	free_values(m->stacks, free);
	use_model__free(m->use);
	trace_model_free(m);
	model_io_free(m);
	lj_model__free(m->lj);
	model_timed__free(&m->timed);
	free(m);
}

void model__reset(struct model *m)
{
	struct model *fresh = model__new(&m->opts);
	struct model old = *m;

	/* Swap, then free the old state through the fresh shell. */
	*m = *fresh;
	*fresh = old;
	m->namer = old.namer; /* the frame namer is configuration, not state */
	model__free(fresh);   /* gives back to the budget what the old state took */
	model__set_budget(m, old.budget);
}

/* Advances a ring to second sec, clearing the slots of the skipped seconds. */
#define RING_ADVANCE(ring, ring_sec, sec)                                             \
	do {                                                                          \
		if ((sec) > (ring_sec)) {                                             \
			uint32_t gap_ = (sec) - (ring_sec);                           \
			if (gap_ >= MINUTE_SLOTS)                                     \
				memset((ring), 0, sizeof(ring));                      \
			else                                                          \
				for (uint32_t s_ = (ring_sec) + 1; s_ <= (sec); s_++) \
					(ring)[s_ % MINUTE_SLOTS] = 0;                \
			(ring_sec) = (sec);                                           \
		}                                                                     \
	} while (0)

/*
 * Sums the slots of a ring whose newest second is ring_sec over the minute
 * ending at now_sec, i.e. seconds (now_sec - 60, now_sec]. Slots of seconds
 * after ring_sec were never written (or were cleared) and hold nothing.
 */
#define RING_SUM(ring, ring_sec, now_sec)                                                          \
	({                                                                                         \
		uint64_t sum_ = 0;                                                                 \
		uint32_t lo_ = (now_sec) >= MINUTE_SLOTS - 1 ? (now_sec) - (MINUTE_SLOTS - 1) : 0; \
		if ((ring_sec) >= lo_) {                                                           \
			uint32_t i_ = lo_ % MINUTE_SLOTS;                                          \
			for (uint32_t s_ = lo_; s_ <= (ring_sec); s_++) {                          \
				sum_ += (ring)[i_];                                                \
				i_ = i_ + 1 == MINUTE_SLOTS ? 0 : i_ + 1;                          \
			}                                                                          \
		}                                                                                  \
		sum_;                                                                              \
	})

uint64_t ring_sum_u16(const uint16_t *ring, uint32_t ring_sec, uint32_t now_sec)
{
	return RING_SUM(ring, ring_sec, now_sec);
}

uint64_t ring_sum_u32(const uint32_t *ring, uint32_t ring_sec, uint32_t now_sec)
{
	return RING_SUM(ring, ring_sec, now_sec);
}

struct thread *model_thread_get(struct model *m, uint32_t pid, uint32_t tid, uint64_t start_ns)
{
	struct thread *t = u64map__get(m->threads, tid);

	/* A tid that comes back with another start time is another thread. */
	if (t && start_ns && t->start_time_ns && t->start_time_ns != start_ns) {
		thread_forget(m, t);
		t = NULL;
	}
	if (!t) {
		/* Zeroed and cache-line aligned: a repeat touches the first line only. */
		t = slab__alloc(m->thread_slab);
		t->tid = tid;
		t->pid = pid;
		t->start_time_ns = start_ns;
		t->cpu_first_ns = UINT64_MAX;
		t->cur.state = TT_ST_UNKNOWN;
		t->cur.syscall = TT_SYSCALL_NONE;
		u64map__put(m->threads, tid, t);
		m->threads_added++;
	}
	if (!t->start_time_ns)
		t->start_time_ns = start_ns;
	t->pid = pid;
	return t;
}

static struct key_counts *key_get(struct thread *t, const struct sample_key *key, uint32_t sec)
{
	struct key_counts *kc;

	for (size_t i = 0; i < t->nr_keys; i++) {
		kc = &t->keys[i];
		if (kc->key.state == key->state && kc->key.syscall == key->syscall &&
		    kc->key.labels_id == key->labels_id && kc->key.wchan_id == key->wchan_id &&
		    kc->key.target_id == key->target_id && kc->key.kstack_id == key->kstack_id &&
		    kc->key.ustack_id == key->ustack_id)
			return kc;
	}
	if (t->nr_keys == t->cap_keys) {
		/*
		 * From one key up: most threads of a big box idle in one or two.
		 * Eight at first, with their minute rings, took 1.4 KB a thread,
		 * 140 MB of the 180 MB the model held beside 100,000 idle threads.
		 * The first is in the thread's slot, so walks of idle threads
		 * stream through the slab with no detour.
		 */
		if (!t->cap_keys) {
			t->keys = &t->key0;
			t->key_rings = &t->ring0;
			t->cap_keys = 1;
		} else if (t->keys == &t->key0) {
			t->cap_keys = 2;
			t->keys = xmalloc(t->cap_keys * sizeof(*t->keys));
			t->key_rings = xmalloc(t->cap_keys * sizeof(*t->key_rings));
			t->keys[0] = t->key0;
			memcpy(t->key_rings[0], t->ring0, sizeof(t->ring0));
		} else {
			t->cap_keys *= 2;
			t->keys = xrealloc(t->keys, t->cap_keys * sizeof(*t->keys));
			t->key_rings = xrealloc(t->key_rings, t->cap_keys * sizeof(*t->key_rings));
		}
	}
	memset(t->key_rings[t->nr_keys], 0, sizeof(t->key_rings[0]));
	kc = &t->keys[t->nr_keys++];
	memset(kc, 0, sizeof(*kc));
	kc->key = *key;
	kc->ring_sec = sec;
	return kc;
}

static void account_cpu(struct model *m, struct thread *t, uint64_t cpu_ns, uint32_t sec)
{
	if (t->cpu_first_ns == UINT64_MAX) {
		t->cpu_first_ns = t->cpu_interval_ns = t->cpu_last_ns = cpu_ns;
		t->cpu_ring_sec = sec;
		return;
	}
	if (cpu_ns < t->cpu_last_ns)
		return; /* not monotonic: a source glitch, ignore */
	RING_ADVANCE(t->cpu_ring_us, t->cpu_ring_sec, sec);
	t->cpu_ring_us[sec % MINUTE_SLOTS] += (uint32_t)((cpu_ns - t->cpu_last_ns) / NSEC_PER_USEC);
	t->cpu_last_ns = cpu_ns;
}

/* Brings kc's interval counts to the interval open now (see struct key_counts). */
static void key_roll(const struct model *m, struct key_counts *kc)
{
	uint32_t epoch = (uint32_t)m->intervals;

	if (kc->epoch == epoch)
		return;
	kc->last = kc->epoch + 1 == epoch ? kc->interval : 0;
	kc->interval = 0;
	kc->epoch = epoch;
}

static void count_key(const struct model *m, struct thread *t, struct key_counts *kc, uint32_t sec,
		      uint64_t time_ns)
{
	size_t k = (size_t)(kc - t->keys);

	t->last_seen_ns = time_ns;
	key_roll(m, kc);
	kc->interval++;
	kc->session++;
	RING_ADVANCE(t->key_rings[k], kc->ring_sec, sec);
	if (t->key_rings[k][sec % MINUTE_SLOTS] < UINT16_MAX)
		t->key_rings[k][sec % MINUTE_SLOTS]++;
}

/* Moves t's pending repeats into the counts of its current key. */
void model_settle(const struct model *m, struct thread *t)
{
	struct key_counts *kc;
	uint32_t n = t->pending, slot;

	if (!n)
		return;
	t->pending = 0;
	kc = &t->keys[t->cur_key];
	key_roll(m, kc);
	kc->interval += n;
	kc->session += n;
	RING_ADVANCE(t->key_rings[t->cur_key], kc->ring_sec, t->pending_sec);
	slot = t->pending_sec % MINUTE_SLOTS;
	t->key_rings[t->cur_key][slot] = (uint16_t)(t->key_rings[t->cur_key][slot] + n > UINT16_MAX
							    ? UINT16_MAX
							    : t->key_rings[t->cur_key][slot] + n);
}

/* One more sample of t with this key (labels_id is filled in here). */
void model_count_sample(struct model *m, struct thread *t, struct sample_key *key, uint64_t time_ns)
{
	uint32_t sec = model_sec(m, time_ns);
	struct key_counts *kc;

	model_settle(m, t);
	key->labels_id = t->labels_id;
	kc = key_get(t, key, sec);
	t->cur = *key;
	t->cur_key = (uint32_t)(kc - t->keys);
	count_key(m, t, kc, sec, time_ns);
}

static void ingest_sample(struct model *m, const struct tt_thread_sample *s)
{
	struct sample_key key = {
		.syscall = s->syscall_nr,
		.wchan_id = s->wchan_id,
		/* Version 1 records end before it. */
		.target_id = s->hdr.version >= 2 ? s->syscall_target_id : 0,
		.kstack_id = s->kstack_id,
		.ustack_id = s->ustack_id,
		.state = s->state < TT_ST_MAX ? s->state : TT_ST_UNKNOWN,
	};
	uint32_t sec = model_sec(m, s->hdr.time_ns);
	struct thread *t;

	model_repeat_before_sample(m);
	t = model_thread_get(m, s->pid, s->tid, s->start_time_ns);

	memcpy(t->comm, s->comm, TT_COMM_LEN);
	t->comm[TT_COMM_LEN - 1] = '\0';
	t->cgroup_id = s->cgroup_id;
	t->kthread = s->flags & TT_SAMPLE_KTHREAD;
	if (s->weight_us)
		m->weight_us = s->weight_us;
	account_cpu(m, t, s->cpu_time_ns, sec);
	model_count_sample(m, t, &key, s->hdr.time_ns);
	trace_sample_seen(t, s->hdr.time_ns);
}

static void ingest_info(struct model *m, const struct tt_thread_info *info)
{
	struct thread *t = model_thread_get(m, info->pid, info->tid, info->start_time_ns);

	memcpy(t->comm, info->comm, TT_COMM_LEN);
	t->comm[TT_COMM_LEN - 1] = '\0';
	t->cmdline_id = info->cmdline_id;
	t->kthread = info->flags & TT_INFO_KTHREAD;
	t->last_seen_ns = info->hdr.time_ns;
}

static void ingest_string(struct model *m, const struct tt_string *s)
{
	char *old;

	if (!s->len) { /* retired: it names what the model holds, and nothing to come */
		model_age_string_retired(m, s->id);
		return;
	}
	old = u64map__remove(m->strings, s->id);

	if (old) {
		dict_budget__give(m->budget, 0, strlen(old));
		free(old);
	}
	if (!dict_budget__take(m->budget, 0, s->len)) {
		m->strings_dropped = true;
		return;
	}
	u64map__put(m->strings, s->id, xstrndup(s->data, s->len));
}

static void ingest_stack(struct model *m, const struct tt_stack *st)
{
	struct tt_stack *copy;

	/*
	 * The model's own ids (stitched LuaJIT stacks) are never in a stream;
	 * only a threadtop from before events.h's id table, past 2^30 unwound
	 * stacks, could have written one: dropped, not mistaken for a stitch.
	 */
	if (st->id - TT_LJ_STACK_ID_BASE <= TT_LJ_STACK_ID_LAST - TT_LJ_STACK_ID_BASE) {
		m->drops_interval[TT_DROP_DEDUP_FULL]++;
		m->drops_session[TT_DROP_DEDUP_FULL]++;
		return;
	}
	model_age_stack_seen(m, st->id);
	copy = u64map__remove(m->stacks, st->id);
	if (copy) {
		dict_budget__give(m->budget, copy->pid, copy->hdr.size);
		free(copy);
		m->stacks_gone++;
	}
	if (!dict_budget__take(m->budget, st->pid, st->hdr.size))
		return; /* counted by the budget: the stack's samples go without frames */
	copy = xmalloc(st->hdr.size);
	memcpy(copy, st, st->hdr.size);
	for (unsigned i = 1; i < copy->nr; i++)
		copy->ips[i] = frame_lookup_addr(copy->ips[i], i);
	u64map__put(m->stacks, st->id, copy);
}

/* A LuaJIT sample in the timed ring, when the LuaJIT model kept its stack pair. */
static void timed_luajit(struct model *m, const struct tt_luajit_sample *s)
{
	uint64_t key = lj_model__last_stack(m->lj);

	if (key)
		model_timed__add(&m->timed, &(struct model_timed){
						    .time_ns = s->hdr.time_ns,
						    .lj_key = key,
						    .pid = s->pid,
						    .tid = s->tid,
						    .ustack_id = s->ustack_id,
						    .interval = (uint32_t)m->intervals,
					    });
}

void model__ingest(struct model *m, const struct tt_event_header *ev)
{
	if (!m->session_start_ns) {
		m->session_start_ns = ev->time_ns;
		m->interval_start_ns = ev->time_ns;
	}
	if (ev->time_ns > m->now_ns)
		m->now_ns = ev->time_ns;
	m->events++;
	switch (ev->type) {
	case TT_EV_THREAD_SAMPLE:
		ingest_sample(m, (const struct tt_thread_sample *)ev);
		break;
	case TT_EV_THREAD_REPEAT:
		model_repeat_ingest(m, (const struct tt_thread_repeat *)ev);
		break;
	case TT_EV_THREAD_INFO:
		ingest_info(m, (const struct tt_thread_info *)ev);
		break;
	case TT_EV_THREAD_LABELS:
	case TT_EV_LABEL_NAME:
		model_labels_ingest(m, ev);
		break;
	case TT_EV_STRING:
		ingest_string(m, (const struct tt_string *)ev);
		break;
	case TT_EV_STACK:
		ingest_stack(m, (const struct tt_stack *)ev);
		break;
	case TT_EV_PROC_INFO:
	case TT_EV_HOST_STATS:
		model_procs_ingest(m, ev);
		break;
	case TT_EV_TICK:
		if (ev->time_ns > m->last_tick_ns)
			m->last_tick_ns = ev->time_ns;
		model_repeat_tick(m);
		model_clock_tick(m, (const struct tt_tick *)ev);
		m->ticks++;
		m->ticks_interval++;
		m->tick_cost_ns += ((const struct tt_tick *)ev)->duration_ns;
		m->tick_cost_interval_ns += ((const struct tt_tick *)ev)->duration_ns;
		break;
	case TT_EV_DROPS:
		for (int i = 0; i < TT_DROP_MAX; i++) {
			m->drops_interval[i] += ((const struct tt_drops *)ev)->count[i];
			m->drops_session[i] += ((const struct tt_drops *)ev)->count[i];
		}
		break;
	case TT_EV_USE_METRIC:
		use_model__ingest(m->use, (const struct tt_use_metric *)ev);
		break;
	case TT_EV_LUAJIT_SAMPLE:
		lj_model__ingest(m->lj, ev);
		timed_luajit(m, (const struct tt_luajit_sample *)ev);
		break;
	case TT_EV_LUAJIT_FUNC:
		lj_model__ingest(m->lj, ev);
		break;
	default:
		traced_ingest(m, ev);
		break;
	}
}

void model__advance(struct model *m, uint64_t now_ns)
{
	if (!m->session_start_ns) {
		m->session_start_ns = now_ns;
		m->interval_start_ns = now_ns;
	}
	if (now_ns > m->now_ns)
		m->now_ns = now_ns;
}

void model__end_interval(struct model *m, uint64_t now_ns)
{
	struct thread *t;
	size_t pos = 0;

	model__advance(m, now_ns);
	model_repeat_flush_settled(m);
	while (model_thread_next(m, &pos, &t)) {
		if (t->last_seen_ns + m->opts.retain_ns < now_ns) {
			thread_forget(m, t);
			continue;
		}
		model_settle(m, t); /* the keys move on when next counted (key_roll) */
		trace_end_interval(m, t);
		if (t->cpu_first_ns != UINT64_MAX) {
			t->cpu_last_interval_ns = t->cpu_last_ns - t->cpu_interval_ns;
			t->cpu_interval_ns = t->cpu_last_ns;
		}
	}
	trace_model_end_interval(m);
	model_io_end_interval(m);
	model_procs_end_interval(m, now_ns);
	model_age_end_interval(m, now_ns); /* after the threads: their stacks may go with them */
	memset(m->drops_interval, 0, sizeof(m->drops_interval));
	m->dict_refused_start = dict_budget__refused(m->budget);
	model_clock_end_interval(m);
	m->ticks_interval = 0;
	m->tick_cost_interval_ns = 0;
	lj_model__end_interval(m->lj);
	m->last_start_ns = m->interval_start_ns;
	m->last_end_ns = now_ns;
	m->intervals++;
	m->interval_start_ns = now_ns;
}

void model__stats(const struct model *m, struct model_stats *ret)
{
	*ret = (struct model_stats){
		.now_ns = m->now_ns,
		.interval_start_ns = m->interval_start_ns,
		.session_start_ns = m->session_start_ns,
		.intervals = m->intervals,
		.weight_us = m->weight_us,
		.nr_threads = u64map__count(m->threads),
		.events = m->events,
		.ticks = m->ticks,
		.tick_cost_ns = m->tick_cost_ns,
		.ticks_interval = m->ticks_interval,
		.tick_cost_interval_ns = m->tick_cost_interval_ns,
	};
	memcpy(ret->drops_interval, m->drops_interval, sizeof(m->drops_interval));
	memcpy(ret->drops_session, m->drops_session, sizeof(m->drops_session));
	ret->drops_session[MODEL_DROP_DICT_FULL] = dict_budget__refused(m->budget);
	ret->drops_interval[MODEL_DROP_DICT_FULL] =
		ret->drops_session[MODEL_DROP_DICT_FULL] - m->dict_refused_start;
}

void model__set_budget(struct model *m, struct dict_budget *b)
{
	m->budget = b;
	m->dict_refused_start = dict_budget__refused(b);
	lj_model__set_budget(m->lj, b);
}

struct lj_model *model__luajit(struct model *m)
{
	return m->lj;
}

struct use_model *model__use(struct model *m)
{
	return m->use;
}

const char *model__string(const struct model *m, uint32_t id)
{
	const char *s = id ? u64map__get(m->strings, id) : NULL;

	return !s && id && m->strings_dropped ? "[dropped]" : s;
}

const struct tt_stack *model__stack(const struct model *m, uint32_t id)
{
	return id ? u64map__get(m->stacks, id) : NULL;
}

uint64_t model__stack_leaf(const struct model *m, uint32_t id)
{
	const struct tt_stack *st = m ? model__stack(m, id) : NULL;

	return st && st->nr ? st->ips[0] : 0;
}

double model__window_seconds(const struct model *m, enum model_window window)
{
	uint64_t start = window == WIN_INTERVAL ? m->interval_start_ns : m->session_start_ns;

	if (window == WIN_LAST)
		return m->last_end_ns > m->last_start_ns
			       ? (double)(m->last_end_ns - m->last_start_ns) / 1e9
			       : 0.0;
	double s = m->now_ns > start ? (double)(m->now_ns - start) / 1e9 : 0.0;

	if (window == WIN_MINUTE && s > MINUTE_SLOTS)
		s = MINUTE_SLOTS;
	return s;
}
