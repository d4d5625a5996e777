// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the hot functions (issue #25): self and total per function
 * merged over addresses and processes, total counted once per sample under
 * recursion, functions inlined at the leaf, the bound on the functions kept,
 * and the agreement of the three users: the set the TUI's Hot pane makes
 * from the call tree's input, the one batch JSON and the JSON report make
 * from the profile, the call tree's own self counts, and batch JSON's line;
 * and the cache behind the Hot pane (the same sets as a cold computation,
 * not stale after a names change, a stack replaced or aged).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "batch.h"
#include "calltree.h"
#include "hotfuncs.h"
#include "hotfuncs_cache.h"
#include "model.h"
#include "profile.h"
#include "threadtop/frame_namer.h"
#include "u64map.h"
#include "util.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)

#define U_MAIN 0x1000
#define U_REC 0x1800	/* "rec", which calls itself */
#define U_LEAF_A 0x2000 /* two addresses in "leaf" */
#define U_LEAF_B 0x2010
#define U_INL 0x2400 /* "outer" with "inner" inlined at this address */
#define K_FN 0xffffffff81000100ull

static const char *const inlined_here[] = {"inner"};
/* What the namer calls "leaf" (a names change renames it), and whether kallsyms is in. */
static const char *leaf_name = "leaf";
static bool kallsyms_pending;

static int test_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static char buf[32];

	(void)ctx;
	(void)pid;
	memset(ret, 0, sizeof(*ret));
	ret->kernel = kernel;
	ret->module = kernel ? "[kernel]" : "app";
	if (kernel && kallsyms_pending) {
		ret->name = "(reading kallsyms)"; /* SYM_KERNEL_LOADING */
	} else if (kernel && addr >= K_FN && addr < K_FN + 0x100) {
		ret->name = "k_fn";
	} else if (!kernel && addr >= U_MAIN && addr < U_MAIN + 0x100) {
		ret->name = "main";
	} else if (!kernel && addr >= U_REC && addr < U_REC + 0x100) {
		ret->name = "rec";
	} else if (!kernel && addr >= U_LEAF_A && addr < U_LEAF_A + 0x100) {
		ret->name = leaf_name;
	} else if (!kernel && addr >= U_INL && addr < U_INL + 0x100) {
		ret->name = "outer";
		ret->inlined = inlined_here;
		ret->nr_inlined = 1;
	} else {
		snprintf(buf, sizeof(buf), "app+0x%llx", (unsigned long long)addr);
		ret->name = buf;
	}
	return 0;
}

static const struct frame_namer namer = {test_name, NULL};

/* Stack id of process pid, frames leaf first (callers as return addresses, + 1). */
static void add_stack(struct model *m, uint32_t id, uint32_t pid, bool kernel, const uint64_t *ips,
		      int nr)
{
	size_t size = sizeof(struct tt_stack) + (size_t)nr * sizeof(uint64_t);
	struct tt_stack *st = calloc(1, size);

	st->hdr = (struct tt_event_header){TT_EV_STACK, TT_STACK_VERSION, (uint32_t)size, T0};
	st->id = id;
	st->pid = pid;
	st->nr = (uint16_t)nr;
	st->flags = kernel ? TT_STACK_KERNEL : 0;
	for (int i = 0; i < nr; i++)
		st->ips[i] = ips[i] + (i ? 1 : 0);
	model__ingest(m, &st->hdr);
	free(st);
}

static void cpu_sample(struct model *m, uint32_t pid, uint32_t tid, uint32_t k, uint32_t u, int n)
{
	struct tt_cpu_sample s = {
		.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s), T0 + SEC / 2},
		.pid = pid,
		.tid = tid,
		.kstack_id = k,
		.ustack_id = u,
		.weight_us = 10101,
		.comm = "app",
	};

	for (int i = 0; i < n; i++)
		model__ingest(m, &s.hdr);
}

/*
 * Process 10: main > leaf (A: 4 samples, B: 2 of which 1 with k_fn below),
 * main > rec > rec > rec > leaf (3), main > outer/inner (inlined, 2).
 * Process 20: main > leaf (3). 14 samples in all.
 */
static struct model *fixture(void)
{
	static const uint64_t s1[] = {U_LEAF_A, U_MAIN};
	static const uint64_t s2[] = {U_LEAF_B, U_MAIN};
	static const uint64_t s3[] = {U_LEAF_A, U_REC + 8, U_REC + 8, U_REC, U_MAIN};
	static const uint64_t s4[] = {U_INL, U_MAIN};
	static const uint64_t k1[] = {K_FN};
	struct model *m = model__new(NULL);

	model__set_frame_namer(m, &namer);
	model__advance(m, T0);
	add_stack(m, 1, 10, false, s1, 2);
	add_stack(m, 2, 10, false, s2, 2);
	add_stack(m, 3, 10, false, s3, 5);
	add_stack(m, 4, 10, false, s4, 2);
	add_stack(m, 5, 20, false, s1, 2);
	add_stack(m, 6, 0, true, k1, 1);
	cpu_sample(m, 10, 11, 0, 1, 4);
	cpu_sample(m, 10, 11, 0, 2, 1);
	cpu_sample(m, 10, 11, 6, 2, 1);
	cpu_sample(m, 10, 12, 0, 3, 3);
	cpu_sample(m, 10, 12, 0, 4, 2);
	cpu_sample(m, 20, 21, 0, 5, 3);
	model__advance(m, T0 + SEC);
	return m;
}

/* The window's on-CPU stack pairs, as the Stacks and Hot panes feed the tree. */
static struct model_stack_counts pairs_of(struct model *m, enum model_window w)
{
	struct model_stack_counts set = {0};
	struct model_stack_row *rows;
	int n = model__oncpu(m, w, &rows);

	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		model_stack_counts__add(&set, rows[i].kstack_id, rows[i].ustack_id, rows[i].pid,
					rows[i].pcomm, rows[i].value, 0);
	model_stack_counts__done(&set);
	free(rows);
	return set;
}

static void assert_same(const struct hotfuncs *a, const struct hotfuncs *b);

static const struct hotfunc *find(const struct hotfuncs *h, const char *name)
{
	const struct hotfunc *f = hotfuncs__find(h, name, NULL);

	assert_non_null(f);
	return f;
}

static void self_and_total(void **state)
{
	struct model *m = fixture();
	struct model_stack_counts set = pairs_of(m, WIN_SESSION);
	struct hotfuncs *h = hotfuncs__new(m, set.out, set.nr);
	const struct hotfunc *f;

	(void)state;
	assert_int_equal(h->total, 14);
	/* leaf: both addresses, both processes, through rec too; one k_fn sample is k_fn's. */
	f = find(h, "leaf");
	assert_int_equal(f->self, 4 + 1 + 3 + 3);
	assert_int_equal(f->total, 4 + 2 + 3 + 3);
	assert_int_equal(f->nr_pids, 2);
	assert_string_equal(f->module, "app");
	/* The first row is the hottest leaf. */
	assert_ptr_equal(h->funcs[0], f);
	f = find(h, "k_fn");
	assert_true(f->kernel);
	assert_int_equal(f->self, 1);
	assert_int_equal(f->pids[0], 10);
	/* main is on every stack, the leaf of none. */
	f = find(h, "main");
	assert_int_equal(f->self, 0);
	assert_int_equal(f->total, 14);
	/* rec is three times on its stack: counted once per sample. */
	f = find(h, "rec");
	assert_int_equal(f->total, 3);
	assert_int_equal(f->self, 0);
	/* inner, inlined into outer at the leaf address: the leaf is inner. */
	assert_int_equal(find(h, "inner")->self, 2);
	assert_int_equal(find(h, "outer")->self, 0);
	assert_int_equal(find(h, "outer")->total, 2);
	/* Every sample is some function's self. */
	{
		uint64_t self = 0;

		for (size_t i = 0; i < h->nr; i++)
			self += h->funcs[i]->self;
		assert_int_equal(self, h->total);
	}
	hotfuncs__sort(h, HOTFUNCS_BY_TOTAL, false);
	assert_string_equal(h->funcs[0]->name, "main");
	hotfuncs__sort(h, HOTFUNCS_BY_NAME, false);
	assert_string_equal(h->funcs[0]->name, "inner");
	hotfuncs__sort(h, HOTFUNCS_BY_NAME, true);
	assert_string_equal(h->funcs[0]->name, "rec");
	hotfuncs__free(h);
	free(set.out);
	model__free(m);
}

/* Sum of the self counts of the call tree's nodes named name (the whole tree built). */
static uint64_t tree_self(struct model *m, struct calltree *t, uint32_t i, const char *name)
{
	const struct calltree_node *n;
	uint64_t sum = 0;
	char buf[64];
	struct frame_name fn;

	calltree__expand(t, i);
	n = calltree__node(t, i);
	if (i != CALLTREE_ROOT && !n->process) {
		model__frame_name(m, calltree__node_pid(t, i), n->ip, n->kernel, &fn);
		snprintf(buf, sizeof(buf), "%s",
			 n->inlined && fn.inlined ? fn.inlined[n->inlined - 1] : fn.name);
		if (!strcmp(buf, name))
			sum += n->self;
	}
	for (uint32_t c = calltree__node(t, i)->first_child; c != CALLTREE_NONE;
	     c = calltree__node(t, c)->next_sibling)
		sum += tree_self(m, t, c, name);
	return sum;
}

/* The "name" entry's value of key in a hot_functions array of a JSON line. */
static long long json_field(const char *line, const char *name, const char *key)
{
	char pat[96];
	const char *at, *k;

	snprintf(pat, sizeof(pat), "\"name\":\"%s\"", name);
	at = strstr(line, pat);
	assert_non_null(at);
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	k = strstr(at, pat);
	assert_non_null(k);
	return atoll(k + strlen(pat));
}

/*
 * The Hot pane's set (from the tree's input), the exporters' (from the
 * profile), the call tree's self counts and batch JSON's line all agree.
 */
static void views_agree(void **state)
{
	struct model *m = fixture();
	struct model_stack_counts set = pairs_of(m, WIN_INTERVAL);
	struct hotfuncs *tui = hotfuncs__new(m, set.out, set.nr);
	struct profile_opts po = {.window = WIN_INTERVAL, .namer = &namer};
	struct profile *p = profile__build(m, &po);
	struct hotfuncs *exp = hotfuncs__from_profile(m, p, PROFILE_ONCPU, 0);
	struct calltree *t = calltree__new_flags(m, set.out, set.nr, CALLTREE_PROCESSES);
	struct batch_info info = {.source = "bpf", .hz = 20};
	char *line = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&line, &len);

	(void)state;
	assert_non_null(out);
	assert_int_equal(batch_print_interval(m, FORMAT_JSON, &info, out), 0);
	fclose(out);
	assert_non_null(strstr(line, "\"hot_functions\":["));
	assert_int_equal(tui->total, exp->total);
	assert_int_equal(tui->total, calltree__node(t, CALLTREE_ROOT)->total);
	assert_int_equal(tui->nr, exp->nr);
	for (size_t i = 0; i < tui->nr; i++) {
		const struct hotfunc *a = tui->funcs[i], *b = exp->funcs[i];

		assert_string_equal(a->name, b->name);
		assert_int_equal(a->self, b->self);
		assert_int_equal(a->total, b->total);
		assert_int_equal(a->nr_pids, b->nr_pids);
		assert_int_equal(a->self, tree_self(m, t, CALLTREE_ROOT, a->name));
		assert_int_equal(a->self, json_field(line, a->name, "self"));
		assert_int_equal(a->total, json_field(line, a->name, "total"));
	}
	free(line);
	calltree__free(t);
	hotfuncs__free(exp);
	profile__free(p);
	hotfuncs__free(tui);
	free(set.out);
	model__free(m);
}

/* Without a namer (a replay without names) functions are addresses: leaf's two stay apart. */
static void addresses_without_namer(void **state)
{
	struct model *m = fixture();
	struct model_stack_counts set;
	struct hotfuncs *h;

	(void)state;
	model__set_frame_namer(m, NULL);
	set = pairs_of(m, WIN_SESSION);
	h = hotfuncs__new(m, set.out, set.nr);
	assert_int_equal(h->total, 14);
	assert_null(hotfuncs__find(h, "leaf", NULL));
	assert_true(h->nr >= 6);
	hotfuncs__free(h);
	free(set.out);
	model__free(m);
}

/* A set keeps at most HOTFUNCS_MAX functions; the others' samples are counted as dropped. */
static void bounded(void **state)
{
	struct model *m = model__new(NULL);
	uint32_t nr = HOTFUNCS_MAX + 10;
	struct model_stack_count *pairs = xcalloc(nr, sizeof(*pairs));
	struct hotfuncs_cache *c = hotfuncs_cache__new();
	struct hotfuncs *h;

	(void)state;
	model__advance(m, T0);
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t ip = 0x100000 + (uint64_t)i * 16;

		add_stack(m, i + 1, 10, false, &ip, 1);
		pairs[i] = (struct model_stack_count){.ustack_id = i + 1, .pid = 10, .samples = 1};
	}
	h = hotfuncs__new(m, pairs, nr);
	assert_int_equal(h->nr, HOTFUNCS_MAX);
	assert_int_equal(h->dropped, 10);
	assert_int_equal(h->total, nr);
	/* The cache's sets, the first and the next, drop the same functions. */
	for (int i = 0; i < 2; i++) {
		struct hotfuncs *w = hotfuncs__new_cached(c, m, pairs, nr);

		assert_same(w, h);
		hotfuncs__free(w);
	}
	hotfuncs_cache__free(c);
	hotfuncs__free(h);
	free(pairs);
	model__free(m);
}

/* The order hotfuncs__sort asks for (self, then total, then by address here), as one key. */
static int by_self(const void *pa, const void *pb)
{
	const struct hotfunc *a = *(const struct hotfunc *const *)pa;
	const struct hotfunc *b = *(const struct hotfunc *const *)pb;

	if (a->self_weight != b->self_weight)
		return a->self_weight < b->self_weight ? 1 : -1;
	if (a->self != b->self)
		return a->self < b->self ? 1 : -1;
	if (a->total_weight != b->total_weight)
		return a->total_weight < b->total_weight ? 1 : -1;
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return (a->ip > b->ip) - (a->ip < b->ip);
}

/*
 * The first rows sorted, the rest after them (hotfuncs__sort_first), are
 * those of a whole sort, in its order, and the set keeps every function:
 * in the order made, reversed, and reversed back; then the rest
 * (hotfuncs__sort_more) completes the whole sort.
 */
static void sort_first_is_sort(void **state)
{
	struct model *m = model__new(NULL);
	uint32_t nr = 5000;
	struct model_stack_count *pairs = xcalloc(nr, sizeof(*pairs));
	struct hotfunc **want = xcalloc(nr, sizeof(*want));
	struct hotfuncs *h;
	uint64_t seed = 42, sum = 0;

	(void)state;
	model__advance(m, T0);
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t ip = 0x100000 + (uint64_t)i * 16;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		add_stack(m, i + 1, 10, false, &ip, 1);
		/* Many ties in samples, as on a real box: the next keys must decide. */
		pairs[i] = (struct model_stack_count){
			.ustack_id = i + 1, .pid = 10, .samples = 1 + (seed >> 60), .ns = 0};
	}
	h = hotfuncs__new(m, pairs, nr);
	assert_int_equal(h->nr, nr);
	for (int round = 0; round < 3; round++) {
		bool reverse = round == 1;
		size_t k = HOTFUNCS_SORT_FIRST;

		memcpy(want, h->funcs, nr * sizeof(*want));
		qsort(want, nr, sizeof(*want), by_self);
		if (reverse)
			for (size_t i = 0, j = nr - 1; i < j; i++, j--) {
				struct hotfunc *x = want[i];

				want[i] = want[j];
				want[j] = x;
			}
		hotfuncs__sort_first(h, HOTFUNCS_BY_SELF, reverse, k);
		assert_int_equal(h->sorted, k);
		for (size_t i = 0; i < k; i++)
			assert_ptr_equal(h->funcs[i], want[i]);
		/* Every function once: the same entries, whatever their order. */
		sum = 0;
		for (size_t i = 0; i < nr; i++)
			sum += (uint64_t)(uintptr_t)h->funcs[i] * 0x9e3779b97f4a7c15ull;
		for (size_t i = 0; i < nr; i++)
			sum -= (uint64_t)(uintptr_t)want[i] * 0x9e3779b97f4a7c15ull;
		assert_int_equal(sum, 0);
	}
	assert_int_equal(hotfuncs__sort_more(h, nr), nr);
	for (size_t i = 0; i < nr; i++)
		assert_ptr_equal(h->funcs[i], want[i]);
	hotfuncs__free(h);
	free(want);
	free(pairs);
	model__free(m);
}

/* a and b are the same set, entry by entry, in the same order. */
static void assert_same(const struct hotfuncs *a, const struct hotfuncs *b)
{
	assert_int_equal(a->nr, b->nr);
	assert_int_equal(a->sorted, b->sorted);
	assert_int_equal(a->total, b->total);
	assert_int_equal(a->dropped, b->dropped);
	for (size_t i = 0; i < a->nr; i++) {
		const struct hotfunc *x = a->funcs[i], *y = b->funcs[i];
		char bx[HOTFUNC_NAME_LEN], by[HOTFUNC_NAME_LEN];

		assert_string_equal(hotfunc_name(x, bx), hotfunc_name(y, by));
		assert_string_equal(x->module ? x->module : "-", y->module ? y->module : "-");
		assert_int_equal(x->kernel, y->kernel);
		assert_int_equal(x->ip, y->ip);
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->level, y->level);
		assert_int_equal(x->self, y->self);
		assert_int_equal(x->total, y->total);
		assert_int_equal(x->nr_pids, y->nr_pids);
		assert_int_equal(x->more_pids, y->more_pids);
		assert_memory_equal(x->pids, y->pids, sizeof(x->pids));
		assert_string_equal(x->comm, y->comm);
	}
}

/* The set made with cache c over the window's pairs is the cold one; returns it. */
static struct hotfuncs *cached_is_cold(struct hotfuncs_cache *c, struct model *m,
				       enum model_window w)
{
	struct model_stack_counts set = pairs_of(m, w);
	struct hotfuncs *cold = hotfuncs__new(m, set.out, set.nr);
	struct hotfuncs *warm = hotfuncs__new_cached(c, m, set.out, set.nr);

	assert_same(warm, cold);
	hotfuncs__free(cold);
	free(set.out);
	return warm;
}

/* The cache's sets, made again and over other windows, are the cold ones. */
static void cache_is_cold(void **state)
{
	struct model *m = fixture();
	struct hotfuncs_cache *c = hotfuncs_cache__new();
	struct hotfuncs *h;
	static const enum model_window windows[] = {WIN_SESSION, WIN_SESSION, WIN_INTERVAL,
						    WIN_SESSION};
	size_t lists;

	(void)state;
	for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++)
		hotfuncs__free(cached_is_cold(c, m, windows[i]));
	/* Kept between sets: one list per stack and position, however many sets. */
	lists = u64map__count(c->lists);
	assert_int_equal(lists, 6);
	hotfuncs__free(cached_is_cold(c, m, WIN_SESSION));
	assert_int_equal(u64map__count(c->lists), lists);
	/* Without a namer frames are addresses: the cache follows, and back. */
	model__set_frame_namer(m, NULL);
	h = cached_is_cold(c, m, WIN_SESSION);
	assert_null(hotfuncs__find(h, "leaf", NULL));
	hotfuncs__free(h);
	hotfuncs__free(cached_is_cold(c, m, WIN_SESSION));
	model__set_frame_namer(m, &namer);
	h = cached_is_cold(c, m, WIN_SESSION);
	assert_non_null(hotfuncs__find(h, "leaf", NULL));
	hotfuncs__free(h);
	hotfuncs_cache__free(c);
	model__free(m);
}

/* A names change (kallsyms in, a function renamed) is not served from the cache. */
static void cache_follows_names(void **state)
{
	struct model *m;
	struct hotfuncs_cache *c = hotfuncs_cache__new();
	struct hotfuncs *h;

	(void)state;
	kallsyms_pending = true;
	m = fixture();
	h = cached_is_cold(c, m, WIN_SESSION);
	assert_non_null(hotfuncs__find(h, "(reading kallsyms)", NULL));
	assert_null(hotfuncs__find(h, "k_fn", NULL));
	hotfuncs__free(h);
	/* kallsyms is in: the front end is told, and so is the model. */
	kallsyms_pending = false;
	leaf_name = "leaf2";
	model__names_changed(m);
	h = cached_is_cold(c, m, WIN_SESSION);
	assert_null(hotfuncs__find(h, "(reading kallsyms)", NULL));
	assert_int_equal(hotfuncs__find(h, "k_fn", NULL)->self, 1);
	assert_null(hotfuncs__find(h, "leaf", NULL));
	assert_int_equal(hotfuncs__find(h, "leaf2", NULL)->self, 4 + 1 + 3 + 3);
	hotfuncs__free(h);
	leaf_name = "leaf";
	hotfuncs_cache__free(c);
	model__free(m);
}

/* A stack sent again under its id with other frames: the set has the new ones. */
static void cache_follows_replaced_stack(void **state)
{
	static const uint64_t other[] = {U_INL, U_REC, U_MAIN};
	struct model *m = fixture();
	struct hotfuncs_cache *c = hotfuncs_cache__new();
	struct hotfuncs *h;

	(void)state;
	h = cached_is_cold(c, m, WIN_SESSION);
	assert_int_equal(find(h, "rec")->total, 3);
	hotfuncs__free(h);
	add_stack(m, 1, 10, false, other, 3); /* stack 1 (main > leaf, 4 samples) is another now */
	h = cached_is_cold(c, m, WIN_SESSION);
	assert_int_equal(find(h, "rec")->total, 3 + 4);
	assert_int_equal(find(h, "inner")->self, 2 + 4);
	assert_int_equal(find(h, "leaf")->self, 1 + 3 + 3);
	hotfuncs__free(h);
	hotfuncs_cache__free(c);
	model__free(m);
}

/* Samples whose stack comes later: the set after it has its frames. */
static void cache_waits_for_stacks(void **state)
{
	static const uint64_t later[] = {U_REC, U_MAIN};
	struct model *m = fixture();
	struct hotfuncs_cache *c = hotfuncs_cache__new();
	struct hotfuncs *h;

	(void)state;
	cpu_sample(m, 10, 13, 0, 9, 2);
	h = cached_is_cold(c, m, WIN_SESSION);
	assert_int_equal(h->total, 14 + 2);
	assert_int_equal(find(h, "rec")->total, 3);
	hotfuncs__free(h);
	add_stack(m, 9, 10, false, later, 2);
	h = cached_is_cold(c, m, WIN_SESSION);
	assert_int_equal(find(h, "rec")->total, 3 + 2);
	assert_int_equal(find(h, "rec")->self, 2);
	hotfuncs__free(h);
	hotfuncs_cache__free(c);
	model__free(m);
}

/* A sample at t of thread tid of process pid. */
static void cpu_sample_at(struct model *m, uint64_t t, uint32_t pid, uint32_t tid, uint32_t u)
{
	struct tt_cpu_sample s = {
		.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s), t},
		.pid = pid,
		.tid = tid,
		.ustack_id = u,
		.weight_us = 10101,
		.comm = "app",
	};

	model__ingest(m, &s.hdr);
}

/* One second of process 30's thread (on stack ustack), then the interval's end. */
static void age_second(struct model *m, uint64_t t, uint32_t ustack)
{
	model__advance(m, t);
	cpu_sample_at(m, t + 1, 30, 31, ustack);
	model__end_interval(m, t + SEC / 2);
}

/*
 * A stack aged out of the model (its process gone, past the retention and
 * the id horizon) leaves the cache at the next set; its id used again for
 * other frames is not served stale.
 */
static void cache_drops_aged_stacks(void **state)
{
	static const uint64_t live[] = {U_MAIN}, dead[] = {U_LEAF_A, U_MAIN};
	static const uint64_t reused[] = {U_REC, U_MAIN};
	struct model *m = model__new(NULL); /* retention 60 s */
	struct hotfuncs_cache *c = hotfuncs_cache__new();
	struct hotfuncs *h;
	uint64_t t = T0;
	uint32_t next = 100 + TT_STACK_ID_HORIZON;

	(void)state;
	model__set_frame_namer(m, &namer);
	model__advance(m, t);
	add_stack(m, 50, 30, false, live, 1);
	add_stack(m, 100, 40, false, dead, 2);
	cpu_sample_at(m, t + 1, 40, 41, 100);
	cpu_sample_at(m, t + 2, 40, 41, 100);
	age_second(m, t, 50);
	h = cached_is_cold(c, m, WIN_SESSION);
	assert_int_equal(find(h, "leaf")->self, 2);
	hotfuncs__free(h);
	assert_int_equal(u64map__count(c->lists), 2);
	/* Process 40 is gone past the retention, the sources past the horizon. */
	add_stack(m, next, 30, false, live, 1);
	for (t += SEC; t < T0 + 90 * SEC; t += SEC)
		age_second(m, t, next);
	assert_null(model__stack(m, 100));
	h = cached_is_cold(c, m, WIN_LAST);
	hotfuncs__free(h);
	assert_null(u64map__get(c->lists, 100 | 1ull << 62));
	assert_true(u64map__count(c->lists) <= 2);
	/* Id 100 again, for other frames of process 40. */
	add_stack(m, 100, 40, false, reused, 2);
	for (int i = 0; i < 3; i++)
		cpu_sample_at(m, t + 1 + (uint64_t)i, 40, 42, 100);
	h = cached_is_cold(c, m, WIN_INTERVAL);
	assert_null(hotfuncs__find(h, "leaf", NULL));
	assert_int_equal(find(h, "rec")->self, 3);
	hotfuncs__free(h);
	hotfuncs_cache__free(c);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(self_and_total),
		cmocka_unit_test(views_agree),
		cmocka_unit_test(addresses_without_namer),
		cmocka_unit_test(bounded),
		cmocka_unit_test(sort_first_is_sort),
		cmocka_unit_test(cache_is_cold),
		cmocka_unit_test(cache_follows_names),
		cmocka_unit_test(cache_follows_replaced_stack),
		cmocka_unit_test(cache_drops_aged_stacks),
		cmocka_unit_test(cache_waits_for_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
