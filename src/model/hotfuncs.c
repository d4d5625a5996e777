// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hot functions (see hotfuncs.h): one pass over the stack pairs, every
 * frame (and every function inlined at it) mapped to its function through
 * a cache per (process, address), so the namer is asked once per address.
 * A function's total counts a pair once: the entry remembers the last pair
 * that counted it (recursion puts a function on a stack more than once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotfuncs.h"
#include "threadtop/frame_namer.h"
#include "u64map.h"
#include "util.h"

#define NO_FUNC UINT32_MAX

/* The functions at one address: the frame's own, then those inlined there. */
struct hotfuncs_addr {
	uint32_t func[HOTFUNCS_INLINE_MAX];
	uint8_t n;
};

static uint64_t mix(uint64_t h)
{
	/* splitmix64 finalizer */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/* FNV-1a of a string, folded into h, the terminator included. */
static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h * 0x100000001b3ull;
}

static const char *keep(struct hotfuncs *h, const char *s)
{
	char *c = xstrdup(s);

	xgrow((void **)&h->strings, &h->cap_strings, h->nr_strings + 1, sizeof(*h->strings));
	h->strings[h->nr_strings++] = c;
	return c;
}

/* The entry of function (name, module, kernel), made when new; NO_FUNC when full. */
static uint32_t func_of(struct hotfuncs *h, const char *name, const char *module, bool kernel,
			uint64_t ip, uint32_t pid, uint8_t level)
{
	uint64_t id =
		str_hash(str_hash(kernel ? 0x6b65726eull : 0xcbf29ce484222325ull, name), module);
	size_t idx;
	struct hotfunc *f;

	id = id ? id : 1;
	idx = (size_t)(uintptr_t)u64map__get(h->by_id, id);
	if (idx)
		return (uint32_t)(idx - 1);
	if (h->nr >= HOTFUNCS_MAX)
		return NO_FUNC;
	xgrow((void **)&h->funcs, &h->cap, h->nr + 1, sizeof(*h->funcs));
	f = &h->funcs[h->nr];
	memset(f, 0, sizeof(*f));
	f->name = keep(h, name);
	f->module = module ? keep(h, module) : NULL;
	f->kernel = kernel;
	f->ip = ip;
	f->pid = kernel ? 0 : pid;
	f->level = level;
	f->stamp_ = UINT32_MAX;
	u64map__put(h->by_id, id, (void *)(uintptr_t)(h->nr + 1));
	return (uint32_t)h->nr++;
}

/* The functions at ip (a frame of process pid, or of the kernel), named once. */
static const struct hotfuncs_addr *addr_of(struct hotfuncs *h, const struct model *m, uint32_t pid,
					   uint64_t ip, bool kernel)
{
	uint64_t key = mix(ip ^ mix(kernel ? 0x51ed27ull : (uint64_t)pid + 1)) | 1;
	size_t idx = (size_t)(uintptr_t)u64map__get(h->by_addr, key);
	struct hotfuncs_addr *a;
	struct frame_name fn;
	const char *module;
	unsigned n;

	if (idx)
		return &h->addrs[idx - 1];
	xgrow((void **)&h->addrs, &h->cap_addrs, h->nr_addrs + 1, sizeof(*h->addrs));
	a = &h->addrs[h->nr_addrs];
	model__frame_name(m, kernel ? 0 : pid, ip, kernel, &fn);
	n = fn.inlined ? fn.nr_inlined : 0;
	if (n > HOTFUNCS_INLINE_MAX - 1)
		n = HOTFUNCS_INLINE_MAX - 1;
	/* fn's strings live until the next naming: take what the levels need first. */
	module = fn.module;
	a->n = (uint8_t)(n + 1);
	a->func[0] = func_of(h, fn.name, module, kernel, ip, pid, 0);
	for (unsigned l = 1; l <= n; l++)
		a->func[l] = func_of(h, fn.inlined[l - 1], module, kernel, ip, pid, (uint8_t)l);
	u64map__put(h->by_addr, key, (void *)(uintptr_t)(h->nr_addrs + 1));
	return &h->addrs[h->nr_addrs++];
}

static void add_pid(struct hotfunc *f, uint32_t pid, const char *comm)
{
	if (!f->nr_pids) { /* comm: a model_stack_count's, TT_COMM_LEN long */
		memcpy(f->comm, comm, sizeof(f->comm));
		f->comm[sizeof(f->comm) - 1] = '\0';
	}
	for (unsigned i = 0; i < f->nr_pids; i++)
		if (f->pids[i] == pid)
			return;
	if (f->nr_pids < HOTFUNC_PIDS)
		f->pids[f->nr_pids++] = pid;
	else
		f->more_pids = true;
}

/* Counts frame (ip, kernel) of pair `stamp` in its functions' totals; the leaf also in self. */
static void count_frame(struct hotfuncs *h, const struct model *m,
			const struct model_stack_count *c, uint32_t pid, uint64_t ip, bool kernel,
			bool leaf, uint32_t stamp)
{
	uint64_t samples = c->samples;
	const struct hotfuncs_addr *a = addr_of(h, m, pid, ip, kernel);

	for (unsigned l = 0; l < a->n; l++) {
		struct hotfunc *f;

		if (a->func[l] == NO_FUNC) {
			if (leaf && l + 1 == a->n)
				h->dropped += samples;
			continue;
		}
		f = &h->funcs[a->func[l]];
		if (leaf && l + 1 == a->n)
			f->self += samples; /* the innermost function at the leaf */
		if (f->stamp_ == stamp)
			continue; /* already on this stack: recursion */
		f->stamp_ = stamp;
		f->total += samples;
		add_pid(f, c->pid, c->comm);
	}
}

/* Whether kernel frame ip is threadtop's own tracing (cut off kernel leaves). */
static bool is_tracer(const struct model *m, uint64_t ip)
{
	struct frame_name fn;

	model__frame_name(m, 0, ip, true, &fn);
	return model__frame_is_tracer(fn.name);
}

static void add_pair(struct hotfuncs *h, const struct model *m, const struct model_stack_count *c,
		     uint32_t stamp)
{
	const struct tt_stack *us = model__stack(m, c->ustack_id);
	const struct tt_stack *ks = model__stack(m, c->kstack_id);
	unsigned un = us ? us->nr : 0, kn = ks ? ks->nr : 0, k0 = 0;
	bool namer = model__frame_namer(m) != NULL;
	uint32_t upid = us && us->pid ? us->pid : c->pid;

	h->total += c->samples;
	/* As the call tree does: no frames of our own tracer at the kernel leaf. */
	while (namer && kn > 1 && is_tracer(m, ks->ips[k0])) {
		k0++;
		kn--;
	}
	for (unsigned i = 0; i < un; i++)
		count_frame(h, m, c, upid, us->ips[i], us->flags & TT_STACK_KERNEL, !kn && !i,
			    stamp);
	for (unsigned i = 0; i < kn; i++)
		count_frame(h, m, c, c->pid, ks->ips[k0 + i], ks->flags & TT_STACK_KERNEL, !i,
			    stamp);
}

static struct hotfuncs *make(void)
{
	struct hotfuncs *h = xcalloc(1, sizeof(*h));

	h->by_id = u64map__new();
	h->by_addr = u64map__new();
	return h;
}

/* The caches are of no use once built: a set is read, sorted and freed. */
static struct hotfuncs *done(struct hotfuncs *h)
{
	u64map__free(h->by_addr);
	h->by_addr = NULL;
	u64map__free(h->by_id); /* its indexes do not survive the sort */
	h->by_id = NULL;
	free(h->addrs);
	h->addrs = NULL;
	h->nr_addrs = h->cap_addrs = 0;
	hotfuncs__sort(h, HOTFUNCS_BY_SELF, false);
	return h;
}

struct hotfuncs *hotfuncs__new(const struct model *m, const struct model_stack_count *pairs,
			       size_t nr)
{
	struct hotfuncs *h = make();

	for (size_t i = 0; i < nr; i++)
		add_pair(h, m, &pairs[i], (uint32_t)i);
	return done(h);
}

struct hotfuncs *hotfuncs__from_profile(const struct model *m, const struct profile *p,
					enum profile_kind kind, uint32_t state_mask)
{
	struct hotfuncs *h = make();

	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];
		struct model_stack_count c = {
			.kstack_id = s->kstack_id,
			.ustack_id = s->ustack_id,
			.pid = s->pid,
			.samples = kind == PROFILE_OFFCPU ? s->ns : s->count,
		};
		const char *comm = s->pcomm ? s->pcomm : s->comm;

		if (s->kind != kind)
			continue;
		if (kind == PROFILE_THREADS && state_mask &&
		    (s->state >= 32 || !(state_mask & (1u << s->state))))
			continue;
		if (comm)
			snprintf(c.comm, sizeof(c.comm), "%s", comm);
		add_pair(h, m, &c, (uint32_t)i);
	}
	return done(h);
}

static int str_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int u64_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static _Thread_local enum hotfuncs_sort sort_by;

static int cmp_func(const void *pa, const void *pb)
{
	const struct hotfunc *a = pa, *b = pb;
	int c = 0;

	switch (sort_by) {
	case HOTFUNCS_BY_TOTAL:
		c = u64_desc(a->total, b->total);
		if (!c)
			c = u64_desc(a->self, b->self);
		break;
	case HOTFUNCS_BY_NAME:
		break;
	case HOTFUNCS_BY_MODULE:
		c = str_cmp(a->module, b->module);
		if (!c)
			c = u64_desc(a->self, b->self);
		break;
	default:
		c = u64_desc(a->self, b->self);
		if (!c)
			c = u64_desc(a->total, b->total);
		break;
	}
	if (!c)
		c = str_cmp(a->name, b->name);
	if (!c)
		c = str_cmp(a->module, b->module);
	if (!c)
		c = (int)a->kernel - (int)b->kernel;
	return c;
}

void hotfuncs__sort(struct hotfuncs *h, enum hotfuncs_sort by, bool reverse)
{
	sort_by = by < HOTFUNCS_SORT_MAX ? by : HOTFUNCS_BY_SELF;
	qsort(h->funcs, h->nr, sizeof(*h->funcs), cmp_func);
	if (!reverse)
		return;
	for (size_t i = 0, j = h->nr ? h->nr - 1 : 0; i < j; i++, j--) {
		struct hotfunc tmp = h->funcs[i];

		h->funcs[i] = h->funcs[j];
		h->funcs[j] = tmp;
	}
}

const struct hotfunc *hotfuncs__find(const struct hotfuncs *h, const char *name, const char *module)
{
	for (size_t i = 0; i < h->nr; i++)
		if (!strcmp(h->funcs[i].name, name) &&
		    (!module || (h->funcs[i].module && !strcmp(h->funcs[i].module, module))))
			return &h->funcs[i];
	return NULL;
}

void hotfuncs__free(struct hotfuncs *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nr_strings; i++)
		free(h->strings[i]);
	free(h->strings);
	u64map__free(h->by_id);
	u64map__free(h->by_addr);
	free(h->addrs);
	free(h->funcs);
	free(h);
}
