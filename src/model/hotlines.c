// SPDX-License-Identifier: GPL-2.0-only
/* A function's hottest source lines (see hotlines.h). */
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hotlines.h"
#include "threadtop/frame_namer.h"
#include "u64map.h"
#include "util.h"

/* The function looked for, as the namer names it (copies: naming reuses its strings). */
struct wanted {
	char *name, *module;
};

static const char *file_copy(struct hotlines *h, const char *file)
{
	uint64_t k = hash_bytes(HASH_INIT, file, strlen(file));
	char *copy;

	for (; (copy = u64map__get(h->files, k)); k++) /* collisions: the next key */
		if (!strcmp(copy, file))
			return copy;
	copy = xstrdup(file);
	u64map__put(h->files, k, copy);
	return copy;
}

/* The index of (file, line), made when new; SIZE_MAX when the set is full. */
static size_t line_of(struct hotlines *h, const char *file, unsigned line, uint32_t pid)
{
	uint64_t k = hash_bytes(HASH_INIT ^ line, file, strlen(file));
	size_t i;

	for (;; k++) { /* collisions: the next key */
		uintptr_t v = (uintptr_t)u64map__get(h->index, k);

		if (!v)
			break;
		i = v - 1;
		if (h->lines[i].line == line && !strcmp(h->lines[i].file, file))
			return i;
	}
	if (h->nr == HOTLINES_MAX)
		return SIZE_MAX;
	xgrow((void **)&h->lines, &h->cap, h->nr + 1, sizeof(*h->lines));
	h->stamp = xrealloc(h->stamp, h->cap * sizeof(*h->stamp));
	i = h->nr++;
	h->lines[i] = (struct hotline){.file = file_copy(h, file), .line = line, .pid = pid};
	h->stamp[i] = 0;
	u64map__put(h->index, k, (void *)(uintptr_t)(i + 1));
	return i;
}

/* The inlined level of frame fn that is the wanted function, innermost first; -1: none. */
static int level_of(const struct frame_name *fn, const struct wanted *w)
{
	unsigned n = fn->inlined ? fn->nr_inlined : 0;

	if (strcmp(fn->module ? fn->module : "", w->module))
		return -1;
	for (unsigned l = n + 1; l-- > 0;)
		if (!strcmp(l ? fn->inlined[l - 1] : fn->name, w->name))
			return (int)l;
	return -1;
}

static void add_pair(struct hotlines *h, const struct model *m, const struct wanted *w,
		     const struct model_stack_count *c, uint32_t stamp)
{
	const struct tt_stack *us = model__stack(m, c->ustack_id);
	const struct tt_stack *ks = model__stack(m, c->kstack_id);
	uint32_t upid = us && us->pid ? us->pid : c->pid;
	bool user_leaf = !ks || !ks->nr, in = false, lineless = false;
	uint64_t wt = model_stack_count_weight(c);

	for (unsigned i = 0; us && !(us->flags & TT_STACK_KERNEL) && i < us->nr; i++) {
		struct frame_name fn;
		int l;
		size_t k;

		model__frame_name(m, upid, us->ips[i], false, &fn);
		l = level_of(&fn, w);
		if (l < 0)
			continue;
		if (!in) {
			in = true;
			h->total += c->samples;
			h->total_weight += wt;
		}
		/* Self as the Hot pane counts it: the leaf, the innermost function there. */
		if (!i && user_leaf && (unsigned)l == (fn.inlined ? fn.nr_inlined : 0)) {
			h->self += c->samples;
			h->self_weight += wt;
		} else {
			l = -1; /* from here: not self */
		}
		if (!fn.src_file || !fn.src_line) {
			lineless = true;
			continue;
		}
		k = line_of(h, fn.src_file, fn.src_line, upid);
		if (k == SIZE_MAX) {
			h->dropped += c->samples;
			h->dropped_weight += wt;
			continue;
		}
		if (l >= 0) {
			h->lines[k].self += c->samples;
			h->lines[k].self_weight += wt;
		}
		if (h->stamp[k] != stamp) { /* recursion: once per sample */
			h->stamp[k] = stamp;
			h->lines[k].total += c->samples;
			h->lines[k].total_weight += wt;
		}
	}
	if (lineless) {
		h->no_line += c->samples;
		h->no_line_weight += wt;
	}
}

static int by_total(const void *a, const void *b)
{
	const struct hotline *x = a, *y = b;
	int r;

	if (x->total_weight != y->total_weight)
		return x->total_weight < y->total_weight ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->self_weight != y->self_weight)
		return x->self_weight < y->self_weight ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	r = strcmp(x->file, y->file);
	return r ? r : (x->line > y->line) - (x->line < y->line);
}

struct hotlines *hotlines__new(const struct model *m, const struct model_stack_count *pairs,
			       size_t nr, uint32_t pid, uint64_t ip, bool kernel, unsigned level)
{
	struct hotlines *h = xcalloc(1, sizeof(*h));
	struct frame_name fn;
	struct wanted w;

	h->index = u64map__new();
	h->files = u64map__new();
	if (kernel || !ip || !model__frame_namer(m))
		return h; /* no line tables: kernel symbols, or frames named by address */
	model__frame_name(m, pid, ip, false, &fn);
	w.name = xstrdup(level && fn.inlined && level <= fn.nr_inlined ? fn.inlined[level - 1]
								       : fn.name);
	w.module = xstrdup(fn.module ? fn.module : "");
	for (size_t i = 0; i < nr; i++)
		add_pair(h, m, &w, &pairs[i], (uint32_t)i + 1);
	free(w.name);
	free(w.module);
	if (h->nr)
		qsort(h->lines, h->nr, sizeof(*h->lines), by_total);
	u64map__free(h->index); /* its indexes do not survive the sort */
	h->index = NULL;
	free(h->stamp);
	h->stamp = NULL;
	return h;
}

void hotlines__free(struct hotlines *h)
{
	if (!h)
		return;
	u64map__free(h->index);
	u64map__free_all(h->files, free);
	free(h->stamp);
	free(h->lines);
	free(h);
}
