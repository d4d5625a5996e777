// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stack frame names for every view (see model.h): the model keeps the frame
 * namer a live run sets up and answers model__frame_name with it, so the
 * batch output, the TUI and the exporters name frames the same way; and
 * the same for cgroups (container, pod and unit names).
 */
#include <string.h>

#include "model_internal.h"
#include "threadtop/frame_namer.h"

bool model__frame_is_tracer(const char *name)
{
	static const char *const prefixes[] = {"bpf_prog_", "bpf_trace_run", "__traceiter_",
					       "__bpf_trace_"};

	for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
		if (!strncmp(name, prefixes[k], strlen(prefixes[k])))
			return true;
	return false;
}

void model__set_frame_namer(struct model *m, const struct frame_namer *namer)
{
	m->namer = namer;
	m->names_gen++;
}

void model__names_changed(struct model *m)
{
	m->names_gen++;
}

uint64_t model__names_gen(const struct model *m)
{
	return m->names_gen;
}

uint64_t model__stacks_gone(const struct model *m)
{
	return m->stacks_gone;
}

const struct frame_namer *model__frame_namer(const struct model *m)
{
	return m ? m->namer : NULL;
}

void model__set_exact_namer(struct model *m, const struct frame_namer *namer)
{
	m->exact_namer = namer;
}

const struct frame_namer *model__exact_namer(const struct model *m)
{
	return m && m->exact_namer ? m->exact_namer : model__frame_namer(m);
}

void model__frame_name(const struct model *m, uint32_t pid, uint64_t addr, bool kernel,
		       struct frame_name *ret)
{
	const char *lua = m && !kernel ? lj_model__frame_name(m->lj, addr) : NULL;

	if (lua) { /* a Lua function of a LuaJIT stack (lj_model.h) */
		*ret = (struct frame_name){.name = lua, .module = LJ_FRAME_MODULE};
		return;
	}
	frame_namer__name(m ? m->namer : NULL, pid, addr, kernel, ret);
}

/* FNV-1a of a string, folded into h, with its terminator ("ab"+"c" is not "a"+"bc"). */
static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h * 0x100000001b3ull;
}

unsigned model_frame_innermost(const struct model *m, uint32_t pid, uint64_t addr, bool kernel)
{
	struct frame_name fn;

	if (!addr || !m || !m->namer)
		return 0;
	model__frame_name(m, pid, addr, kernel, &fn);
	return fn.inlined ? fn.nr_inlined : 0;
}

uint64_t model__frame_function(const struct model *m, uint32_t pid, uint64_t addr, bool kernel,
			       unsigned level)
{
	struct frame_name fn;
	const char *name;
	uint64_t id;

	if (!addr)
		return 0;
	if (!m || (!m->namer && (kernel || !lj_model__frame_name(m->lj, addr))))
		return addr ^ ((uint64_t)level << 56);
	model__frame_name(m, pid, addr, kernel, &fn);
	name = level && fn.inlined && level <= fn.nr_inlined ? fn.inlined[level - 1] : fn.name;
	id = str_hash(str_hash(0xcbf29ce484222325ull, name), fn.module) ^ ((uint64_t)level << 56);
	return id ? id : 1;
}

void model__set_cgroup_namer(struct model *m, const struct cgroup_namer *namer)
{
	m->cg_namer = namer;
}

const char *model__cgroup_name(const struct model *m, uint64_t id)
{
	static char buf[128];

	if (!m || !m->cg_namer || !id || m->cg_namer->name(m->cg_namer->ctx, id, buf, sizeof(buf)))
		return NULL;
	return buf;
}

uint64_t model__thread_cgroup(const struct model *m, uint32_t tid)
{
	const struct thread *t = m ? u64map__get(m->threads, tid) : NULL;

	return t ? t->cgroup_id : 0;
}
