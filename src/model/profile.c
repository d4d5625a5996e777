// SPDX-License-Identifier: GPL-2.0-only
/*
 * Builds a profile from the model (see profile.h): each stack is turned
 * into named frames once (cached by stack id), equal frames are interned
 * into one table, and every sample gets its root-first frame list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "lj_model.h"
#include "model_stacks.h"
#include "profile.h"
#include "syscalls.h"
#include "u64map.h"
#include "util.h"

static const char *const kind_names[PROFILE_KIND_MAX] = {"threads", "oncpu", "offcpu", "io"};

const char *profile_kind_name(enum profile_kind kind)
{
	return kind < PROFILE_KIND_MAX ? kind_names[kind] : "unknown";
}

const char *profile_frame_suffix(unsigned flags)
{
	bool inl = flags & PROFILE_FRAME_INLINED;

	if (flags & PROFILE_FRAME_KERNEL)
		return inl ? "_[k] [inlined]" : "_[k]";
	if (flags & PROFILE_FRAME_LUA)
		return inl ? "_[lua] [inlined]" : "_[lua]";
	return inl ? " [inlined]" : "";
}

/* Frames of one stack, root first, as interned indices. */
struct stack_frames {
	uint32_t *idx;
	uint32_t nr;
	size_t cap;
};

struct builder {
	struct model *m;
	const struct profile_opts *o;
	struct profile *p;
	size_t cap_frames, cap_samples;
	struct u64map *frame_index;  /* hash of (name, module, flags) -> index + 1, probed */
	struct u64map *stack_frames; /* stack id -> struct stack_frames */
	struct u64map *strings;	     /* hash of a string -> owned copy, probed */
	struct u64map *pcomms;	     /* pid -> process name (interned) */
	struct u64map *lj_tids;	     /* LuaJIT threads of the window (tid -> 1) */
};

/* A copy of s owned by the profile, shared by every equal string. */
static const char *intern_string(struct builder *b, const char *s)
{
	uint64_t h;
	char *copy;

	if (!s)
		return NULL;
	h = hash_bytes(HASH_INIT, s, strlen(s));
	for (;; h++) {
		const char *have = u64map__get(b->strings, h);

		if (!have)
			break;
		if (!strcmp(have, s))
			return have;
	}
	copy = xstrdup(s);
	u64map__put(b->strings, h, copy);
	return copy;
}

static uint32_t intern_frame(struct builder *b, const char *name, const char *module, uint64_t addr,
			     unsigned flags)
{
	struct profile *p = b->p;
	uint64_t h = hash_bytes(HASH_INIT, name, strlen(name) + 1);
	size_t idx;

	if (module)
		h = hash_bytes(h, module, strlen(module));
	h = hash_bytes(h, &flags, sizeof(flags));
	for (;; h++) {
		idx = (size_t)(uintptr_t)u64map__get(b->frame_index, h);
		if (!idx)
			break;
		const struct profile_frame *f = &p->frames[idx - 1];

		if (f->flags == flags && !strcmp(f->name, name) &&
		    ((!f->module && !module) ||
		     (f->module && module && !strcmp(f->module, module))))
			return (uint32_t)(idx - 1);
	}
	xgrow((void **)&p->frames, &b->cap_frames, p->nr_frames + 1, sizeof(*p->frames));
	p->frames[p->nr_frames] = (struct profile_frame){
		.name = intern_string(b, name),
		.module = intern_string(b, module),
		.addr = addr,
		.flags = flags,
	};
	u64map__put(b->frame_index, h, (void *)(uintptr_t)(p->nr_frames + 1));
	return (uint32_t)p->nr_frames++;
}

/*
 * The mapping and source line of fr's first address (fn: its name there),
 * for pprof; with_line: the address's line is this function's (the
 * innermost of an inline chain).
 */
static void note_mapping(struct builder *b, struct profile_frame *fr, const struct frame_name *fn,
			 bool with_line)
{
	if (fr->path || fr->map_limit)
		return;
	fr->path = intern_string(b, fn->path);
	fr->map_start = fn->map_start;
	fr->map_limit = fn->map_limit;
	fr->map_offset = fn->map_offset;
	if (with_line && fn->src_file && fn->src_line) {
		fr->src_file = intern_string(b, fn->src_file);
		fr->src_line = fn->src_line;
	}
}

/*
 * Drops the leaf-side frames of threadtop's own tracing (the off-CPU
 * tracer's BPF program and the tracepoint glue above __schedule) from a
 * kernel stack: the BPF side cuts them when it knows __schedule's address,
 * recordings made before it did hold them.
 */
static void trim_tracer_frames(struct builder *b, struct stack_frames *sf)
{
	while (sf->nr > 1 && model__frame_is_tracer(b->p->frames[sf->idx[sf->nr - 1]].name))
		sf->nr--;
}

/* The frames of stack id, root first; an unknown id has none. */
static const struct stack_frames *frames_of(struct builder *b, uint32_t id)
{
	const struct tt_stack *st;
	struct stack_frames *sf;

	if (!id)
		return NULL;
	sf = u64map__get(b->stack_frames, id);
	if (sf)
		return sf;
	sf = xcalloc(1, sizeof(*sf));
	u64map__put(b->stack_frames, id, sf);
	st = model__stack(b->m, id);
	if (!st || !st->nr)
		return sf;
	bool kernel = st->flags & TT_STACK_KERNEL;

	xgrow((void **)&sf->idx, &sf->cap, st->nr, sizeof(*sf->idx));
	for (int i = st->nr - 1; i >= 0; i--) {
		bool lua = !kernel && lj_frame_is_lua(st->ips[i]);
		struct frame_name fn = {0}; /* a namer may fill only some fields */

		if (lua) /* named by the LuaJIT model, whatever the namer */
			model__frame_name(b->m, st->pid, st->ips[i], false, &fn);
		else
			frame_namer__name(b->o->namer, st->pid, st->ips[i], kernel, &fn);
		sf->idx[sf->nr++] = intern_frame(b, fn.name, fn.module, lua ? 0 : st->ips[i],
						 kernel ? PROFILE_FRAME_KERNEL
						 : lua	? PROFILE_FRAME_LUA
							: 0);
		/* The module's build-id, for pprof mappings (first frame of the module seen wins). */
		if (fn.build_id && !b->p->frames[sf->idx[sf->nr - 1]].build_id)
			b->p->frames[sf->idx[sf->nr - 1]].build_id = intern_string(b, fn.build_id);
		note_mapping(b, &b->p->frames[sf->idx[sf->nr - 1]], &fn, !fn.nr_inlined);
		/* Functions inlined at this address: callees of the frame, outermost first. */
		if (!lua && fn.nr_inlined && fn.inlined) {
			xgrow((void **)&sf->idx, &sf->cap, sf->nr + fn.nr_inlined + (size_t)i,
			      sizeof(*sf->idx));
			for (unsigned k = 0; k < fn.nr_inlined; k++) {
				sf->idx[sf->nr++] =
					intern_frame(b, fn.inlined[k], fn.module, st->ips[i],
						     (kernel ? PROFILE_FRAME_KERNEL : 0) |
							     PROFILE_FRAME_INLINED);
				/* The address's line is the innermost function's. */
				note_mapping(b, &b->p->frames[sf->idx[sf->nr - 1]], &fn,
					     k + 1 == fn.nr_inlined);
			}
		}
	}
	if (kernel)
		trim_tracer_frames(b, sf);
	return sf;
}

static const char *const state_words[TT_ST_MAX] = {
	[TT_ST_R] = "running",	 [TT_ST_Q] = "runnable",      [TT_ST_S] = "sleeping",
	[TT_ST_D] = "disk wait", [TT_ST_T] = "stopped",	      [TT_ST_t] = "traced",
	[TT_ST_Z] = "zombie",	 [TT_ST_X] = "dead",	      [TT_ST_I] = "idle",
	[TT_ST_P] = "parked",	 [TT_ST_UNKNOWN] = "unknown",
};

/* A frame for samples with no stack: what the thread was doing. */
static uint32_t synthetic_leaf(struct builder *b, enum profile_kind kind, uint8_t state,
			       int32_t syscall)
{
	char name[64], label[32];

	if (kind == PROFILE_THREADS && syscall != TT_SYSCALL_NONE)
		snprintf(name, sizeof(name), "[syscall %s]",
			 syscall_label(syscall, label, sizeof(label)));
	else if (kind == PROFILE_THREADS && state < TT_ST_MAX)
		snprintf(name, sizeof(name), "[%s]", state_words[state]);
	else
		snprintf(name, sizeof(name), "[unknown]");
	return intern_frame(b, name, NULL, 0, PROFILE_FRAME_SYNTH);
}

static void add_sample(struct builder *b, const struct profile_sample *tmpl, uint32_t kstack_id,
		       uint32_t ustack_id)
{
	const struct stack_frames *ks = frames_of(b, kstack_id), *us = frames_of(b, ustack_id);
	uint32_t nk = ks ? ks->nr : 0, nu = us ? us->nr : 0;
	struct profile *p = b->p;
	struct profile_sample *s;
	uint32_t *frames;

	frames = xmalloc((nk + nu + 1) * sizeof(*frames));
	/* A thread enters the kernel from user code: user frames are the outer ones. */
	if (nu)
		memcpy(frames, us->idx, nu * sizeof(*frames));
	if (nk)
		memcpy(frames + nu, ks->idx, nk * sizeof(*frames));
	if (!nk && !nu)
		frames[0] = synthetic_leaf(b, tmpl->kind, tmpl->state, tmpl->syscall);
	xgrow((void **)&p->samples, &b->cap_samples, p->nr_samples + 1, sizeof(*p->samples));
	s = &p->samples[p->nr_samples++];
	*s = *tmpl;
	s->comm = intern_string(b, tmpl->comm);
	s->pcomm = intern_string(b, tmpl->pcomm);
	s->frames = frames;
	s->nr_frames = nk + nu ? nk + nu : 1;
	s->cgroup_id = model__thread_cgroup(b->m, s->tid);
	s->kstack_id = kstack_id;
	s->ustack_id = ustack_id;
	p->total_count[s->kind] += s->count;
	p->total_ns[s->kind] += s->ns;
}

static void add_thread_samples(struct builder *b)
{
	struct model_thread_stack *rows = NULL;
	uint64_t period_ns = (uint64_t)b->p->weight_us * NSEC_PER_USEC;
	int nr = model__thread_stacks(b->m, b->o->window, b->o->filter, &rows);

	for (int i = 0; i < nr; i++) {
		const struct model_thread_stack *r = &rows[i];
		struct profile_sample s = {
			.kind = PROFILE_THREADS,
			.pid = r->pid,
			.tid = r->tid,
			.comm = r->comm,
			.pcomm = r->pcomm,
			.state = r->state,
			.syscall = r->syscall,
			.labels_id = r->labels_id,
			.count = r->samples,
			.taken = r->samples,
			.ns = r->samples * period_ns,
		};

		add_sample(b, &s, r->kstack_id, r->ustack_id);
		if (r->pid == r->tid || !u64map__get(b->pcomms, r->pid))
			u64map__put(b->pcomms, r->pid,
				    (void *)b->p->samples[b->p->nr_samples - 1].pcomm);
	}
	free(rows);
}

/* The process name of pid as the thread samples know it (its main thread's comm). */
static const char *process_name(struct builder *b, uint32_t pid)
{
	return u64map__get(b->pcomms, pid);
}

static bool keep_traced(const struct model *m, const struct model_filter *f,
			const struct model_stack_row *r, unsigned states)
{
	if (!f)
		return true;
	if (f->pid && r->pid != f->pid)
		return false;
	if (f->tid && r->tid != f->tid)
		return false;
	if (f->comm_substr && !(r->comm && strstr(r->comm, f->comm_substr)))
		return false;
	if (f->state_mask && !(f->state_mask & states))
		return false;
	if (f->syscall != MODEL_ANY_SYSCALL)
		return false; /* traced stacks carry no syscall */
	if (f->cgroup_id && model__thread_cgroup(m, r->tid) != f->cgroup_id)
		return false;
	/* A drill-down into a frame (the TUI's export of what it shows). */
	if (f->stack_ip && !model__stack_holds(m, r->kstack_id, f->stack_ip) &&
	    !model__stack_holds(m, r->ustack_id, f->stack_ip))
		return false;
	return model__stack_row_labels_pass(f, r);
}

/* The sample of one traced or LuaJIT stack row, if the filter keeps it. */
static void add_row(struct builder *b, enum profile_kind kind, const struct model_stack_row *r,
		    uint64_t ns, uint64_t taken)
{
	bool oncpu = kind == PROFILE_ONCPU;
	/* A request is made running and waited for in D (or S, for an asynchronous one). */
	unsigned states = oncpu		       ? 1u << TT_ST_R
			  : kind == PROFILE_IO ? (1u << TT_ST_R) | (1u << TT_ST_S) | (1u << TT_ST_D)
					       : (1u << TT_ST_S) | (1u << TT_ST_D);
	const char *pcomm = process_name(b, r->pid);
	struct profile_sample s = {
		.kind = kind,
		.pid = r->pid,
		.tid = r->tid,
		.comm = r->comm,
		.pcomm = pcomm ? pcomm : r->comm,
		.state = oncpu ? TT_ST_R : TT_ST_UNKNOWN,
		.syscall = TT_SYSCALL_NONE,
		.labels_id = r->labels_id,
		.labels_unknown = !r->labels_known,
		.count = r->count,
		.taken = taken,
		.ns = ns,
		.bytes = r->bytes,
	};

	if (keep_traced(b->m, b->o->filter, r, states))
		add_sample(b, &s, r->kstack_id, r->ustack_id);
}

/*
 * On-CPU samples (model__oncpu_stacks): LuaJIT threads' sysprof samples
 * (every interval of the thread's CPU time) with Lua frames, their tids
 * into b->lj_tids, and the CPU-clock sampler's stacks of the other threads
 * when the source traced them (BPF). Weighed by time, counted in CPU-clock
 * samples.
 */
static void add_oncpu(struct builder *b)
{
	bool traced = model__traced(b->m) & MODEL_TRACED_ONCPU;
	struct model_stack_row *rows = NULL;
	int nr = model__oncpu_stacks(b->m, b->o->window, b->p->cpu_period_ns, traced, b->lj_tids,
				     &rows);

	if (traced || u64map__count(b->lj_tids))
		b->p->kinds |= 1u << PROFILE_ONCPU;
	for (int i = 0; i < nr; i++)
		add_row(b, PROFILE_ONCPU, &rows[i], rows[i].ns, rows[i].taken);
	free(rows);
}

/* Off-CPU time, when the source traced it (BPF). */
static void add_offcpu(struct builder *b)
{
	struct model_stack_row *rows = NULL;
	int nr;

	if (!(model__traced(b->m) & MODEL_TRACED_OFFCPU))
		return;
	b->p->kinds |= 1u << PROFILE_OFFCPU;
	nr = model__offcpu(b->m, b->o->window, &rows);
	for (int i = 0; i < nr; i++)
		add_row(b, PROFILE_OFFCPU, &rows[i], rows[i].value, rows[i].count);
	free(rows);
}

/* Block I/O requests by the stacks that made them, when the source traced them (--io, BPF). */
static void add_io(struct builder *b)
{
	struct model_stack_row *rows = NULL;
	int nr;

	if (!(model__traced(b->m) & MODEL_TRACED_IO_STACKS))
		return;
	b->p->kinds |= 1u << PROFILE_IO;
	nr = model__io_stacks(b->m, b->o->window, &rows);
	for (int i = 0; i < nr; i++)
		add_row(b, PROFILE_IO, &rows[i], rows[i].value, rows[i].count);
	free(rows);
}

static int cmp_samples(const void *a, const void *b)
{
	const struct profile_sample *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return 0;
}

struct profile *profile__build(struct model *m, const struct profile_opts *o)
{
	struct profile *p = xcalloc(1, sizeof(*p));
	struct builder b = {
		.m = m,
		.o = o,
		.p = p,
		.frame_index = u64map__new(),
		.stack_frames = u64map__new(),
		.strings = u64map__new(),
		.pcomms = u64map__new(),
		.lj_tids = u64map__new(),
	};
	struct model_stats st;
	struct stack_frames *sf;
	uint64_t key;
	size_t pos = 0;

	model__stats(m, &st);
	/* What one sample stood for in this window: the period achieved, not asked. */
	p->weight_us = (uint32_t)(model__sample_weight_s(m, o->window) * 1e6 + 0.5);
	if (!p->weight_us)
		p->weight_us = st.weight_us;
	p->duration_ns = (uint64_t)(model__window_seconds(m, o->window) * 1e9);
	p->cpu_period_ns = model_cpu_period_ns(o->cpu_hz);
	p->kinds = 1u << PROFILE_THREADS;
	add_thread_samples(&b);
	add_oncpu(&b);
	add_offcpu(&b);
	add_io(&b);
	if (p->nr_samples)
		qsort(p->samples, p->nr_samples, sizeof(*p->samples), cmp_samples);
	profile_add_timed(m, p, o->window, b.lj_tids);

	while (u64map__next(b.stack_frames, &pos, &key, (void **)&sf)) {
		free(sf->idx);
		free(sf);
	}
	u64map__free(b.stack_frames);
	u64map__free(b.frame_index);
	u64map__free(b.pcomms);
	u64map__free(b.lj_tids);
	/* The interned strings belong to the frames and samples now. */
	p->strings_ = xcalloc(u64map__count(b.strings) + 1, sizeof(*p->strings_));
	pos = 0;
	while (u64map__next(b.strings, &pos, &key, (void **)&p->strings_[p->nr_strings_]))
		p->nr_strings_++;
	u64map__free(b.strings);
	return p;
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_samples; i++)
		free((void *)p->samples[i].frames);
	for (size_t i = 0; i < p->nr_strings_; i++)
		free(p->strings_[i]);
	free(p->strings_);
	free(p->timed);
	free(p->samples);
	free(p->frames);
	free(p);
}

enum profile_kind profile__main_kind(const struct profile *p)
{
	return p->kinds & (1u << PROFILE_ONCPU) ? PROFILE_ONCPU : PROFILE_THREADS;
}
