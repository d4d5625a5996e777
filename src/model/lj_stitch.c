// SPDX-License-Identifier: GPL-2.0-only
/* Stitching LuaJIT host and guest stacks (see lj_stitch.h). */
#include <string.h>

#include "lj_stitch.h"

bool lj_stitch_is_entry(const char *name)
{
	static const char *const entries[] = {"lua_pcall",  "lua_call",	  "lua_cpcall",
					      "lua_resume", "lua_pcallk", "lua_callk"};

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(name, entries[i]))
			return true;
	return false;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* "module+0x1234": an address of module no symbol covers. */
static bool unnamed_in(const char *name, const char *module)
{
	size_t n;

	if (!module || !*module)
		return false;
	n = strlen(module);
	return !strncmp(name, module, n) && name[n] == '+';
}

unsigned lj_stitch_host_flags(const char *name, const char *module, const char *vm_module)
{
	static const char *const vm[] = {"lj_vm_",    "lj_BC_",	  "lj_ff_", "lj_fff_",	 "lj_meta_",
					 "lj_vmeta_", "lj_cont_", "[anon]", "[unknown]", "0x"};

	if (!name)
		return LJ_SF_VM;
	if (lj_stitch_is_entry(name))
		return LJ_SF_ENTRY;
	for (size_t i = 0; i < sizeof(vm) / sizeof(vm[0]); i++)
		if (starts(name, vm[i]))
			return LJ_SF_VM;
	if (vm_module && module && !strcmp(module, vm_module) && unnamed_in(name, module))
		return LJ_SF_VM;
	return 0;
}

struct stitch {
	const struct lj_stitch_frame *host, *guest;
	size_t nh, ng, gi, n, cap;
	uint32_t *out;
	long pending; /* the guest C function whose host frame (or VM entry) comes later, or -1 */
};

static void put(struct stitch *s, uint32_t ref)
{
	if (s->n < s->cap)
		s->out[s->n++] = ref;
}

/* Whether host[from..] has a frame called name (NULL: a VM entry). */
static bool host_has(const struct stitch *s, size_t from, const char *name)
{
	for (size_t i = from; i < s->nh; i++) {
		if (!name && (s->host[i].flags & LJ_SF_ENTRY))
			return true;
		if (name && s->host[i].name && !strcmp(s->host[i].name, name))
			return true;
	}
	return false;
}

/*
 * Guest frames from gi on, up to a C function that has its own host frame
 * in host[from..], or that calls Lua again through a VM entry there (its
 * frame is unnamed): that one becomes pending.
 */
static void segment(struct stitch *s, size_t from)
{
	while (s->gi < s->ng) {
		const struct lj_stitch_frame *g = &s->guest[s->gi];

		if ((g->flags & LJ_SF_CFUNC) && g->name &&
		    (host_has(s, from, g->name) || host_has(s, from, NULL))) {
			s->pending = (long)s->gi++;
			return;
		}
		put(s, LJ_STITCH_GUEST | (uint32_t)s->gi++);
	}
}

size_t lj_stitch(const struct lj_stitch_frame *host, size_t nh, const struct lj_stitch_frame *guest,
		 size_t ng, uint32_t *out, size_t cap)
{
	struct stitch s = {host, guest, nh, ng, 0, 0, cap, out, -1};
	bool spliced = false, due = false, any_entry = false;

	for (size_t i = 0; i < nh; i++)
		any_entry = any_entry || (host[i].flags & LJ_SF_ENTRY);
	for (size_t i = 0; i < nh; i++) {
		const struct lj_stitch_frame *h = &host[i];
	again:
		if (s.pending >= 0) {
			if (h->name && !strcmp(h->name, guest[s.pending].name)) {
				put(&s, (uint32_t)i); /* the C function's own frame */
				s.pending = -1;
				due = true; /* the next segment, after its VM entry if any */
				continue;
			}
			if (!(h->flags & LJ_SF_ENTRY)) {
				if (!(h->flags & LJ_SF_VM))
					put(&s, (uint32_t)i);
				continue;
			}
			/* An entry: the C function had no frame of its own we could name. */
			put(&s, LJ_STITCH_GUEST | (uint32_t)s.pending);
			s.pending = -1;
		}
		if (due) {
			if (h->flags & LJ_SF_VM)
				continue;
			due = false;
			if (!(h->flags & LJ_SF_ENTRY)) {
				segment(&s, i); /* lua_call tail-called the VM: no entry frame */
				goto again;
			}
		}
		if ((h->flags & LJ_SF_ENTRY) && s.gi < ng) {
			put(&s, (uint32_t)i);
			segment(&s, i + 1);
			spliced = true;
			continue;
		}
		if ((spliced || !any_entry) && (h->flags & LJ_SF_VM))
			continue;
		put(&s, (uint32_t)i);
	}
	if (s.pending >= 0)
		put(&s, LJ_STITCH_GUEST | (uint32_t)s.pending);
	while (s.gi < ng)
		put(&s, LJ_STITCH_GUEST | (uint32_t)s.gi++);
	return s.n;
}
