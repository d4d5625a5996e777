// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /proc source over the fixture tree in tests/fixtures/proc, and over a
 * tree written here that changes between passes (what schedstat lets it
 * skip; the CPU budget).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "source_proc.h"
#include "util.h"

#define MAX_EVENTS 64
#define SEC_NS 1000000000ull

struct capture {
	struct tt_event_header *ev[MAX_EVENTS];
	size_t nr;
};

static void capture_emit(void *ctx, const struct tt_event_header *ev)
{
	struct capture *c = ctx;

	assert_true(c->nr < MAX_EVENTS);
	c->ev[c->nr] = xmalloc(ev->size);
	memcpy(c->ev[c->nr++], ev, ev->size);
}

static void capture_free(struct capture *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->ev[i]);
	c->nr = 0;
}

static const struct tt_thread_sample *find_sample(struct capture *c, uint32_t tid)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->ev[i]->type == TT_EV_THREAD_SAMPLE &&
		    ((struct tt_thread_sample *)c->ev[i])->tid == tid)
			return (const struct tt_thread_sample *)c->ev[i];
	return NULL;
}

static const char *find_string(struct capture *c, uint32_t id)
{
	static char buf[TT_MAX_STRING_LEN + 1];

	for (size_t i = 0; i < c->nr; i++) {
		const struct tt_string *s = (const struct tt_string *)c->ev[i];

		if (c->ev[i]->type == TT_EV_STRING && s->id == id) {
			memcpy(buf, s->data, s->len);
			buf[s->len] = '\0';
			return buf;
		}
	}
	return NULL;
}

static size_t count_type(struct capture *c, unsigned type)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nr; i++)
		n += c->ev[i]->type == type;
	return n;
}

static struct source *open_fixture(struct capture *c, const int *pids, size_t nr_pids)
{
	struct proc_source_opts o = {
		.proc_root = TT_FIXTURES "/proc", .pids = pids, .nr_pids = nr_pids, .hz = 20};
	struct event_sink sink = {capture_emit, c};
	char err[256];
	struct source *src = proc_source__new(&o, sink, err, sizeof(err));

	assert_non_null(src);
	return src;
}

static void samples_every_thread(void **state)
{
	struct capture c = {0};
	struct source *src = open_fixture(&c, NULL, 0);
	const struct tt_thread_sample *s;

	assert_int_equal(src->ops->tick(src, 1000), 0);
	/* nginx 100 (S in epoll_wait), 101 (R), kthreadd 2 (S), dd 300 (D in read). */
	s = find_sample(&c, 100);
	assert_non_null(s);
	assert_int_equal(s->state, TT_ST_S);
	assert_int_equal(s->syscall_nr, 232);
	assert_int_equal(s->syscall_args[0], 5);
	assert_int_equal(s->weight_us, 50000);
	assert_string_equal(find_string(&c, s->wchan_id), "do_epoll_wait");
	assert_string_equal(s->comm, "nginx");

	s = find_sample(&c, 101);
	assert_non_null(s);
	assert_int_equal(s->state, TT_ST_R);
	assert_int_equal(s->syscall_nr, TT_SYSCALL_NONE);
	assert_int_equal(s->wchan_id, 0);
	assert_int_equal(s->pid, 100);
	assert_string_equal(s->comm, "worker (1) x");

	s = find_sample(&c, 2);
	assert_non_null(s);
	assert_true(s->flags & TT_SAMPLE_KTHREAD);
	assert_int_equal(s->syscall_nr, TT_SYSCALL_NONE); /* its "0 0x0..." is not a read() */

	s = find_sample(&c, 300);
	assert_non_null(s);
	assert_int_equal(s->state, TT_ST_D);
	assert_int_equal(s->syscall_nr, 0);

	/* The idle kworker is filtered, the vanished tid 102 is a drop. */
	assert_null(find_sample(&c, 3));
	assert_null(find_sample(&c, 102));
	assert_int_equal(count_type(&c, TT_EV_THREAD_SAMPLE), 4);
	assert_int_equal(count_type(&c, TT_EV_THREAD_INFO), 4);
	assert_int_equal(count_type(&c, TT_EV_DROPS), 1);
	assert_int_equal(count_type(&c, TT_EV_TICK), 1);
	for (size_t i = 0; i < c.nr; i++) {
		const struct tt_thread_info *info = (const struct tt_thread_info *)c.ev[i];

		if (c.ev[i]->type == TT_EV_DROPS)
			assert_int_equal(((struct tt_drops *)c.ev[i])->count[TT_DROP_VANISHED], 1);
		if (c.ev[i]->type == TT_EV_THREAD_INFO && info->tid == 100)
			assert_string_equal(find_string(&c, info->cmdline_id),
					    "nginx -g daemon off;");
	}
	capture_free(&c);
	source__free(src);
}

static void second_tick_sends_no_dictionary_again(void **state)
{
	struct capture c = {0};
	struct source *src = open_fixture(&c, NULL, 0);

	assert_int_equal(src->ops->tick(src, 1000), 0);
	capture_free(&c);
	assert_int_equal(src->ops->tick(src, 2000), 0);
	assert_int_equal(count_type(&c, TT_EV_THREAD_SAMPLE), 4);
	assert_int_equal(count_type(&c, TT_EV_THREAD_INFO), 0);
	assert_int_equal(count_type(&c, TT_EV_STRING), 0);
	capture_free(&c);
	source__free(src);
}

static void pid_filter(void **state)
{
	struct capture c = {0};
	int pids[] = {300};
	struct source *src = open_fixture(&c, pids, 1);

	assert_int_equal(src->ops->tick(src, 1000), 0);
	assert_int_equal(count_type(&c, TT_EV_THREAD_SAMPLE), 1);
	assert_non_null(find_sample(&c, 300));
	capture_free(&c);
	source__free(src);
}

static void missing_root_is_an_error(void **state)
{
	struct proc_source_opts o = {.proc_root = TT_FIXTURES "/no-such-proc", .hz = 20};
	struct event_sink sink = {capture_emit, NULL};
	char err[256];

	assert_null(proc_source__new(&o, sink, err, sizeof(err)));
	assert_non_null(strstr(err, "no-such-proc"));
}

/* A tree of one sleeping thread, 500, whose files the test rewrites. */
struct live_tree {
	char root[64];
};

static void put(const struct live_tree *t, const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void live_tree_make(struct live_tree *t)
{
	char path[256];

	snprintf(t->root, sizeof(t->root), "/tmp/tt_proc_XXXXXX");
	assert_non_null(mkdtemp(t->root));
	snprintf(path, sizeof(path), "%s/500", t->root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/500/task", t->root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/500/task/500", t->root);
	assert_int_equal(mkdir(path, 0700), 0);
	put(t, "500/cmdline", "sleeper");
	put(t, "500/task/500/stat",
	    "500 (sleeper) S 1 500 500 0 -1 4194560 0 0 0 0 7 3 0 0 20 0 1 0 4200 1 1 1 1 1 0 "
	    "0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put(t, "500/task/500/syscall", "0 0x3 0x1 0x1 0x0 0x0 0x0 0x7ffd00000f00 0x7f00000012\n");
	put(t, "500/task/500/wchan", "pipe_read");
	put(t, "500/task/500/schedstat", "123456789 1000 42\n");
}

static void live_tree_free(struct live_tree *t)
{
	const char *files[] = {"stat", "syscall", "wchan", "schedstat"};
	char path[256];

	snprintf(path, sizeof(path), "%s/loadavg", t->root);
	unlink(path);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/500/task/500/%s", t->root, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/500/cmdline", t->root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/500/task/500", t->root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/500/task", t->root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/500", t->root);
	rmdir(path);
	rmdir(t->root);
}

static struct source *open_live(struct live_tree *t, struct capture *c, double budget_pct,
				bool full)
{
	struct proc_source_opts o = {
		.proc_root = t->root, .hz = 20, .budget_pct = budget_pct, .full_samples = full};
	struct event_sink sink = {capture_emit, c};
	char err[256];
	struct source *src = proc_source__new(&o, sink, err, sizeof(err));

	assert_non_null(src);
	src->clock.period_ns = 50000000;
	return src;
}

/*
 * A thread that has not run since a pass found it asleep is not read again:
 * it is sent as a repeat, or (full, for a recording) as its last sample.
 */
static void check_unchanged_sleeper(bool full)
{
	struct live_tree t;
	struct capture c = {0};
	struct source *src;
	const struct tt_thread_sample *s;

	live_tree_make(&t);
	src = open_live(&t, &c, 0, full);
	assert_int_equal(src->ops->tick(src, 1000), 0);
	s = find_sample(&c, 500);
	assert_non_null(s);
	assert_int_equal(s->state, TT_ST_S);
	assert_string_equal(find_string(&c, s->wchan_id), "pipe_read");
	assert_int_equal(s->cpu_time_ns, 123456789); /* schedstat's, exact */
	capture_free(&c);

	/* Same run time and run count: the files behind it are not read. */
	put(&t, "500/task/500/wchan", "futex_wait_queue");
	assert_int_equal(src->ops->tick(src, 2000), 0);
	if (full) {
		s = find_sample(&c, 500);
		assert_non_null(s);
		assert_int_equal(s->hdr.time_ns, 2000);
		assert_int_equal(s->state, TT_ST_S);
		assert_int_equal(s->syscall_nr, 0);
	} else {
		const struct tt_thread_repeat *r = NULL;

		assert_null(find_sample(&c, 500));
		for (size_t i = 0; i < c.nr; i++)
			if (c.ev[i]->type == TT_EV_THREAD_REPEAT)
				r = (const struct tt_thread_repeat *)c.ev[i];
		assert_non_null(r);
		assert_int_equal(r->nr, 1);
		assert_int_equal(r->tids[0], 500);
		assert_int_equal(r->hdr.time_ns, 2000);
	}
	assert_int_equal(count_type(&c, TT_EV_STRING), 0);
	capture_free(&c);

	/* A second of passes asleep: stat is not read either (it would say R). */
	for (uint64_t i = 0; i < 20; i++)
		assert_int_equal(src->ops->tick(src, 2100 + i), 0);
	capture_free(&c);
	put(&t, "500/task/500/stat",
	    "500 (sleeper) R 1 500 500 0 -1 4194560 0 0 0 0 7 3 0 0 20 0 1 0 4200 1 1 1 1 1 0 "
	    "0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	assert_int_equal(src->ops->tick(src, 2500), 0);
	if (full) {
		s = find_sample(&c, 500);
		assert_non_null(s);
		assert_int_equal(s->state, TT_ST_S);
	} else {
		assert_null(find_sample(&c, 500));
		assert_int_equal(count_type(&c, TT_EV_THREAD_REPEAT), 1);
	}
	capture_free(&c);

	/* It ran (its run count moved): everything is read again. */
	put(&t, "500/task/500/schedstat", "123556789 1000 43\n");
	assert_int_equal(src->ops->tick(src, 3000), 0);
	s = find_sample(&c, 500);
	assert_non_null(s);
	assert_int_equal(s->state, TT_ST_R);
	assert_int_equal(s->cpu_time_ns, 123556789);
	assert_int_equal(s->wchan_id, 0); /* running: no wait channel */
	capture_free(&c);
	source__free(src);
	live_tree_free(&t);
}

static void unchanged_sleeper_is_repeated(void **state)
{
	check_unchanged_sleeper(false);
}

static void unchanged_sleeper_is_resent_in_full(void **state)
{
	check_unchanged_sleeper(true);
}

/* Passes dearer than the budget: every n-th tick, said in the tick records. */
static void over_budget_lowers_the_rate(void **state)
{
	struct live_tree t;
	struct capture c = {0};
	const struct tt_tick *tick = NULL;
	struct source *src;
	unsigned passes = 0;

	live_tree_make(&t);
	src = open_live(&t, &c, 1e-6, true); /* no pass fits: the floor of one a second */
	for (uint64_t i = 1; i <= 60; i++)
		assert_int_equal(src->ops->tick(src, i * 50000000), 0);
	for (size_t i = 0; i < c.nr; i++) {
		if (c.ev[i]->type != TT_EV_TICK)
			continue;
		tick = (const struct tt_tick *)c.ev[i];
		passes++;
	}
	assert_non_null(tick);
	/* Two passes measure the cost, then one a second (every 20th tick). */
	assert_in_range(passes, 4, 6);
	assert_int_equal(tick->asked_us, 50000);
	assert_int_equal(tick->target_us, 1000000);
	assert_int_equal(tick->missed, 19);
	assert_int_equal(tick->weight_us, 1000000);
	assert_int_equal(count_type(&c, TT_EV_THREAD_SAMPLE), passes);
	capture_free(&c);
	source__free(src);
	live_tree_free(&t);
}

/* The process CPU clock the gated source reads (its seam for fixture trees). */
static uint64_t fake_clock_ns;

static int fake_clock(int pid, uint64_t *ret_ns)
{
	*ret_ns = fake_clock_ns + (uint64_t)pid - 500;
	return 0;
}

#define STAT_500(state)                                                      \
	"500 (sleeper) " state                                               \
	" 1 500 500 0 -1 4194560 0 0 0 0 7 3 0 0 20 0 1 0 4200 1 1 1 1 1 0 " \
	"0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n"

/* What the pass said of thread 500: its sample's state, or -1 for a repeat (nothing read). */
static int pass_state(struct source *src, struct capture *c, uint64_t now)
{
	const struct tt_thread_sample *s;
	int state = -2;

	capture_free(c);
	assert_int_equal(src->ops->tick(src, now), 0);
	s = find_sample(c, 500);
	if (s)
		return s->state;
	for (size_t i = 0; i < c->nr; i++)
		if (c->ev[i]->type == TT_EV_THREAD_REPEAT)
			state = -1;
	return state;
}

/* Ticks until the gate holds thread 500 (a second asleep, then a repeat each pass). */
static uint64_t settle_gated(struct source *src, struct capture *c, uint64_t now)
{
	for (int i = 0; i < 25; i++)
		pass_state(src, c, now += 50000000);
	assert_int_equal(pass_state(src, c, now += 50000000), -1);
	return now;
}

/*
 * The gate on the process CPU clock: a process whose clock has not moved
 * is not read (even where its files say otherwise: proof that it skips);
 * each way a sleeper can change is still seen: it ran (into another
 * syscall, running, D: the clock moves), or it was woken and waits for a
 * CPU (nothing moves but the box's runnable count, /proc/loadavg).
 */
static void gate_sees_every_change(void **state)
{
	struct live_tree t;
	struct capture c = {0};
	struct proc_source_opts o = {.hz = 20, .budget_pct = 0, .cpu_clock = fake_clock};
	struct event_sink sink = {capture_emit, &c};
	const struct tt_thread_sample *s;
	struct source *src;
	uint64_t now = 0;
	char err[256];
	int st = -1;

	live_tree_make(&t);
	put(&t, "loadavg", "0.50 0.40 0.30 1/90 4242\n"); /* 1 runnable: the pass itself */
	o.proc_root = t.root;
	fake_clock_ns = 1000000;
	src = proc_source__new(&o, sink, err, sizeof(err));
	assert_non_null(src);
	src->clock.period_ns = 50000000;
	assert_int_equal(pass_state(src, &c, now += 50000000), TT_ST_S);
	now = settle_gated(src, &c, now);

	/* Gated: stat says R, schedstat moved, yet the unmoved clock keeps it unread. */
	put(&t, "500/task/500/stat", STAT_500("R"));
	put(&t, "500/task/500/schedstat", "123456790 1000 43\n");
	assert_int_equal(pass_state(src, &c, now += 50000000), -1);

	/* Into another syscall: it ran (the clock moved). */
	put(&t, "500/task/500/stat", STAT_500("S"));
	put(&t, "500/task/500/syscall", "230 0x1 0x0 0x7ffd0 0x0 0x0 0x0 0x7ffd00000f00 0x7f01\n");
	put(&t, "500/task/500/wchan", "hrtimer_nanosleep");
	fake_clock_ns += 1000;
	assert_int_equal(pass_state(src, &c, now += 50000000), TT_ST_S);
	s = find_sample(&c, 500);
	assert_int_equal(s->syscall_nr, 230);
	assert_string_equal(find_string(&c, s->wchan_id), "hrtimer_nanosleep");
	now = settle_gated(src, &c, now);

	/* Running. */
	put(&t, "500/task/500/stat", STAT_500("R"));
	put(&t, "500/task/500/schedstat", "123556790 1000 44\n");
	fake_clock_ns += 100000;
	assert_int_equal(pass_state(src, &c, now += 50000000), TT_ST_R);
	/* Still R the next pass: a running thread is read every pass. */
	assert_int_equal(pass_state(src, &c, now += 50000000), TT_ST_R);

	/* Into D (it ran to get there). */
	put(&t, "500/task/500/stat", STAT_500("D"));
	put(&t, "500/task/500/schedstat", "123656790 1000 45\n");
	fake_clock_ns += 100000;
	assert_int_equal(pass_state(src, &c, now += 50000000), TT_ST_D);
	now = settle_gated(src, &c, now);

	/*
	 * Woken, waiting for a CPU: no clock moves, only stat (R) and the
	 * box's count (2 runnable: the pass and one it did not read) say so.
	 * Within a second of passes it is read.
	 */
	put(&t, "500/task/500/stat", STAT_500("R"));
	put(&t, "loadavg", "0.50 0.40 0.30 2/90 4242\n");
	for (int i = 0; i < 20 && st != TT_ST_R; i++)
		st = pass_state(src, &c, now += 50000000);
	assert_int_equal(st, TT_ST_R);
	/* And read while it waits: it is R, not gated. */
	assert_int_equal(pass_state(src, &c, now += 50000000), TT_ST_R);

	capture_free(&c);
	source__free(src);
	live_tree_free(&t);
}

static void unlink_at(const struct live_tree *t, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	assert_int_equal(unlink(path), 0);
}

/* mkdir of root/rel, or its removal (rmdir). */
static void dir_at(const struct live_tree *t, const char *rel, bool make)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	assert_int_equal(make ? mkdir(path, 0700) : rmdir(path), 0);
}

/*
 * A process that starts while another ends, on a box where a thread
 * vanishes at every pass: /proc's link count does not move, so only the
 * second's relisting finds it, and it must. (It never did: the vanished
 * thread's "list /proc again next pass" overflowed to "in a second", every
 * pass; found by tui_replay, a workload started under --source proc.)
 */
static void new_process_found_while_threads_vanish(void **state)
{
	struct live_tree t;
	struct capture c = {0};
	struct source *src;
	uint64_t now = 0;
	bool found = false;

	(void)state;
	live_tree_make(&t);
	/* 600: a thread listed whose files are gone, as one that exited between the two. */
	dir_at(&t, "600", true);
	dir_at(&t, "600/task", true);
	dir_at(&t, "600/task/601", true);
	dir_at(&t, "800", true); /* a process that ends as 700 starts */
	src = open_live(&t, &c, 0, false);
	for (int i = 0; i < 3; i++)
		pass_state(src, &c, now += 50000000);
	dir_at(&t, "800", false);
	dir_at(&t, "700", true);
	dir_at(&t, "700/task", true);
	dir_at(&t, "700/task/700", true);
	put(&t, "700/task/700/stat",
	    "700 (newcomer) R 1 700 700 0 -1 4194560 0 0 0 0 7 3 0 0 20 0 1 0 4300 1 1 1 1 1 0 "
	    "0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put(&t, "700/task/700/syscall", "running\n");
	put(&t, "700/task/700/wchan", "0");
	put(&t, "700/task/700/schedstat", "5000000 1000 3\n");
	/* Within a second of passes (20 at 20 Hz), and a few more. */
	for (int i = 0; i < 25 && !found; i++) {
		pass_state(src, &c, now += 50000000);
		found = find_sample(&c, 700) != NULL;
	}
	assert_true(found);
	source__free(src);
	capture_free(&c);
	unlink_at(&t, "700/task/700/stat");
	unlink_at(&t, "700/task/700/syscall");
	unlink_at(&t, "700/task/700/wchan");
	unlink_at(&t, "700/task/700/schedstat");
	dir_at(&t, "700/task/700", false);
	dir_at(&t, "700/task", false);
	dir_at(&t, "700", false);
	dir_at(&t, "600/task/601", false);
	dir_at(&t, "600/task", false);
	dir_at(&t, "600", false);
	live_tree_free(&t);
}

/*
 * Strings no record used for a minute are retired (a TT_EV_STRING of length
 * 0): the sleeper's command line, said once; not the wait channel its every
 * repeat names. Asked for again, the text comes back under a new id.
 */
static void unused_strings_retire(void **state)
{
	struct live_tree t;
	struct capture c = {0};
	const struct tt_thread_sample *s;
	struct source *src;
	uint32_t cmdline = 0, wchan, retired = 0;
	uint64_t now = SEC_NS;

	(void)state;
	live_tree_make(&t);
	src = open_live(&t, &c, 0, false);
	assert_int_equal(src->ops->tick(src, now), 0);
	s = find_sample(&c, 500);
	assert_non_null(s);
	wchan = s->wchan_id;
	assert_string_equal(find_string(&c, wchan), "pipe_read");
	for (size_t i = 0; i < c.nr; i++)
		if (c.ev[i]->type == TT_EV_THREAD_INFO)
			cmdline = ((const struct tt_thread_info *)c.ev[i])->cmdline_id;
	assert_string_equal(find_string(&c, cmdline), "sleeper");
	while (now < 80 * SEC_NS) {
		pass_state(src, &c, now += 50000000);
		for (size_t i = 0; i < c.nr; i++) {
			const struct tt_string *r = (const struct tt_string *)c.ev[i];

			if (c.ev[i]->type != TT_EV_STRING)
				continue;
			assert_int_equal(r->len, 0); /* nothing new to say */
			assert_int_not_equal(r->id, wchan);
			assert_int_equal(r->id, cmdline);
			assert_true(now >= 61 * SEC_NS && now <= 72 * SEC_NS);
			retired++;
		}
	}
	assert_int_equal(retired, 1);

	/* A new thread of the process: its command line again, under a new id. */
	dir_at(&t, "500/task/501", true);
	put(&t, "500/task/501/stat",
	    "501 (sleeper) S 1 500 500 0 -1 4194560 0 0 0 0 7 3 0 0 20 0 1 0 4300 1 1 1 1 1 0 "
	    "0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put(&t, "500/task/501/syscall", "running\n");
	put(&t, "500/task/501/wchan", "0");
	put(&t, "500/task/501/schedstat", "5000000 1000 3\n");
	cmdline = 0;
	for (int i = 0; i < 25 && !cmdline; i++) {
		pass_state(src, &c, now += 50000000);
		for (size_t j = 0; j < c.nr; j++)
			if (c.ev[j]->type == TT_EV_THREAD_INFO &&
			    ((const struct tt_thread_info *)c.ev[j])->tid == 501)
				cmdline = ((const struct tt_thread_info *)c.ev[j])->cmdline_id;
	}
	assert_true(cmdline > wchan);
	assert_string_equal(find_string(&c, cmdline), "sleeper");
	source__free(src);
	capture_free(&c);
	unlink_at(&t, "500/task/501/stat");
	unlink_at(&t, "500/task/501/syscall");
	unlink_at(&t, "500/task/501/wchan");
	unlink_at(&t, "500/task/501/schedstat");
	dir_at(&t, "500/task/501", false);
	live_tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(samples_every_thread),
		cmocka_unit_test(second_tick_sends_no_dictionary_again),
		cmocka_unit_test(pid_filter),
		cmocka_unit_test(missing_root_is_an_error),
		cmocka_unit_test(unchanged_sleeper_is_repeated),
		cmocka_unit_test(unchanged_sleeper_is_resent_in_full),
		cmocka_unit_test(over_budget_lowers_the_rate),
		cmocka_unit_test(gate_sees_every_change),
		cmocka_unit_test(new_process_found_while_threads_vanish),
		cmocka_unit_test(unused_strings_retire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
