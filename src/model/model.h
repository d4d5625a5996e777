/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model: all state threadtop knows, built from event records only. It
 * keeps a thread table keyed by tid (a reused tid with a new start time is a
 * new thread; threads not seen for the retention time age out), per-thread
 * sample counters in three windows (this interval, last minute, whole
 * session), and the string and stack dictionaries. Views ask it queries:
 * group by dimensions, filter, sort. No ncurses and no output formats here.
 */
#ifndef THREADTOP_MODEL_H
#define THREADTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"

struct model;
struct use_model;
struct lj_model;

struct model_opts {
	uint64_t retain_ns; /* forget threads unseen this long (default 60 s) */
};

enum model_window {
	WIN_INTERVAL, /* since the last model__end_interval */
	WIN_MINUTE,   /* the last 60 seconds */
	WIN_SESSION,  /* since the first event */
	WIN_LAST,     /* the last complete interval (empty until one ended) */
	WIN_MAX,
};

/* Dimensions a query groups by (bits of model_query.dims). */
enum model_dim {
	DIM_PID,
	DIM_TID,
	DIM_COMM,
	DIM_STATE,
	DIM_SYSCALL,
	DIM_WCHAN,
	DIM_CGROUP,
	DIM_KLEAF,     /* leaf frame of the kernel stack (address) */
	DIM_ULEAF,     /* leaf frame of the user stack (address) */
	DIM_LABELS,    /* the thread's application labels (--label), all slots together */
	DIM_FD_TARGET, /* what the fd argument of the syscall names (a path, a socket, ...) */
	DIM_MAX,
};

#define DIM_BIT(d) (1u << (d))

/*
 * The states that are not "active": asleep (S), idle or parked kernel
 * threads (I, P), and threads that cannot run at all: stopped by a signal
 * or a tracer (T, t), zombies and the dead (Z, X). A zombie's last syscall
 * or a SIGSTOPped thread's last state is stale, so neither may count as
 * load (xtop and ASH count on-CPU, runnable and disk-wait threads only).
 */
#define MODEL_IDLE_STATES                                                                          \
	((1u << TT_ST_S) | (1u << TT_ST_I) | (1u << TT_ST_P) | (1u << TT_ST_T) | (1u << TT_ST_t) | \
	 (1u << TT_ST_Z) | (1u << TT_ST_X))

/* Whether samples in state s count as active (see MODEL_IDLE_STATES). */
static inline bool model_state_active(unsigned s)
{
	return s < TT_ST_MAX && !(MODEL_IDLE_STATES & (1u << s));
}
#define MODEL_ANY_SYSCALL (-2)
#define MODEL_NO_LABELS UINT32_MAX /* model_filter.labels_id: samples without labels */

struct model_filter {
	uint32_t pid;		 /* 0 = any */
	uint32_t tid;		 /* 0 = any */
	uint32_t state_mask;	 /* bits (1u << tt_state); 0 = any */
	int syscall;		 /* MODEL_ANY_SYSCALL = any; TT_SYSCALL_NONE = none */
	uint32_t wchan_id;	 /* 0 = any */
	uint32_t target_id;	 /* 0 = any: a string id of an fd target (DIM_FD_TARGET) */
	const char *comm_substr; /* NULL = any */
	uint64_t cgroup_id;	 /* 0 = any */
	uint64_t stack_ip;	 /* 0 = any; else a stack holds it (model__stack_holds) */
	uint32_t labels_id;	 /* 0 = any; a labels id (model__labels); MODEL_NO_LABELS */
	bool hide_kthreads;
	bool hide_user_threads;
};

enum model_sort {
	SORT_ACTIVE, /* average active threads, the default */
	SORT_SAMPLES,
	SORT_CPU,
	SORT_PID,
	SORT_TID,
	SORT_COMM,
	SORT_STATE,
	SORT_SYSCALL,
	SORT_NONE, /* no set order, for callers that sort the rows their own way (no time spent) */
	SORT_MAX,
};

struct model_query {
	enum model_window window;
	unsigned dims; /* DIM_BIT()s; 0 = a single total row */
	struct model_filter filter;
	enum model_sort sort; /* descending for figures, ascending for keys */
	bool reverse;
	size_t limit; /* 0 = all rows */
};

/* Initialises q to "per thread, this interval, all, by activity". */
void model_query_init(struct model_query *q);

/*
 * A result row. Key fields not in the query's dims are 0/NULL, except that
 * rows grouped by tid or pid also carry pid, comm and cmdline for display.
 * Strings are owned by the model: valid until the next ingest or interval end.
 */
struct model_row {
	uint32_t pid;
	uint32_t tid;
	const char *comm;
	const char *cmdline; /* NULL when unknown */
	uint8_t state;	     /* enum tt_state, with DIM_STATE */
	int syscall;	     /* with DIM_SYSCALL; TT_SYSCALL_NONE when not in one */
	uint32_t wchan_id;
	const char *wchan;  /* NULL when none */
	uint32_t target_id; /* with DIM_FD_TARGET: string id of the fd target, 0 = none */
	const char *target; /* its text (raw: escape it), NULL when none */
	uint64_t cgroup_id;
	/* With DIM_KLEAF / DIM_ULEAF: rows group by the leaf's function, the
	 * innermost one inlined there (its address when no symbol covers it);
	 * this is one address of it, of process leaf_pid (to name it), and the
	 * inlined level there that is it (as top_uinlined). 0 when no such stack. */
	uint64_t kleaf_ip;
	uint64_t uleaf_ip;
	unsigned kleaf_inlined, uleaf_inlined;
	uint32_t leaf_pid;
	uint32_t labels_id; /* with DIM_LABELS: see model__labels; 0 = no labels */
	bool kthread;
	uint32_t cmdline_id; /* string id of cmdline (stays valid while the model lives) */
	/* Rows grouped by pid or tid: their process (model__proc), when known. */
	bool proc_known;
	uint32_t ppid, uid;
	uint32_t user_id; /* string id of the user's name, 0 = none */
	int nice;
	uint64_t rss_bytes;
	uint64_t
		cpu_total_ns; /* TIME+: CPU time so far (a process's, when known, else its threads') */

	/* The thread's latest sample (rows grouped by tid only). */
	uint8_t cur_state;
	int cur_syscall;
	uint32_t cur_wchan_id;
	uint32_t cur_target_id; /* string id of its syscall's fd target, 0 = none */
	uint32_t cur_kstack_id;
	uint32_t cur_ustack_id;
	/* Its hottest user function over the window (one address of it), when it
	 * runs or waits for a CPU now, as perf top names it (a LuaJIT thread's:
	 * its hottest Lua function, a Lua frame tag); 0 otherwise or unknown.
	 * top_uinlined: the function inlined there that it is (frame_name's
	 * inlined[top_uinlined - 1]); 0 = the symbol's own. */
	uint64_t top_uip;
	unsigned top_uinlined;

	uint64_t samples;
	uint64_t state_samples[TT_ST_MAX];
	double avg_active;  /* active samples (model_state_active), times weight, per second */
	double avg_threads; /* all samples, times weight, per second */
	double cpu_pct;	    /* CPU time / window, 100 = one CPU (see cpu_valid) */
	uint32_t nr_threads;
};

struct model_result {
	struct model_row *rows;
	size_t nr;
	size_t cap; /* rows allocated (model__query_into fills them again) */
	double window_s;
	uint64_t total_samples;
	/*
	 * Sums over all the rows, as a loop over them would make them (before
	 * q->limit): the header's totals without another pass over 100,000
	 * rows.
	 */
	uint64_t total_states[TT_ST_MAX];
	double total_cpu_pct, total_active;
	/*
	 * cpu_pct means CPU: the dims are thread-level (pid/tid/comm/cgroup),
	 * the threads' CPU time; or application labels with thread-level dims
	 * and on-CPU samples (BPF), the CPU of the samples with those labels.
	 */
	bool cpu_valid;
};

/* Runs q. Returns 0 or a negative errno; free the result with model_result__release. */
int model__query(struct model *m, const struct model_query *q, struct model_result *ret);
/*
 * The same into the rows of res, an earlier result (or zeroed): a refresh
 * of 100,000 threads fills 30 MB it already has, not fresh pages. On
 * error res is as it was.
 */
int model__query_into(struct model *m, const struct model_query *q, struct model_result *res);
struct model_now;
/*
 * model__query_into, and model__now's figures into *now in the same walk:
 * beside 100,000 threads a walk of them all is a few ms.
 */
int model__query_into_now(struct model *m, const struct model_query *q, struct model_result *res,
			  struct model_now *now);
void model_result__release(struct model_result *res);

struct model_syscall_count {
	int nr;
	uint64_t samples;
};
/* Per-syscall sample counts of thread tid in window, largest first; *ret
 * is allocated (free it). Returns the count of entries or negative errno. */
int model__thread_syscalls(struct model *m, uint32_t tid, enum model_window window,
			   struct model_syscall_count **ret);

struct model_stack_count {
	uint32_t kstack_id; /* 0 = no kernel stack */
	uint32_t ustack_id; /* 0 = no user stack */
	uint64_t samples;   /* on-CPU: samples of the CPU clock's period (model__oncpu_stacks) */
	/*
	 * The time they stand for: what shares are of (the call tree's, hot
	 * functions' weight); 0 = not known, the samples weigh then (give it
	 * for all pairs of a set or for none).
	 */
	uint64_t ns;
	uint32_t pid;		/* the process sampled, 0 = unknown */
	char comm[TT_COMM_LEN]; /* its name (its main thread's comm), a copy */
};
/*
 * Samples per distinct (kernel stack, user stack, process) among the samples q's
 * window and filter accept (q's dims, sort and limit are ignored), with the
 * time they stand for (ns: samples x the window's sample weight). *ret is
 * allocated (free it); *ret_total gets all accepted samples, with or without
 * stacks. Returns the count of pairs or a negative errno.
 */
int model__stack_samples(struct model *m, const struct model_query *q,
			 struct model_stack_count **ret, uint64_t *ret_total);
/* The same, leaving out the threads whose tid is a key of skip_tids (NULL = none). */
struct u64map;
int model__stack_samples_except(struct model *m, const struct model_query *q,
				const struct u64map *skip_tids, struct model_stack_count **ret,
				uint64_t *ret_total);

/*
 * A set of stack counts being merged: one entry per (kernel stack, user
 * stack, pid), as model__stack_samples returns them. Zero it, add, then
 * take out (owned by the caller: free it) and call done.
 */
struct model_stack_counts {
	struct model_stack_count *out;
	size_t nr, cap;
	/* Open addressing over the triple's hash: index + 1 into out, 0 = free;
	 * slots a power of two, at least twice nr (made at the first add). */
	uint32_t *slots;
	size_t nr_slots;
};
/* Adds samples and ns to the entry of (kstack_id, ustack_id, pid), made with comm (NULL = "")
 * if new. */
void model_stack_counts__add(struct model_stack_counts *s, uint32_t kstack_id, uint32_t ustack_id,
			     uint32_t pid, const char *comm, uint64_t samples, uint64_t ns);
/* The weight of c in shares: its ns, or its samples when it has no time. */
static inline uint64_t model_stack_count_weight(const struct model_stack_count *c)
{
	return c->ns ? c->ns : c->samples;
}
/* Frees the index (not out). */
void model_stack_counts__done(struct model_stack_counts *s);

struct model *model__new(const struct model_opts *opts);
void model__free(struct model *m);
/* Forgets everything, as if new (a replay's jump); pointers to m stay valid. */
void model__reset(struct model *m);

/* Takes one record (already validated). Unknown types are counted and ignored. */
void model__ingest(struct model *m, const struct tt_event_header *ev);
/* Moves the model's clock to now_ns (wall time of the loop); the first call
 * also starts the session and the interval. Windows end at this clock. */
void model__advance(struct model *m, uint64_t now_ns);
/* Closes the interval at now_ns: interval counters restart, old threads age out. */
void model__end_interval(struct model *m, uint64_t now_ns);

/*
 * Drop reasons: those of events.h, then the model's own (not in tt_drops
 * records, whose layout recordings fix).
 */
enum {
	MODEL_DROP_DICT_FULL = TT_DROP_MAX, /* a dictionary entry past the budget (dict_budget.h) */
	MODEL_DROP_MAX,
};

struct model_stats {
	uint64_t now_ns; /* time of the latest event */
	uint64_t interval_start_ns;
	uint64_t session_start_ns;
	uint64_t intervals;	 /* completed intervals, session */
	uint32_t weight_us;	 /* sampling period of thread samples */
	size_t nr_threads;	 /* in the table now */
	uint64_t events;	 /* ingested, session */
	uint64_t ticks;		 /* sampling passes, session */
	uint64_t tick_cost_ns;	 /* what those passes cost, session */
	uint64_t ticks_interval; /* sampling passes, this interval */
	uint64_t tick_cost_interval_ns;
	uint64_t drops_interval[MODEL_DROP_MAX];
	uint64_t drops_session[MODEL_DROP_MAX];
};
void model__stats(const struct model *m, struct model_stats *ret);

/*
 * What the model holds, per structure, for the memory figures (issue 21:
 * what each costs per thread, per stack, per process and what ages out).
 * Bytes are the heap blocks' sizes (what was asked of malloc, not its own
 * overhead) plus each map's slots.
 */
struct model_mem {
	size_t threads, exited;	    /* in the table; of them not seen by the latest pass */
	size_t thread_bytes;	    /* struct thread, key counts and minute rings, traced data */
	size_t keys;		    /* sample keys of all threads */
	size_t stacks, stack_bytes; /* the stack dictionary */
	size_t user_stacks;	    /* of them of a process (pid != 0) */
	size_t dead_stacks;	    /* of them of a process with no thread in the table */
	uint64_t stacks_aged;	    /* stacks forgotten so far (model_age.c), session */
	size_t strings, string_bytes;
	uint64_t strings_aged; /* retired strings forgotten so far (model_age.c), session */
	size_t procs;	       /* process records */
};
/* Walks every table: for a debug dump, not for every interval. */
void model__mem(const struct model *m, struct model_mem *ret);

/* The USE metrics and verdict (use_model.h). Owned by the model. */
struct use_model *model__use(struct model *m);
/* The LuaJIT VM states and functions (lj_model.h). Owned by the model. */
struct lj_model *model__luajit(struct model *m);

/* Dictionary look-ups; NULL when unknown. Owned by the model. */
const char *model__string(const struct model *m, uint32_t id);
const struct tt_stack *model__stack(const struct model *m, uint32_t id);
/*
 * Whether stack id holds the frame at ip: that address, or, with a frame
 * namer, another address of the same function (name and module, as the
 * profile and the call tree merge frames), so that drilling down into a
 * frame keeps every sample the frame stood for. A Lua frame tag matches
 * the tags of the functions called the same now (lj_model__frame_same).
 * false when the stack is unknown.
 */
bool model__stack_holds(const struct model *m, uint32_t id, uint64_t ip);
/* The leaf frame's address of stack id; 0 when m is NULL or the stack unknown or empty. */
uint64_t model__stack_leaf(const struct model *m, uint32_t id);

/*
 * Stack frame names (model_frames.c). The model does not symbolize: it hands
 * frames to the namer set here (the symbolizer on a live run; none in a
 * replay, whose addresses belong to another machine), lazily, at query time.
 * namer must outlive the model or be unset (NULL) first.
 */
/*
 * The memory budget of the model's dictionaries (strings, stacks, LuaJIT
 * names): past it new entries are dropped, counted as MODEL_DROP_DICT_FULL
 * (with every other user of b), and unknown ids of strings read "[dropped]".
 * Not owned: b must outlive the model. NULL (the default): no bound.
 */
struct dict_budget;
void model__set_budget(struct model *m, struct dict_budget *b);

struct frame_namer;
struct frame_name;
void model__set_frame_namer(struct model *m, const struct frame_namer *namer);
/* The namer set, or NULL (then frames are addresses). */
const struct frame_namer *model__frame_namer(const struct model *m);
/*
 * For caches of what frames are named (hotfuncs_cache): the namer now names
 * some frame otherwise than before (kallsyms is in); model__names_gen counts
 * these calls and the namers set. model__stacks_gone counts the stacks
 * removed (aged) or replaced under their id: while it holds, every stack id
 * model__stack answered still holds the same frames.
 */
void model__names_changed(struct model *m);
uint64_t model__names_gen(const struct model *m);
uint64_t model__stacks_gone(const struct model *m);
/*
 * What leaves threadtop (exports, profiles served) is named by the exact
 * namer: the same names, but waiting for every source of names where the
 * frame namer (the TUI's at start-up) shows a placeholder while one is still
 * being read. model__exact_namer returns the frame namer when none is set.
 */
void model__set_exact_namer(struct model *m, const struct frame_namer *namer);
const struct frame_namer *model__exact_namer(const struct model *m);
/* Names one frame of process pid (ignored for kernel frames); never fails:
 * without a namer or a name, "0xADDR". Strings live until the next call. */
void model__frame_name(const struct model *m, uint32_t pid, uint64_t addr, bool kernel,
		       struct frame_name *ret);
/*
 * The identity of the function at addr (inlined level: 0 the frame's own
 * function, k its k-th inlined one): a hash of its name and module as
 * model__frame_name names them, never 0 for addr != 0; so a frame no symbol
 * covers ("module+0xoff", "0xADDR") is its own. Without a namer, addr (and
 * level). Equal identities are one function for trees and groups.
 */
uint64_t model__frame_function(const struct model *m, uint32_t pid, uint64_t addr, bool kernel,
			       unsigned level);

/*
 * Whether a kernel frame named name is threadtop's own tracing (the
 * off-CPU tracer's BPF program and the tracepoint glue above __schedule):
 * every view cuts such frames off the leaf of kernel stacks (the BPF side
 * does when it knows __schedule's address; older recordings hold them).
 */
bool model__frame_is_tracer(const char *name);

/*
 * Cgroup names (model_frames.c): as with frames, a live run sets a namer
 * (cgroup ids to container, pod or unit names, cgroup_names.h) and a
 * replay has none. name fills buf and returns 0, or a negative errno when
 * it does not know id. namer must outlive the model or be unset first.
 */
struct cgroup_namer {
	int (*name)(void *ctx, uint64_t id, char *buf, size_t len);
	void *ctx;
};
void model__set_cgroup_namer(struct model *m, const struct cgroup_namer *namer);
/* The name of cgroup id, or NULL when unknown (or no namer). Lives until the next call. */
const char *model__cgroup_name(const struct model *m, uint64_t id);
/* The cgroup of thread tid as last sampled, 0 when unknown. */
uint64_t model__thread_cgroup(const struct model *m, uint32_t tid);

/*
 * Processes and the box (model_procs.c), from TT_EV_PROC_INFO and
 * TT_EV_HOST_STATS records: false when no record told (a recording made
 * before them, a source that does not send them).
 */
struct model_proc {
	uint32_t ppid, uid;
	uint32_t user_id; /* string id of the user's name, 0 = none */
	int nice;
	uint32_t nr_threads;
	uint64_t rss_bytes;
	uint64_t cpu_time_ns; /* the whole process, exited threads included */
};
bool model__proc(const struct model *m, uint32_t pid, struct model_proc *ret);
bool model__host(const struct model *m, struct tt_host_stats *ret);

/* The threads the latest sampling pass saw (alive now, not kept by retention), by state. */
struct model_now {
	uint64_t pass_ns; /* the time of that pass's tick, 0 before the first */
	size_t alive;
	uint32_t states[TT_ST_MAX]; /* their latest state */
};
void model__now(struct model *m, struct model_now *ret);
/*
 * The box in one walk of the threads: the unfiltered query of window with
 * no dims (one row, every thread's samples and CPU) into *ret, and
 * model__now's figures into *now. What a header needs, for the cost of
 * one of the two.
 */
int model__box(struct model *m, enum model_window window, struct model_result *ret,
	       struct model_now *now);

/*
 * Puts per-process rows (DIM_PID) in process tree order: each process
 * followed by its children (model__proc's ppid), siblings in the order the
 * rows had. ret_depth and ret_last (nr entries each) get each row's depth
 * (at most MODEL_TREE_MAX_DEPTH) and whether it is its parent's last child.
 * Returns 0.
 */
#define MODEL_TREE_MAX_DEPTH 32
int model_rows_tree(const struct model *m, struct model_row *rows, size_t nr, uint8_t *ret_depth,
		    uint8_t *ret_last);

/* Window length in seconds as a query on it would use. */
double model__window_seconds(const struct model *m, enum model_window window);

/*
 * The sampling clock over a window: what was asked, what the source keeps,
 * what was really taken. A thread sample stands for weight_s (the window's
 * length over the passes taken in it), so avg_active = active samples x
 * weight_s / window_s is the active share of the passes, whatever the load.
 */
struct model_rate {
	double hz_asked;    /* -F; from the latest pass */
	double hz_target;   /* what the source keeps: hz_asked, lower when it lowered its rate */
	double hz_achieved; /* passes taken / window length */
	uint64_t ticks;	    /* passes taken in the window */
	uint64_t missed;    /* ticks of the asked schedule not taken in the window */
	double window_s;
	double weight_s; /* the time one thread sample stands for */
};
/* Fills *ret for window. Returns 0 or -EINVAL for an unknown window. */
int model__rate(const struct model *m, enum model_window window, struct model_rate *ret);
/* model__rate's weight_s alone (0 for an unknown window). */
double model__sample_weight_s(const struct model *m, enum model_window window);

/*
 * Traced data (BPF source): on-CPU samples, exact syscall figures, off-CPU
 * time, BPF program cost. Queries take WIN_INTERVAL, WIN_LAST or WIN_SESSION;
 * the minute window is kept for the on-CPU and off-CPU stacks only (others:
 * -EOPNOTSUPP). Arrays returned in *ret
 * are allocated (free them); strings in them are owned by the model and
 * valid until the next ingest or interval end.
 */
#define MODEL_TRACED_ONCPU (1u << 0)	 /* on-CPU samples arrived */
#define MODEL_TRACED_SYSCALLS (1u << 1)	 /* exact syscall figures arrived (--syscalls) */
#define MODEL_TRACED_OFFCPU (1u << 2)	 /* off-CPU time arrived (--offcpu) */
#define MODEL_TRACED_PROGS (1u << 3)	 /* BPF program statistics arrived */
#define MODEL_TRACED_IO (1u << 4)	 /* block I/O requests arrived (--io) */
#define MODEL_TRACED_IO_STACKS (1u << 5) /* ... with the stacks that made them */
/* MODEL_TRACED_* of the data seen this session. */
unsigned model__traced(const struct model *m);

/* One thread with one (kernel, user) stack pair: on-CPU samples or off-CPU time. */
struct model_stack_row {
	uint32_t pid;
	uint32_t tid;
	const char *comm;
	const char *pcomm;  /* the process's name (its main thread's comm); NULL = comm */
	uint32_t kstack_id; /* model__stack ids, 0 = none */
	uint32_t ustack_id;
	uint64_t value; /* on-CPU: samples; off-CPU and block I/O: ns */
	uint64_t count; /* on-CPU: samples; off-CPU: switches; block I/O: requests */
	uint64_t bytes; /* block I/O: the requests' bytes; else 0 */
	/* model__oncpu_stacks: the CPU time it stands for, and the samples its own
	 * sampler took (value and count are samples of the CPU clock's period); else 0. */
	uint64_t ns, taken;
	/*
	 * The thread's application labels (model__labels) when sampled or when
	 * it blocked, 0 = none; labels_known is false for LuaJIT rows and for
	 * recordings of a threadtop whose CPU samples had no labels.
	 */
	uint32_t labels_id;
	bool labels_known;
};
/* Whether row r passes the labels part of filter f (labels_id; unknown labels never do). */
bool model__stack_row_labels_pass(const struct model_filter *f, const struct model_stack_row *r);
/* On-CPU samples per thread and stacks, most first. Returns the count or -errno. */
int model__oncpu(struct model *m, enum model_window window, struct model_stack_row **ret);
/*
 * LuaJIT samples as on-CPU stacks: one row per LuaJIT thread and distinct
 * (host stack, Lua frames) pair of window, value and count in samples, its
 * ustack_id a stack stitched from both (lj_stitch.h: Lua frames replace the
 * interpreter's frames; Lua functions are frame tags, lj_model.h), made at
 * the first query and kept in the stack dictionary with ids of their own
 * space (TT_LJ_STACK_ID_BASE, events.h); once it is used up a new one goes
 * without (ustack_id 0, counted as a dedup_full drop). Returns the count or
 * -errno.
 */
int model__luajit_stacks(struct model *m, enum model_window window, struct model_stack_row **ret);
/*
 * The on-CPU stacks of window as every view counts them (profile, call
 * tree, hot functions): LuaJIT threads' sysprof rows (model__luajit_stacks)
 * and, with cpu_clock, the CPU-clock sampler's rows (model__oncpu) of the
 * other threads; the tids of the LuaJIT threads of window go into lj_tids
 * (NULL = not wanted) as keys, for the views to leave out their other
 * stacks. Weighed by time: a row's ns is each of its samples times its
 * sampler's period, period_ns for the CPU clock, its thread's interval for
 * a LuaJIT sample; where the CPU clock also sampled a LuaJIT thread in
 * window (cpu_clock), its rows share out that time in proportion to theirs,
 * so that threads compare on one clock. Counts stay samples of period_ns: a LuaJIT row's value
 * and count are model__period_samples(ns, period_ns); the CPU clock's as
 * they were. LuaJIT rows come first. Returns the count or -errno.
 */
int model__oncpu_stacks(struct model *m, enum model_window window, uint64_t period_ns,
			bool cpu_clock, struct u64map *lj_tids, struct model_stack_row **ret);
/*
 * ns of on-CPU time in samples of period_ns: rounded to the nearest, and at
 * least 1 when ns is not 0 (what a count of a stack of LuaJIT samples, each
 * its thread's interval, reads as: off by at most one sample per stack).
 */
uint64_t model__period_samples(uint64_t ns, uint64_t period_ns);
/* The CPU clock's period at cpu_hz (--cpu-hz; 0: the default 99 Hz), as exports weigh its samples. */
static inline uint64_t model_cpu_period_ns(unsigned cpu_hz)
{
	return 1000000000ull / (cpu_hz ? cpu_hz : 99);
}
/* Off-CPU (blocked) time per thread and stacks, most first. Count or -errno. */
int model__offcpu(struct model *m, enum model_window window, struct model_stack_row **ret);
/*
 * Block I/O requests (--io) per thread and the stacks that made them, most
 * time first: value the time from making to completion, count the
 * requests, bytes their size. Count or -errno.
 */
int model__io_stacks(struct model *m, enum model_window window, struct model_stack_row **ret);

struct model_syscall_stat {
	int nr;
	uint64_t count;
	uint64_t total_ns;
	uint64_t hist[TT_SYSCALL_HIST_BUCKETS]; /* log2 ns buckets, as in tt_syscall_stats */
};
/* Exact syscall figures of thread tid, most time first. Count or -errno. */
int model__thread_syscall_stats(struct model *m, uint32_t tid, enum model_window window,
				struct model_syscall_stat **ret);

/* Block I/O requests of one thread, device and direction (--io, model_io.c). */
struct model_io_row {
	uint32_t pid, tid; /* the thread that made the requests (bpf/io.bpf.c) */
	uint32_t major, minor;
	unsigned op;	  /* enum tt_io_op */
	bool other;	  /* threads past the model's bound, together (comm "(other)") */
	const char *comm; /* owned by the model, valid until the next ingest */
	const char *disk; /* the device's name, "" when unknown; likewise */
	uint64_t count, bytes, total_ns, queue_ns, errors; /* queue_ns: of total_ns, before issue */
	uint64_t io_worker;		   /* of count, made by an io_uring worker for the thread */
	uint64_t hist[TT_IO_HIST_BUCKETS]; /* log2 ns buckets, as in tt_io_stats */
};
/*
 * The rows with requests in window, most requests first; *ret is the
 * caller's to free. Count or -errno (-EOPNOTSUPP: the minute, not kept).
 */
int model__io(struct model *m, enum model_window window, struct model_io_row **ret);
/*
 * The latency below which pct percent of a log2 histogram's nr buckets
 * fall, as the upper bound of the bucket it falls in (2^(b+1) ns); 0 when
 * empty.
 */
uint64_t model_log2_percentile(const uint64_t *hist, int nr, double pct);

/* The block request a thread in D waits on (--io): that of its latest sample. */
struct model_io_wait {
	uint32_t major, minor;
	const char *disk; /* as /sys named it live, "" when it did not; the model's */
	enum tt_io_op op;
	bool issued; /* issued to the driver, else queued in the block layer */
	uint64_t bytes;
	uint64_t age_ns; /* since it was made, to the thread's latest sample or repeat */
};

/* What thread tid, in D now, waits on (--io): 0, or -ENOENT (not in D, or none known). */
int model__thread_io_wait(const struct model *m, uint32_t tid, struct model_io_wait *ret);
/* "read", "write" or "other" (enum tt_io_op). */
const char *model_io_op_name(unsigned op);

/* Run-queue waits of thread tid (--offcpu): 0 or -errno (-ENOENT: none). */
int model__thread_runq(struct model *m, uint32_t tid, enum model_window window, uint64_t *ret_count,
		       uint64_t *ret_total_ns);

struct model_prog_stat {
	const char *name;
	uint64_t run_cnt;
	uint64_t run_time_ns;
	uint64_t recursion_misses;
};
/* Cost of each BPF program, in the order first seen. Count or -errno. */
int model__prog_stats(struct model *m, enum model_window window, struct model_prog_stat **ret);

/* "vanished", "ringbuf_full", ...: the JSON key of a drop reason. */
const char *model_drop_name(unsigned reason);

/*
 * Application labels (--label). A labels id names one combination of label
 * values. model__labels fills names[] and values[] (TT_LABEL_SLOTS entries,
 * NULL where a slot is unset or unnamed) and returns how many are set;
 * strings are owned by the model. model__thread_labels gives a thread's
 * current combination, 0 when it has none or is unknown.
 */
int model__labels(const struct model *m, uint32_t labels_id, const char **names,
		  const char **values);
uint32_t model__thread_labels(const struct model *m, uint32_t tid);
/* The name of label slot i, or NULL when no label has that slot. */
const char *model__label_name(const struct model *m, unsigned slot);

#endif /* THREADTOP_MODEL_H */
