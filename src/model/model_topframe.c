// SPDX-License-Identifier: GPL-2.0-only
/*
 * A thread's top frame as perf top would name it (see model_internal.h):
 * the user function its on-CPU samples hit most over the window, merged by
 * function so a hot loop over several addresses is one, and named by the
 * innermost function inlined there (the call tree's leaf, the hot-functions
 * view's SELF), so a hot inlined helper reads as itself; the thread
 * sampler's running samples stand in where there are no on-CPU samples. A
 * LuaJIT thread's on-CPU stacks are its sysprof samples in every view
 * (model__oncpu_stacks), so its top frame is its hottest Lua function (a
 * trace's samples counted to the function it runs in, as the LuaJIT pane
 * counts), not the JIT-compiled code's address its CPU-clock samples end
 * in. The
 * Threads pane shows it for threads that run or wait for a CPU, where their
 * latest kernel stack (an interrupt's return) says nothing of the work.
 */
#include "model_internal.h"

#define TOP_MAX 32 /* distinct leaf functions counted per thread; more fall out */

struct top {
	const struct model *m;
	uint32_t pid;
	size_t nr;
	struct {
		uint64_t function, ip, samples;
		unsigned inlined;
	} f[TOP_MAX];
};

static void top_add(void *arg, uint32_t ustack_id, uint64_t samples)
{
	struct top *top = arg;
	uint64_t ip = model__stack_leaf(top->m, ustack_id), function;
	unsigned inlined;
	size_t i;

	if (!ip)
		return;
	inlined = model_frame_innermost(top->m, top->pid, ip, false);
	function = model__frame_function(top->m, top->pid, ip, false, inlined);
	for (i = 0; i < top->nr && top->f[i].function != function; i++)
		;
	if (i == top->nr) {
		if (top->nr == TOP_MAX)
			return;
		top->f[top->nr].function = function;
		top->f[top->nr].ip = ip;
		top->f[top->nr].inlined = inlined;
		top->f[top->nr++].samples = 0;
	}
	top->f[i].samples += samples;
}

uint64_t model_thread_top_user(const struct model *m, const struct thread *t,
			       enum model_window window, uint32_t now_sec, unsigned *inlined)
{
	struct top top = {.m = m, .pid = t->pid};
	uint64_t lua = lj_model__thread_top(m->lj, window, t->pid, t->tid);
	size_t best = 0;

	if (lua) {
		*inlined = 0;
		return lua;
	}
	if (!trace_oncpu_each(m, t, window, top_add, &top)) {
		for (size_t i = 0; i < t->nr_keys; i++) {
			const struct sample_key *k = &t->keys[i].key;

			if ((k->state == TT_ST_R || k->state == TT_ST_Q) && k->ustack_id)
				top_add(&top, k->ustack_id,
					model_key_samples(m, t, i, window, now_sec));
		}
	}
	for (size_t i = 1; i < top.nr; i++)
		if (top.f[i].samples > top.f[best].samples)
			best = i;
	if (!top.nr || !top.f[best].samples)
		return 0;
	*inlined = top.f[best].inlined;
	return top.f[best].ip;
}
