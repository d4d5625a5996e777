/* SPDX-License-Identifier: GPL-2.0-only */
/* The model's internals, shared by model.c (ingest) and model_query.c. */
#ifndef THREADTOP_MODEL_INTERNAL_H
#define THREADTOP_MODEL_INTERNAL_H

#include "threadtop/frame_namer.h"
#include "model.h"
#include "slab.h"
#include "u64map.h"
#include "lj_model.h"
#include "model_timed.h"
#include "use_model.h"

#define MINUTE_SLOTS 60

/* What distinguishes one thread sample from another, beyond the thread. */
struct sample_key {
	int32_t syscall;
	uint32_t wchan_id;
	uint32_t kstack_id;
	uint32_t ustack_id;
	uint32_t labels_id; /* the thread's application labels then (model_labels.c), 0 = none */
	uint32_t target_id; /* string id of what the syscall's fd names, 0 = none */
	uint8_t state;
};

/* Counters of one sample key of one thread, per window. */
struct key_counts {
	struct sample_key key;
	/*
	 * interval counts interval number epoch (m->intervals then), last the
	 * one before it: an interval's end touches no key, the next count
	 * moves them on (key_roll), readers look at epoch (model_key_samples).
	 */
	uint32_t interval;
	uint32_t last;
	uint64_t session;
	uint32_t ring_sec; /* newest second written into the key's minute ring */
	uint32_t epoch;
};

struct thread {
	/*
	 * First cache line: all that a repeat reads and writes. On an idle box
	 * nearly every thread is a repeat on every tick, so the rest stays cold.
	 */
	uint32_t pid;
	uint32_t tid;
	uint32_t pending;     /* repeats of cur not yet in keys[cur_key] (model_settle) */
	uint32_t pending_sec; /* the second they fell in */
	uint64_t last_seen_ns;
	struct sample_key cur; /* the latest sample; state TT_ST_UNKNOWN = none yet */
	uint32_t cur_key;      /* its index in keys: a repeat counts there again */
	uint32_t labels_id;    /* current application labels, 0 = none */

	/*
	 * Then all that a walk of every thread reads (the interval's end, the
	 * queries), in the next three lines (model_thread_next): the second,
	 */
	uint64_t start_time_ns;
	uint64_t cgroup_id;
	char comm[TT_COMM_LEN];
	uint32_t cmdline_id;
	bool kthread;
	/*
	 * The keys: key0 while there is one (most threads of a big box idle in
	 * one), then an array of their own. Their minute rings (samples per
	 * second, slot = sec % 60) are kept apart, so queries on the other
	 * windows walk 56, not 176, bytes per key.
	 */
	struct key_counts *keys;
	uint16_t (*key_rings)[MINUTE_SLOTS];
	uint32_t nr_keys, cap_keys;
	/* the third, */
	struct key_counts key0;
	struct thread_trace *trace; /* on-CPU, syscall, off-CPU data (model_traced.c), or NULL */
	/* and the fourth. CPU time: first seen, at interval start, latest; and per second. */
	uint64_t cpu_first_ns;
	uint64_t cpu_interval_ns;
	uint64_t cpu_last_ns;
	uint64_t cpu_last_interval_ns; /* CPU time of the last complete interval */
	uint32_t cpu_ring_sec;
	uint32_t cpu_ring_us[MINUTE_SLOTS];
	uint16_t ring0[MINUTE_SLOTS]; /* key0's minute ring */
};

/* Thread slots are walked line by line: the lines above are where they are said to be. */
_Static_assert(offsetof(struct thread, start_time_ns) == 64, "struct thread: the second line");
_Static_assert(offsetof(struct thread, key0) == 128, "struct thread: key0 in the third line");
_Static_assert(offsetof(struct thread, cpu_first_ns) == 192, "struct thread: the fourth line");

/* The sampling clock per window (model_clock.c); passes are model.ticks*. */
struct model_clock {
	uint64_t missed_interval, missed_session, missed_last;
	uint64_t ticks_last;
	uint32_t asked_us, target_us; /* of the latest pass */
	uint32_t ring_sec;	      /* newest second of the rings */
	uint32_t ring_ticks[MINUTE_SLOTS];
	uint32_t ring_missed[MINUTE_SLOTS];
};

struct model {
	struct model_opts opts;
	struct u64map *threads;	     /* tid -> struct thread */
	struct slab *thread_slab;    /* where the threads live; walks go in its order */
	struct u64map *strings;	     /* id -> char * */
	struct u64map *stacks;	     /* id -> struct tt_stack * */
	struct model_labels *labels; /* label names and value combinations, or NULL */
	uint64_t session_start_ns;
	uint64_t interval_start_ns;
	uint64_t last_start_ns, last_end_ns; /* the last complete interval */
	uint64_t first_pass_ns; /* the run's first pass: threads' CPU time counts from it */
	uint64_t intervals;
	uint64_t now_ns;
	uint32_t weight_us;
	uint32_t cpu_weight_us; /* period of the latest on-CPU sample */
	uint64_t events, ticks, tick_cost_ns;
	uint64_t ticks_interval, tick_cost_interval_ns;
	struct model_clock clock;
	uint64_t drops_interval[TT_DROP_MAX];
	uint64_t drops_session[TT_DROP_MAX];
	struct dict_budget *budget;  /* of the dictionaries, not owned; or NULL */
	uint64_t dict_refused_start; /* the budget's refusals when the interval began */
	bool strings_dropped;	     /* a string did not fit the budget */
	struct use_model *use;	     /* USE metrics (use_model.c) */
	unsigned traced;	     /* MODEL_TRACED_* seen this session */
	struct prog_stat *progs;     /* BPF program run time (model_traced.c) */
	struct model_io *io;	     /* block I/O requests (model_io.c), NULL = none yet */
	size_t nr_progs, cap_progs;

	/* Names stack frames (model_frames.c); NULL = addresses. */
	const struct frame_namer *namer;
	const struct frame_namer *exact_namer; /* for exports; NULL = namer */
	const struct cgroup_namer *cg_namer;   /* names cgroups; NULL = ids only */
	struct lj_model *lj;		       /* LuaJIT VM states and functions (lj_model.c) */
	uint32_t nr_lj_stacks;		       /* stitched LuaJIT stacks made (model_luajit.c) */
	struct model_timed_ring timed;	       /* on-CPU samples in time order (model_timed.h) */

	/* Repeat records of the pass so far, as runs not yet counted (model_repeat.c). */
	struct repeat_run *runs;
	uint32_t nr_runs;     /* runs up to the highest block seen */
	uint32_t cap_runs;    /* runs allocated */
	uint32_t repeat_pass; /* passes ended (TT_EV_TICK), for the runs' stamps */
	bool stale_flushed;   /* runs not confirmed by this pass are counted */
	/*
	 * Bumped when a thread is freed: the runs' cached thread pointers go
	 * stale; and when one is added: a run's cached NULL may have a thread now.
	 */
	uint64_t threads_freed, threads_added;

	/* Processes and the box (model_procs.c). */
	struct u64map *procs; /* pid -> struct proc_entry, or NULL before the first */
	struct tt_host_stats host;
	bool has_host;
	uint64_t last_tick_ns; /* the latest TT_EV_TICK */

	/* Stacks that age out (model_age.c). */
	uint32_t stack_newest[2];   /* newest id seen of the kernel and the user space */
	uint32_t stack_horizon[2];  /* stack_newest at the latest interval end */
	uint64_t stacks_aged;	    /* stacks forgotten, session */
	uint64_t stacks_aged_at_ns; /* when the latest pass ran */
	uint64_t stacks_gone;	    /* stacks removed or replaced under their id, session */
	uint64_t names_gen;	    /* model__names_changed calls and namers set */
	/* Strings the source retired (tt_string, len 0): forgotten by that pass
	 * once nothing the model holds names them. id -> (void *)1. */
	struct u64map *strings_retired;
	uint64_t strings_aged; /* strings forgotten, session */
};

/* Seconds since the session start: the minute rings' clock. */
static inline uint32_t model_sec(const struct model *m, uint64_t t)
{
	return t > m->session_start_ns ? (uint32_t)((t - m->session_start_ns) / 1000000000ull) : 0;
}

/*
 * The next thread of a walk of every thread (start with *pos = 0), as
 * u64map__next. Such walks (the interval's end, the queries, the header's
 * count) are bound by cache misses: threads lie all over the heap, and with
 * 100,000 of them each visit waited on memory for its thread and then its
 * keys. So each step asks for the first three lines of the thread some
 * slots on (struct thread puts what walks read there) and for the keys of
 * one nearer, whose thread an earlier step asked for.
 */
#define THREAD_WALK_AHEAD 32
static inline bool model_thread_next(const struct model *m, size_t *pos, struct thread **ret)
{
	const struct thread *far, *near;

	if (!slab__next(m->thread_slab, pos, (void **)ret))
		return false;
	/* In address order the lines stream in; the keys, apart, are asked for. */
	far = slab__ahead(m->thread_slab, *pos, THREAD_WALK_AHEAD);
	if (far) {
		__builtin_prefetch(far);
		__builtin_prefetch((const char *)far + 64);
		__builtin_prefetch((const char *)far + 128);
		__builtin_prefetch((const char *)far + 192);
	}
	near = slab__ahead(m->thread_slab, *pos, THREAD_WALK_AHEAD / 2);
	if (near && near->keys != &near->key0)
		__builtin_prefetch(near->keys);
	return true;
}

/* The thread tid, created when new; a reused tid with another start time is a new thread. */
struct thread *model_thread_get(struct model *m, uint32_t pid, uint32_t tid, uint64_t start_ns);
/* The name of t's process: its main thread's comm when known, else t's own (model_stacks.c). */
const char *model_process_comm(const struct model *m, const struct thread *t);
/*
 * The same through *memo (pid -> name, made on first use; u64map__free it
 * after the walk): a walk of every thread looks each process up once, not
 * once per thread, where the look-up's cache misses were most of the walk.
 */
const char *model_process_comm_memo(const struct model *m, const struct thread *t,
				    struct u64map **memo);
/* One more sample of t with this key (labels_id is filled in here). */
void model_count_sample(struct model *m, struct thread *t, struct sample_key *key,
			uint64_t time_ns);
/* model_clock.c: a pass ended (TT_EV_TICK), an interval closes (before the reset). */
void model_clock_tick(struct model *m, const struct tt_tick *tick);
void model_clock_end_interval(struct model *m);

/* Moves t's pending repeats into the counts of its current key. */
void model_settle(const struct model *m, struct thread *t);

/*
 * model_repeat.c: TT_EV_THREAD_REPEAT. Counts are read only after
 * model_repeat_flush: every reader of key counts calls it first.
 */
void model_repeat_ingest(struct model *m, const struct tt_thread_repeat *r);
void model_repeat_tick(struct model *m);
void model_repeat_before_sample(struct model *m);
void model_repeat_flush(struct model *m);
void model_repeat_flush_settled(struct model *m);
void model_repeat_free(struct model *m);

/* model_traced.c: the record types of tracing and on-CPU sampling. */
/* Windows kept; ingest adds to the first W_ACCUM, interval end moves interval to last. */
enum { W_INTERVAL, W_SESSION, W_ACCUM, W_LAST = W_ACCUM, W_MAX };
/* The W_* of a window, -EOPNOTSUPP for one not kept (the minute). */
int trace_window_index(enum model_window window);
void traced_ingest(struct model *m, const struct tt_event_header *ev);
void trace_thread_free(struct thread_trace *tr);
/* A full sample of t at time_ns came in: what it waits on is the sample's (model_traced.c). */
void trace_sample_seen(struct thread *t, uint64_t time_ns);
/* What tr holds on the heap (its arrays at capacity), for model__mem. */
size_t trace_thread_bytes(const struct thread_trace *tr);
/* Calls fn with every stack id (kernel and user, 0 included) tr's stacks name. */
void trace_thread_stacks(const struct thread_trace *tr, void (*fn)(void *arg, uint32_t stack_id),
			 void *arg);
void trace_end_interval(struct model *m, struct thread *t);
void trace_model_end_interval(struct model *m);
void trace_model_free(struct model *m);
/*
 * Calls add with the on-CPU samples of t in window per labels id, for the
 * stacks whose labels are known (nothing for WIN_MINUTE: not kept).
 */
void trace_oncpu_labels(const struct thread *t, enum model_window window,
			void (*add)(void *arg, uint32_t labels_id, uint64_t samples), void *arg);
/*
 * Calls add with t's on-CPU samples (perf_event) in window per user stack
 * (the minute too). Returns whether there were any: false without them.
 */
bool trace_oncpu_each(const struct model *m, const struct thread *t, enum model_window window,
		      void (*add)(void *arg, uint32_t ustack_id, uint64_t samples), void *arg);
/* model_frames.c: the level of the innermost function inlined at a leaf
 * addr (model__frame_function's level), which names what runs there, as
 * the call tree's leaf; 0 when none or nothing names frames. */
unsigned model_frame_innermost(const struct model *m, uint32_t pid, uint64_t addr, bool kernel);
/* model_age.c: a retired string (ingest_string) to forget once unnamed. */
void model_age_string_retired(struct model *m, uint32_t id);
/* model_topframe.c: t's hottest user function over window (one address of
 * it, and in *inlined the level inlined there that names it), from its
 * LuaJIT samples (a Lua frame tag), else its on-CPU samples, else its
 * running thread samples; 0 = none. */
uint64_t model_thread_top_user(const struct model *m, const struct thread *t,
			       enum model_window window, uint32_t now_sec, unsigned *inlined);
/* Whether thread t has traced data in window (it gets a row without samples). */
bool trace_thread_active(const struct thread *t, enum model_window window);

/* model_io.c: TT_EV_IO_STATS, kept per thread, device and direction. */
void model_io_ingest(struct model *m, const struct tt_io_stats *io);
/* model_traced.c: the record's requests by the stacks that made them. */
void trace_io_stacks_add(struct model *m, const struct tt_io_stats *io);
void model_io_end_interval(struct model *m);
size_t model_io_bytes(const struct model *m);
void model_io_free(struct model *m);

/* Sum of a minute ring's slots still inside the last minute before now_sec. */
uint64_t ring_sum_u16(const uint16_t *ring, uint32_t ring_sec, uint32_t now_sec);
uint64_t ring_sum_u32(const uint32_t *ring, uint32_t ring_sec, uint32_t now_sec);

/*
 * Selection (model_select.c). Whether thread t, and one of its sample keys,
 * pass filter f (NULL passes all); the samples of t's key i in window.
 */
/* Counts t into model__now's figures (repeats flushed first). */
void model_now_add(const struct model *m, const struct thread *t, struct model_now *now);
bool model_filter_thread(const struct model *m, const struct model_filter *f,
			 const struct thread *t);
bool model_filter_key(const struct model *m, const struct model_filter *f,
		      const struct sample_key *k);
uint64_t model_key_samples(const struct model *m, const struct thread *t, size_t i,
			   enum model_window window, uint32_t now_sec);

/* model_age.c: ids of a newly ingested stack; at an interval's end, what ages out. */
void model_age_stack_seen(struct model *m, uint32_t id);
void model_age_end_interval(struct model *m, uint64_t now_ns);

/* Processes and the box (model_procs.c). */
void model_procs_ingest(struct model *m, const struct tt_event_header *ev);
void model_procs_end_interval(struct model *m, uint64_t now_ns);
void model_procs_free(struct model *m);
/* Calls add with each string id the process records name (their users). */
void model_procs_strings(const struct model *m, void (*add)(void *arg, uint32_t id), void *arg);

/* Application labels (model_labels.c). */
void model_labels_ingest(struct model *m, const struct tt_event_header *ev);
void model_labels_free(struct model *m);
/*
 * The labels id of a sample of t carrying labels_hash hash: 0 for 0; t's
 * current labels when the hash was never seen (its record was dropped).
 */
uint32_t model_labels_of_hash(const struct model *m, const struct thread *t, uint32_t hash);

#endif /* THREADTOP_MODEL_INTERNAL_H */
