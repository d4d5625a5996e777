// SPDX-License-Identifier: GPL-2.0-only
/* The /proc source over the fixture tree in tests/fixtures/proc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "source_proc.h"
#include "util.h"

#define MAX_EVENTS 64

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(samples_every_thread),
		cmocka_unit_test(second_tick_sends_no_dictionary_again),
		cmocka_unit_test(pid_filter),
		cmocka_unit_test(missing_root_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
