/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A profile: the model's stack samples in one window, with frames named,
 * in the neutral shape every exporter renders (folded, pprof, speedscope,
 * JSON, SVG). Built once per export, so all formats of one snapshot agree.
 *
 * Kinds of samples: "threads" (the thread sampler: every thread at every
 * tick, whatever its state, with the kernel stack of sleepers), "oncpu"
 * (the CPU-clock sampler), "offcpu" (exact blocked time, --offcpu) and "io"
 * (block I/O requests by the stacks that made them, --io).
 * LuaJIT threads' on-CPU samples are their sysprof samples, with Lua frames
 * stitched into the C stack (model__luajit_stacks), instead of the CPU-clock
 * sampler's.
 */
#ifndef THREADTOP_PROFILE_H
#define THREADTOP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/frame_namer.h"
#include "model.h"

enum profile_kind {
	PROFILE_THREADS = 0,
	PROFILE_ONCPU,
	PROFILE_OFFCPU,
	PROFILE_IO,
	PROFILE_KIND_MAX,
};

/* "threads", "oncpu", "offcpu", "io". */
const char *profile_kind_name(enum profile_kind kind);

#define PROFILE_FRAME_KERNEL (1u << 0) /* a kernel function */
#define PROFILE_FRAME_SYNTH (1u << 1)  /* made up by threadtop: "[running]", "[unknown]" */
#define PROFILE_FRAME_LUA (1u << 2)    /* a Lua function of a LuaJIT stack (module "[lua]") */
/* A function the compiler inlined into the frame before it (root first):
 * the code at one address shows as its function and the ones inlined
 * there (frame_name.inlined), as perf report --inline does. */
#define PROFILE_FRAME_INLINED (1u << 3)

/*
 * How one-line renderings (folded stacks, batch NDJSON frames) mark a frame
 * of these PROFILE_FRAME_* flags: "_[k]" kernel, "_[lua]" Lua, then
 * " [inlined]"; "" for none. A static string.
 */
const char *profile_frame_suffix(unsigned flags);

struct profile_frame {
	const char *name;     /* raw bytes as named; exporters escape */
	const char *module;   /* NULL when unknown */
	const char *build_id; /* the module's GNU build-id in hex; NULL when unknown */
	uint64_t addr;	      /* first address seen with this name; 0 when synthetic */
	unsigned flags;	      /* PROFILE_FRAME_* */
	/* The mapping addr lies in (frame_name.path ...): full path, NULL when
	 * unknown; range and file offset of its start. */
	const char *path;
	uint64_t map_start, map_limit, map_offset;
	const char *src_file; /* DWARF source line at addr; NULL, 0 when unknown */
	unsigned src_line;
};

struct profile_sample {
	enum profile_kind kind;
	uint32_t pid;
	uint32_t tid;
	const char *comm;	/* thread name */
	const char *pcomm;	/* process name */
	uint8_t state;		/* enum tt_state; TT_ST_UNKNOWN when the kind has none */
	int32_t syscall;	/* TT_SYSCALL_NONE when none or unknown */
	uint32_t labels_id;	/* application labels (model__labels), 0 = none */
	bool labels_unknown;	/* the sample carries no labels (LuaJIT, older recordings) */
	uint64_t cgroup_id;	/* the thread's cgroup (model__cgroup_name), 0 = unknown */
	const uint32_t *frames; /* indices into profile.frames, root first, at least one */
	uint32_t nr_frames;
	/*
	 * Samples (threads), context switches (offcpu) or requests (io); on-CPU, samples of
	 * the CPU clock's period (cpu_period_ns): a LuaJIT sample weighs its
	 * interval, so its stack counts model__period_samples(ns) of them.
	 */
	uint64_t count;
	uint64_t taken; /* samples as its own sampler took them (a LuaJIT stack: sysprof's) */
	uint64_t ns;	/* the time it stands for: samples x their period, off-CPU time, or
			 * the requests' time from making to completion (io) */
	uint64_t bytes; /* io: the requests' bytes; else 0 */
	uint32_t kstack_id, ustack_id; /* the model's stacks it was made of (0 = none) */
};

/*
 * One on-CPU sample at its time (model_timed.h), for time-ordered views
 * (speedscope's evented profiles): it stands for ns of the stack of that
 * sample: an equal share, samples[sample].ns / samples[sample].taken, the
 * remainder a nanosecond each to the first, so a stack's add up to its ns.
 */
struct profile_timed {
	uint64_t time_ns; /* CLOCK_MONOTONIC, as recorded */
	uint64_t ns;	  /* the time it stands for */
	uint32_t sample;  /* index into profile.samples */
};

struct profile {
	struct profile_frame *frames;
	size_t nr_frames;
	struct profile_sample *samples; /* by kind, then pid, tid, most first */
	size_t nr_samples;
	unsigned kinds; /* bits (1u << kind) of the kinds this session can have */
	uint64_t total_count[PROFILE_KIND_MAX];
	uint64_t total_ns[PROFILE_KIND_MAX];
	uint32_t weight_us;	/* what a thread sample stands for: the period achieved */
	uint64_t cpu_period_ns; /* sampling period of on-CPU samples */
	uint64_t duration_ns;	/* length of the window */
	/*
	 * The on-CPU samples of the window with their times (profile_timed.c),
	 * by their sample's place in samples (so by kind, pid, tid), then time.
	 * Only as many as the model's ring kept: timed_complete says whether
	 * that is all of the window (the sum of the ns they stand for per
	 * thread is then the thread's on-CPU total). timed_start_ns: the
	 * window's start on the same clock.
	 */
	struct profile_timed *timed;
	size_t nr_timed;
	bool timed_complete;
	uint64_t timed_start_ns;
	char **strings_; /* internal: the strings the profile owns */
	size_t nr_strings_;
};

struct profile_opts {
	enum model_window window;
	const struct model_filter *filter; /* NULL = everything */
	const struct frame_namer *namer;   /* NULL = addresses */
	unsigned cpu_hz;		   /* on-CPU sampling rate (weight of a sample); 0 = 99 */
};

/*
 * What one-number renderings (folded stacks, flame graphs, hot functions)
 * weigh a sample by: the time of measured kinds (offcpu, io), the count of
 * sampled ones.
 */
static inline uint64_t profile_sample_weight(const struct profile_sample *s)
{
	return s->kind == PROFILE_OFFCPU || s->kind == PROFILE_IO ? s->ns : s->count;
}

/* Builds the profile of m as o says. Never NULL (allocation aborts). */
struct profile *profile__build(struct model *m, const struct profile_opts *o);
void profile__free(struct profile *p);

/*
 * Makes p (built over WIN_SESSION) the profile of the time since before was
 * built (over WIN_SESSION with the same filter, earlier; NULL = since the
 * session began): each sample loses what before had of it, samples left at
 * zero go, and only the kinds whose bits are in keep stay (p->kinds becomes
 * keep). profile_delta.c: --serve's /debug/pprof/...?seconds=N.
 */
void profile__subtract(struct profile *p, const struct profile *before, unsigned keep);

/*
 * profile_timed.c: fills p->timed from the model's ring for window, once
 * p->samples are sorted; LuaJIT threads (keys of lj_tids) take their
 * LuaJIT samples, not their CPU-clock ones, as p->samples do.
 */
struct u64map;
void profile_add_timed(struct model *m, struct profile *p, enum model_window window,
		       const struct u64map *lj_tids);

/* The kind exporters of one profile per file show first: on-CPU samples
 * when there are any, else thread samples. */
enum profile_kind profile__main_kind(const struct profile *p);

#endif /* THREADTOP_PROFILE_H */
