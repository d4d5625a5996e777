// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frame names of recordings (see frame_names.h): a table (pid, address,
 * kernel?) -> (name, module), filled from the live namer when recording and
 * from TT_EV_FRAME_NAME records when replaying. A user frame looked up with
 * another pid than it was named with (views name by thread, stacks by
 * address space) falls back to the address alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "threadtop/frame_names.h"
#include "threadtop/u64map.h"
#include "threadtop/util.h"

struct name_entry {
	struct name_entry *next; /* same hash */
	uint64_t addr;
	uint32_t pid;
	bool kernel;
	char *name, *module;
};

struct frame_names {
	struct u64map *exact;	/* hash(pid, addr, kernel) -> chain */
	struct u64map *by_addr; /* user addr -> an entry (not owned) */
	struct frame_namer namer;
};

static uint64_t hash(uint32_t pid, uint64_t addr, bool kernel)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(kernel ? 0 : pid) * 0xc2b2ae3d27d4eb4full + kernel;
	return h ^ (h >> 29);
}

static struct name_entry *find(const struct frame_names *fn, uint32_t pid, uint64_t addr,
			       bool kernel)
{
	struct name_entry *e = u64map__get(fn->exact, hash(pid, addr, kernel));

	if (kernel)
		pid = 0;
	for (; e; e = e->next)
		if (e->addr == addr && e->kernel == kernel && e->pid == pid)
			return e;
	return NULL;
}

static struct name_entry *put(struct frame_names *fn, uint32_t pid, uint64_t addr, bool kernel,
			      const char *name, size_t name_len, const char *module,
			      size_t module_len)
{
	uint64_t h = hash(pid, addr, kernel);
	struct name_entry *e = find(fn, pid, addr, kernel);

	if (e) {
		free(e->name);
		free(e->module);
	} else {
		e = xcalloc(1, sizeof(*e));
		e->addr = addr;
		e->pid = kernel ? 0 : pid;
		e->kernel = kernel;
		e->next = u64map__get(fn->exact, h);
		u64map__put(fn->exact, h, e);
		if (!kernel)
			u64map__put(fn->by_addr, addr, e);
	}
	e->name = xstrndup(name, name_len);
	e->module = module_len ? xstrndup(module, module_len) : NULL;
	return e;
}

static int kept_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	struct frame_names *fn = ctx;
	struct name_entry *e = find(fn, pid, addr, kernel);

	if (!e && !kernel)
		e = u64map__get(fn->by_addr, addr);
	if (!e)
		return -ENOENT;
	/* No build-id and no inline chain are recorded. */
	*ret = (struct frame_name){.name = e->name, .module = e->module, .kernel = e->kernel};
	return 0;
}

struct frame_names *frame_names__new(void)
{
	struct frame_names *fn = xcalloc(1, sizeof(*fn));

	fn->exact = u64map__new();
	fn->by_addr = u64map__new();
	fn->namer = (struct frame_namer){kept_name, fn};
	return fn;
}

void frame_names__free(struct frame_names *fn)
{
	struct name_entry *e, *next;
	uint64_t key;
	size_t pos = 0;

	if (!fn)
		return;
	while (u64map__next(fn->exact, &pos, &key, (void **)&e)) {
		for (; e; e = next) {
			next = e->next;
			free(e->name);
			free(e->module);
			free(e);
		}
	}
	u64map__free(fn->exact);
	u64map__free(fn->by_addr);
	free(fn);
}

void frame_names__add(struct frame_names *fn, const struct tt_frame_name *rec)
{
	put(fn, rec->pid, rec->addr, rec->flags & TT_FRAME_KERNEL, rec->data, rec->name_len,
	    rec->data + rec->name_len, rec->module_len);
}

const struct frame_namer *frame_names__namer(struct frame_names *fn)
{
	return &fn->namer;
}

void frame_names__record_stack(struct frame_names *fn, const struct frame_namer *namer,
			       const struct tt_stack *st, const struct event_sink *sink,
			       uint64_t time_ns)
{
	union {
		struct tt_frame_name rec;
		char buf[sizeof(struct tt_frame_name) + TT_MAX_STRING_LEN];
	} u;
	bool kernel = st->flags & TT_STACK_KERNEL;

	for (unsigned i = 0; i < st->nr; i++) {
		struct frame_name name;
		size_t nl, ml;

		if (find(fn, st->pid, st->ips[i], kernel))
			continue;
		frame_namer__name(namer, st->pid, st->ips[i], kernel, &name);
		nl = strlen(name.name);
		ml = name.module ? strlen(name.module) : 0;
		if (nl > TT_MAX_STRING_LEN / 2)
			nl = TT_MAX_STRING_LEN / 2;
		if (ml > TT_MAX_STRING_LEN / 2)
			ml = TT_MAX_STRING_LEN / 2;
		put(fn, st->pid, st->ips[i], kernel, name.name, nl, name.module, ml);
		memset(&u.rec, 0, sizeof(u.rec));
		u.rec.hdr = (struct tt_event_header){TT_EV_FRAME_NAME, TT_FRAME_NAME_VERSION,
						     (uint32_t)(sizeof(u.rec) + nl + ml), time_ns};
		u.rec.addr = st->ips[i];
		u.rec.pid = kernel ? 0 : st->pid;
		u.rec.flags = kernel ? TT_FRAME_KERNEL : 0;
		u.rec.name_len = (uint16_t)nl;
		u.rec.module_len = (uint16_t)ml;
		memcpy(u.rec.data, name.name, nl);
		if (ml)
			memcpy(u.rec.data + nl, name.module, ml);
		sink_emit(sink, &u.rec.hdr);
	}
}
