// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frame names of recordings (see recorded_names.h): a table (pid, address,
 * kernel?) -> (name, module), filled from the live namer when recording and
 * from TT_EV_FRAME_NAME records when replaying. A user frame looked up with
 * another pid than it was named with (views name by thread, stacks by
 * address space) falls back to the address alone. Beside the names, a table
 * (pid, module) -> GNU build-id (TT_EV_BUILD_ID records) gives a replay's
 * frames the build-ids a live run's have.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dict_budget.h"
#include "recorded_names.h"
#include "hash.h"
#include "u64map.h"
#include "util.h"

struct name_entry {
	struct name_entry *next; /* same hash */
	uint64_t addr;
	uint32_t pid;
	bool kernel;
	char *name, *module;
	char **inlined; /* the functions inlined at addr, outermost first */
	unsigned nr_inlined;
	size_t charged; /* taken from the budget (the record's size) */
};

/* The build-id of one module in one address space, in hex. */
struct bid_entry {
	struct bid_entry *next; /* same hash */
	uint32_t pid;
	char *module, *hex;
	size_t charged; /* taken from the budget */
};

struct recorded_names {
	struct u64map *exact;	/* hash(pid, addr, kernel) -> chain */
	struct u64map *by_addr; /* user addr -> an entry (not owned) */
	struct u64map *bids;	/* hash(pid, module) -> chain of struct bid_entry */
	struct frame_namer namer;
	struct dict_budget *budget; /* not owned, or NULL */
	bool dropped;		    /* a name did not fit the budget */
};

static uint64_t hash(uint32_t pid, uint64_t addr, bool kernel)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(kernel ? 0 : pid) * 0xc2b2ae3d27d4eb4full + kernel;
	return h ^ (h >> 29);
}

static struct name_entry *find(const struct recorded_names *fn, uint32_t pid, uint64_t addr,
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

static uint64_t module_hash(uint32_t pid, const char *module, size_t len)
{
	return hash_bytes(HASH_INIT ^ pid, module, len);
}

static struct bid_entry *find_bid(const struct recorded_names *fn, uint32_t pid, const char *module,
				  size_t len)
{
	struct bid_entry *b = u64map__get(fn->bids, module_hash(pid, module, len));

	for (; b; b = b->next)
		if (b->pid == pid && !strncmp(b->module, module, len) && !b->module[len])
			return b;
	return NULL;
}

/* What a build-id entry costs the budget: its module name and the longest hex. */
#define BID_COST(module_len) ((module_len) + 2 * TT_BUILD_ID_MAX + 1)

/* Keeps hex as the build-id of (pid, module), replacing an earlier one. */
static void put_bid(struct recorded_names *fn, uint32_t pid, const char *module, size_t len,
		    const char *hex)
{
	uint64_t h = module_hash(pid, module, len);
	struct bid_entry *b = find_bid(fn, pid, module, len);

	if (b) {
		free(b->hex);
	} else {
		if (!dict_budget__take(fn->budget, pid, BID_COST(len)))
			return; /* past the budget: frames of the module go without */
		b = xcalloc(1, sizeof(*b));
		b->charged = BID_COST(len);
		b->pid = pid;
		b->module = xstrndup(module, len);
		b->next = u64map__get(fn->bids, h);
		u64map__put(fn->bids, h, b);
	}
	b->hex = xstrdup(hex);
}

static void free_inlined(struct name_entry *e)
{
	for (unsigned i = 0; i < e->nr_inlined; i++)
		free(e->inlined[i]);
	free(e->inlined);
	e->inlined = NULL;
	e->nr_inlined = 0;
}

/* Keeps the NUL-ended names of block (len bytes, at most TT_FRAME_MAX_INLINED). */
static void put_inlined(struct name_entry *e, const char *block, size_t len)
{
	size_t off = 0;

	free_inlined(e);
	while (off < len && e->nr_inlined < TT_FRAME_MAX_INLINED) {
		const char *end = memchr(block + off, '\0', len - off);
		size_t n = end ? (size_t)(end - (block + off)) : len - off;

		if (!e->inlined)
			e->inlined = xcalloc(TT_FRAME_MAX_INLINED, sizeof(*e->inlined));
		e->inlined[e->nr_inlined++] = xstrndup(block + off, n);
		off += n + 1;
	}
}

static struct name_entry *put(struct recorded_names *fn, uint32_t pid, uint64_t addr, bool kernel,
			      const char *name, size_t name_len, const char *module,
			      size_t module_len)
{
	uint64_t h = hash(pid, addr, kernel);
	struct name_entry *e = find(fn, pid, addr, kernel);

	if (e) {
		free(e->name);
		free(e->module);
		free_inlined(e);
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
	struct recorded_names *fn = ctx;
	struct name_entry *e = find(fn, pid, addr, kernel);
	struct bid_entry *b;

	if (!e && !kernel)
		e = u64map__get(fn->by_addr, addr);
	if (!e && fn->dropped) {
		/* Maybe one of the names past the budget. */
		*ret = (struct frame_name){.name = "[dropped]", .kernel = kernel};
		return 0;
	}
	if (!e)
		return -ENOENT;
	b = e->module && !e->kernel ? find_bid(fn, e->pid, e->module, strlen(e->module)) : NULL;
	*ret = (struct frame_name){.name = e->name,
				   .module = e->module,
				   .kernel = e->kernel,
				   .build_id = b ? b->hex : NULL,
				   .inlined = (const char *const *)e->inlined,
				   .nr_inlined = e->nr_inlined};
	return 0;
}

struct recorded_names *recorded_names__new(void)
{
	struct recorded_names *fn = xcalloc(1, sizeof(*fn));

	fn->exact = u64map__new();
	fn->by_addr = u64map__new();
	fn->bids = u64map__new();
	fn->namer = (struct frame_namer){kept_name, fn};
	return fn;
}

void recorded_names__free(struct recorded_names *fn)
{
	struct name_entry *e, *next;
	struct bid_entry *b, *bnext;
	uint64_t key;
	size_t pos = 0;

	if (!fn)
		return;
	while (u64map__next(fn->exact, &pos, &key, (void **)&e)) {
		for (; e; e = next) {
			next = e->next;
			dict_budget__give(fn->budget, e->pid, e->charged);
			free(e->name);
			free(e->module);
			free_inlined(e);
			free(e);
		}
	}
	pos = 0;
	while (u64map__next(fn->bids, &pos, &key, (void **)&b)) {
		for (; b; b = bnext) {
			bnext = b->next;
			dict_budget__give(fn->budget, b->pid, b->charged);
			free(b->module);
			free(b->hex);
			free(b);
		}
	}
	u64map__free(fn->bids);
	u64map__free(fn->exact);
	u64map__free(fn->by_addr);
	free(fn);
}

void recorded_names__set_budget(struct recorded_names *fn, struct dict_budget *b)
{
	fn->budget = b;
}

void recorded_names__add(struct recorded_names *fn, const struct tt_frame_name *rec)
{
	bool kernel = rec->flags & TT_FRAME_KERNEL;
	struct name_entry *e = find(fn, rec->pid, rec->addr, kernel);

	/* A name replaced gives its bytes back; one that does not fit keeps the old. */
	if (e)
		dict_budget__give(fn->budget, e->pid, e->charged);
	if (!dict_budget__take(fn->budget, kernel ? 0 : rec->pid, rec->hdr.size)) {
		if (e)
			dict_budget__take(fn->budget, e->pid, e->charged);
		else
			fn->dropped = true;
		return;
	}
	e = put(fn, rec->pid, rec->addr, kernel, rec->data, rec->name_len,
		rec->data + rec->name_len, rec->module_len);
	e->charged = rec->hdr.size;
	put_inlined(e, rec->data + rec->name_len + rec->module_len, rec->inlined_len);
}

void recorded_names__add_build_id(struct recorded_names *fn, const struct tt_build_id *rec)
{
	char hex[2 * TT_BUILD_ID_MAX + 1];
	const unsigned char *id = (const unsigned char *)rec->data + rec->module_len;

	for (unsigned i = 0; i < rec->id_len && i < TT_BUILD_ID_MAX; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * (rec->id_len < TT_BUILD_ID_MAX ? rec->id_len : TT_BUILD_ID_MAX)] = '\0';
	put_bid(fn, rec->pid, rec->data, rec->module_len, hex);
}

const struct frame_namer *recorded_names__namer(struct recorded_names *fn)
{
	return &fn->namer;
}

/*
 * The first frame of a module in process pid with a build-id: keeps it and
 * emits a TT_EV_BUILD_ID record. A build-id that is not whole hex bytes
 * (none the symbolizer gives) is not recorded.
 */
static void record_build_id(struct recorded_names *fn, uint32_t pid, const char *module, size_t ml,
			    const char *hex, const struct event_sink *sink, uint64_t time_ns)
{
	union {
		struct tt_build_id rec;
		char buf[sizeof(struct tt_build_id) + TT_MAX_STRING_LEN + TT_BUILD_ID_MAX];
	} u;
	size_t hl = strlen(hex);
	unsigned char *id;

	if (!ml || !hl || hl % 2 || hl > 2 * TT_BUILD_ID_MAX || find_bid(fn, pid, module, ml))
		return;
	memset(&u.rec, 0, sizeof(u.rec));
	memcpy(u.rec.data, module, ml);
	id = (unsigned char *)u.rec.data + ml;
	for (size_t i = 0; i < hl / 2; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return;
		id[i] = (unsigned char)(hi << 4 | lo);
	}
	put_bid(fn, pid, module, ml, hex);
	u.rec.hdr = (struct tt_event_header){TT_EV_BUILD_ID, TT_BUILD_ID_VERSION,
					     (uint32_t)(sizeof(u.rec) + ml + hl / 2), time_ns};
	u.rec.pid = pid;
	u.rec.module_len = (uint16_t)ml;
	u.rec.id_len = (uint16_t)(hl / 2);
	sink_emit(sink, &u.rec.hdr);
}

void recorded_names__record_stack(struct recorded_names *fn, const struct frame_namer *namer,
				  const struct tt_stack *st, const struct event_sink *sink,
				  uint64_t time_ns)
{
	union {
		struct tt_frame_name rec;
		char buf[sizeof(struct tt_frame_name) + 2 * TT_MAX_STRING_LEN];
	} u;
	bool kernel = st->flags & TT_STACK_KERNEL;

	for (unsigned i = 0; i < st->nr; i++) {
		struct name_entry *e;
		struct frame_name name;
		size_t nl, ml, il;

		uint64_t ip = frame_lookup_addr(st->ips[i], i); /* as the model keeps it */

		if (find(fn, st->pid, ip, kernel))
			continue;
		frame_namer__name(namer, st->pid, ip, kernel, &name);
		nl = strlen(name.name);
		ml = name.module ? strlen(name.module) : 0;
		if (nl > TT_MAX_STRING_LEN / 2)
			nl = TT_MAX_STRING_LEN / 2;
		if (ml > TT_MAX_STRING_LEN / 2)
			ml = TT_MAX_STRING_LEN / 2;
		if (!kernel && name.build_id)
			record_build_id(fn, st->pid, name.module, ml, name.build_id, sink, time_ns);
		/* Past the budget the name is recorded, not remembered (so maybe again). */
		e = NULL;
		if (dict_budget__take(fn->budget, kernel ? 0 : st->pid, sizeof(u.rec) + nl + ml)) {
			e = put(fn, st->pid, ip, kernel, name.name, nl, name.module, ml);
			e->charged = sizeof(u.rec) + nl + ml;
		}
		memset(&u.rec, 0, sizeof(u.rec));
		memcpy(u.rec.data, name.name, nl);
		if (ml)
			memcpy(u.rec.data + nl, name.module, ml);
		/* The inlined chain, NUL-ended names, as many as fit in 4096 bytes. */
		il = 0;
		for (unsigned k = 0; k < name.nr_inlined && k < TT_FRAME_MAX_INLINED; k++) {
			size_t n = strlen(name.inlined[k]);

			if (il + n + 1 > TT_MAX_STRING_LEN)
				break;
			memcpy(u.rec.data + nl + ml + il, name.inlined[k], n + 1);
			il += n + 1;
		}
		if (e)
			put_inlined(e, u.rec.data + nl + ml, il);
		u.rec.hdr =
			(struct tt_event_header){TT_EV_FRAME_NAME, TT_FRAME_NAME_VERSION,
						 (uint32_t)(sizeof(u.rec) + nl + ml + il), time_ns};
		u.rec.addr = ip;
		u.rec.pid = kernel ? 0 : st->pid;
		u.rec.flags = kernel ? TT_FRAME_KERNEL : 0;
		u.rec.name_len = (uint16_t)nl;
		u.rec.module_len = (uint16_t)ml;
		u.rec.inlined_len = (uint16_t)il;
		sink_emit(sink, &u.rec.hdr);
	}
}
