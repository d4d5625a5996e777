// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the model's block I/O requests (src/model/model_io.c):
 * the interval, last and session windows per thread, device and direction,
 * the bound on entries (threads past it go to one "(other)" entry per device
 * and direction, device totals whole), the requests io_uring workers made
 * for a thread (none in a version 1 record, which reserved the field), the
 * percentile of a log2 histogram, the request a thread in D waits on, and
 * the requests by the stacks that made them (version 3 records) in every
 * window, the minute's included, and in the profile's "io" kind.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "profile.h"
#include "util.h"

#define SEC NSEC_PER_SEC
#define T0 (1000 * SEC)

/* A record of count requests of thread tid, each ns_each (all in its log2 bucket). */
static struct tt_io_stats record(uint64_t t, uint32_t tid, uint32_t minor, unsigned op,
				 uint64_t count, uint64_t ns_each)
{
	struct tt_io_stats r = {
		.hdr = {TT_EV_IO_STATS, TT_IO_STATS_VERSION, sizeof(r), t},
		.pid = 10,
		.tid = tid,
		.major = 7,
		.minor = minor,
		.op = op,
		.count = count,
		.bytes = count * 4096,
		.total_ns = count * ns_each,
		.comm = "reader",
		.disk = "loop0",
	};

	/* ns_each in [2^b, 2^(b+1)): all in bucket b. */
	r.hist[63 - __builtin_clzll(ns_each)] = (__u32)count;
	return r;
}

static void io(struct model *m, uint64_t t, uint32_t tid, uint32_t minor, unsigned op,
	       uint64_t count, uint64_t ns_each)
{
	struct tt_io_stats r = record(t, tid, minor, op, count, ns_each);

	model__ingest(m, &r.hdr);
}

static void windows(void **state)
{
	struct model *m = model__new(NULL);
	struct model_io_row *rows;
	int nr;

	model__advance(m, T0);
	assert_false(model__traced(m) & MODEL_TRACED_IO);
	io(m, T0 + 1, 11, 0, TT_IO_READ, 100, 50000);
	io(m, T0 + 2, 11, 0, TT_IO_READ, 20, 50000);
	io(m, T0 + 3, 11, 0, TT_IO_WRITE, 5, 1000000);
	io(m, T0 + 4, 12, 1, TT_IO_READ, 300, 3000);
	assert_true(model__traced(m) & MODEL_TRACED_IO);
	nr = model__io(m, WIN_INTERVAL, &rows);
	assert_int_equal(nr, 3);
	/* Most requests first. */
	assert_int_equal(rows[0].tid, 12);
	assert_int_equal(rows[0].count, 300);
	assert_int_equal(rows[1].tid, 11);
	assert_int_equal(rows[1].op, TT_IO_READ);
	assert_int_equal(rows[1].count, 120);
	assert_int_equal(rows[1].bytes, 120 * 4096);
	assert_int_equal(rows[1].total_ns, 120 * 50000);
	assert_int_equal(rows[1].hist[15], 120);
	assert_string_equal(rows[1].disk, "loop0");
	assert_string_equal(rows[1].comm, "reader");
	assert_int_equal(rows[2].op, TT_IO_WRITE);
	free(rows);

	model__end_interval(m, T0 + SEC);
	assert_int_equal(model__io(m, WIN_INTERVAL, &rows), 0);
	assert_null(rows);
	assert_int_equal(model__io(m, WIN_LAST, &rows), 3);
	free(rows);
	io(m, T0 + SEC + 1, 11, 0, TT_IO_READ, 1, 50000);
	nr = model__io(m, WIN_SESSION, &rows);
	assert_int_equal(nr, 3);
	assert_int_equal(rows[1].count, 121);
	free(rows);
	assert_int_equal(model__io(m, WIN_MINUTE, &rows), -EOPNOTSUPP);
	model__free(m);
}

static void io_stacked(struct model *m, uint64_t t, uint32_t tid, unsigned version, uint32_t kstack,
		       uint32_t ustack, uint64_t count, uint64_t ns_each)
{
	struct tt_io_stats r = record(t, tid, 0, TT_IO_READ, count, ns_each);

	r.hdr.version = (__u16)version;
	r.kstack_id = kstack;
	r.ustack_id = ustack;
	if (version < 3)
		r.hdr.size = offsetof(struct tt_io_stats, kstack_id);
	model__ingest(m, &r.hdr);
}

/* The requests by stack pair: time, count and bytes per window; none from older records. */
static void by_stack(void **state)
{
	struct model *m = model__new(NULL);
	struct model_stack_row *rows;
	struct profile_opts po = {.window = WIN_SESSION};
	struct profile *p;

	model__advance(m, T0);
	/* A version 2 record: counted per device, not by stack (it has none). */
	io_stacked(m, T0 + 1, 11, 2, 5, 6, 10, 1000);
	assert_false(model__traced(m) & MODEL_TRACED_IO_STACKS);
	assert_int_equal(model__io_stacks(m, WIN_INTERVAL, &rows), 0);
	free(rows);
	io_stacked(m, T0 + 2, 11, 3, 5, 6, 100, 50000);
	io_stacked(m, T0 + 3, 11, 3, 5, 6, 20, 50000);
	io_stacked(m, T0 + 4, 11, 3, 5, 7, 3, 1000000);
	io_stacked(m, T0 + 5, 12, 3, 0, 0, 7, 1000); /* no stacks: not by stack */
	assert_true(model__traced(m) & MODEL_TRACED_IO_STACKS);
	assert_int_equal(model__io_stacks(m, WIN_INTERVAL, &rows), 2);
	/* Most time first. */
	assert_int_equal(rows[0].tid, 11);
	assert_int_equal(rows[0].kstack_id, 5);
	assert_int_equal(rows[0].ustack_id, 6);
	assert_int_equal(rows[0].value, 120 * 50000);
	assert_int_equal(rows[0].count, 120);
	assert_int_equal(rows[0].bytes, 120 * 4096);
	assert_int_equal(rows[1].ustack_id, 7);
	assert_int_equal(rows[1].value, 3000000);
	assert_int_equal(rows[1].count, 3);
	assert_int_equal(rows[1].bytes, 3 * 4096);
	free(rows);
	/* The minute's ring keeps time in us and bytes in sectors: the same figures. */
	assert_int_equal(model__io_stacks(m, WIN_MINUTE, &rows), 2);
	assert_int_equal(rows[0].value, 120 * 50000);
	assert_int_equal(rows[0].bytes, 120 * 4096);
	free(rows);
	model__end_interval(m, T0 + SEC);
	assert_int_equal(model__io_stacks(m, WIN_INTERVAL, &rows), 0);
	free(rows);
	assert_int_equal(model__io_stacks(m, WIN_LAST, &rows), 2);
	free(rows);
	io_stacked(m, T0 + SEC + 1, 11, 3, 5, 6, 1, 50000);
	assert_int_equal(model__io_stacks(m, WIN_SESSION, &rows), 2);
	assert_int_equal(rows[0].count, 121);
	assert_int_equal(rows[0].bytes, 121 * 4096);
	free(rows);

	/* The profile's io kind: one sample per row, requests, time and bytes. */
	p = profile__build(m, &po);
	assert_true(p->kinds & (1u << PROFILE_IO));
	assert_string_equal(profile_kind_name(PROFILE_IO), "io");
	assert_int_equal(p->total_count[PROFILE_IO], 124);
	assert_int_equal(p->total_ns[PROFILE_IO], 121 * 50000 + 3000000);
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *smp = &p->samples[i];

		if (smp->kind != PROFILE_IO)
			continue;
		assert_int_equal(smp->bytes, smp->count * 4096);
		assert_int_equal(profile_sample_weight(smp), smp->ns);
	}
	profile__free(p);
	model__free(m);
}

/* Past the bound, new threads share one entry per device and direction: totals stay whole. */
static void bounded(void **state)
{
	struct model *m = model__new(NULL);
	struct model_io_row *rows;
	uint64_t total = 0, other = 0;
	int nr;

	model__advance(m, T0);
	for (uint32_t tid = 1; tid <= 5000; tid++)
		io(m, T0 + tid, tid, 0, TT_IO_READ, 2, 1000);
	nr = model__io(m, WIN_SESSION, &rows);
	assert_int_equal(nr, 4097);
	for (int i = 0; i < nr; i++) {
		total += rows[i].count;
		if (rows[i].other) {
			other++;
			assert_string_equal(rows[i].comm, "(other)");
			assert_int_equal(rows[i].count, 2 * (5000 - 4096));
		}
	}
	assert_int_equal(other, 1);
	assert_int_equal(total, 2 * 5000);
	free(rows);
	model__free(m);
}

/* A record of count requests of thread tid, worker of them made by io_uring workers. */
static void io_worker(struct model *m, uint64_t t, uint32_t tid, unsigned version, uint64_t count,
		      uint32_t worker)
{
	struct tt_io_stats r = record(t, tid, 0, TT_IO_READ, count, 3000);

	r.hdr.version = version;
	r.io_worker = worker;
	model__ingest(m, &r.hdr);
}

static void io_workers(void **state)
{
	struct model *m = model__new(NULL);
	struct model_io_row *rows;

	model__advance(m, T0);
	io_worker(m, T0 + 1, 11, TT_IO_STATS_VERSION, 100, 60);
	io_worker(m, T0 + 2, 11, TT_IO_STATS_VERSION, 50, 50);
	io_worker(m, T0 + 3, 11, 1, 10, 7); /* version 1: the field was reserved */
	assert_int_equal(model__io(m, WIN_INTERVAL, &rows), 1);
	assert_int_equal(rows[0].count, 160);
	assert_int_equal(rows[0].io_worker, 110);
	free(rows);
	model__end_interval(m, T0 + SEC);
	assert_int_equal(model__io(m, WIN_LAST, &rows), 1);
	assert_int_equal(rows[0].io_worker, 110);
	free(rows);
	io_worker(m, T0 + SEC + 1, 11, TT_IO_STATS_VERSION, 4, 0);
	assert_int_equal(model__io(m, WIN_INTERVAL, &rows), 1);
	assert_int_equal(rows[0].io_worker, 0);
	free(rows);
	assert_int_equal(model__io(m, WIN_SESSION, &rows), 1);
	assert_int_equal(rows[0].count, 164);
	assert_int_equal(rows[0].io_worker, 110);
	free(rows);
	model__free(m);
	(void)state;
}

static void percentile(void **state)
{
	uint64_t hist[TT_IO_HIST_BUCKETS] = {0};

	assert_int_equal(model_log2_percentile(hist, TT_IO_HIST_BUCKETS, 50), 0);
	hist[10] = 98; /* [1024, 2048) ns */
	hist[20] = 2;  /* [1 Mi, 2 Mi) ns */
	assert_int_equal(model_log2_percentile(hist, TT_IO_HIST_BUCKETS, 50), 2048);
	assert_int_equal(model_log2_percentile(hist, TT_IO_HIST_BUCKETS, 98), 2048);
	assert_int_equal(model_log2_percentile(hist, TT_IO_HIST_BUCKETS, 99), 2u << 20);
	hist[TT_IO_HIST_BUCKETS - 1] = 1000;
	assert_int_equal(model_log2_percentile(hist, TT_IO_HIST_BUCKETS, 99),
			 2ull << (TT_IO_HIST_BUCKETS - 1));
}

/* A 20 Hz sample of thread 11 of process 10 in state st. */
static void sample(struct model *m, uint64_t t, enum tt_state st)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
		.pid = 10,
		.tid = 11,
		.start_time_ns = 1,
		.weight_us = 50000,
		.syscall_nr = 17, /* pread64 */
		.state = (uint8_t)st,
		.comm = "reader",
	};

	model__ingest(m, &s.hdr);
}

static void io_wait(struct model *m, uint64_t t, uint32_t tid, uint64_t age)
{
	struct tt_io_wait w = {
		.hdr = {TT_EV_IO_WAIT, TT_IO_WAIT_VERSION, sizeof(w), t},
		.pid = 10,
		.tid = tid,
		.major = 7,
		.op = TT_IO_READ,
		.flags = TT_IO_WAIT_ISSUED,
		.bytes = 4096,
		.age_ns = age,
		.disk = "loop0",
	};

	model__ingest(m, &w.hdr);
}

static void tick(struct model *m, uint64_t t)
{
	struct tt_tick k = {.hdr = {TT_EV_TICK, TT_TICK_VERSION, sizeof(k), t}, .weight_us = 50000};

	model__ingest(m, &k.hdr);
}

static void repeat(struct model *m, uint64_t t)
{
	union {
		struct tt_thread_repeat r;
		unsigned char buf[sizeof(struct tt_thread_repeat) + sizeof(uint32_t)];
	} u = {0};

	u.r.hdr = (struct tt_event_header){TT_EV_THREAD_REPEAT, TT_THREAD_REPEAT_VERSION,
					   sizeof(u.buf), t};
	u.r.nr = 1;
	u.r.tids[0] = 11;
	model__ingest(m, &u.r.hdr);
}

/*
 * The request a sample in D waits on: with the sample, whichever comes
 * first; carried by its repeats (older as they go); gone with the next
 * sample that has none, or not in D; never for a thread not seen.
 */
static void io_waits(void **state)
{
	struct model *m = model__new(NULL);
	uint64_t t = T0, ms = NSEC_PER_SEC / 1000;
	struct model_io_wait w;

	(void)state;
	io_wait(m, t, 99, ms); /* a thread with no sample yet: nothing to hold it */
	assert_int_equal(model__thread_io_wait(m, 99, &w), -ENOENT);
	sample(m, t, TT_ST_D);
	io_wait(m, t, 11, ms);
	tick(m, t);
	assert_int_equal(model__thread_io_wait(m, 11, &w), 0);
	assert_string_equal(w.disk, "loop0");
	assert_int_equal(w.major, 7);
	assert_int_equal(w.op, TT_IO_READ);
	assert_true(w.issued);
	assert_int_equal(w.bytes, 4096);
	assert_int_equal(w.age_ns, ms);
	assert_string_equal(model_io_op_name(w.op), "read");

	/* Not run since: the same request, 50 ms older once the repeats count (the interval's end). */
	t += 50 * ms;
	repeat(m, t);
	tick(m, t);
	model__end_interval(m, t);
	assert_int_equal(model__thread_io_wait(m, 11, &w), 0);
	assert_int_equal(w.age_ns, 51 * ms);

	/* The next request comes before its sample. */
	t += 50 * ms;
	io_wait(m, t, 11, 2 * ms);
	sample(m, t, TT_ST_D);
	tick(m, t);
	assert_int_equal(model__thread_io_wait(m, 11, &w), 0);
	assert_int_equal(w.age_ns, 2 * ms);

	/* In D without a request (a lock), then asleep: none. */
	t += 50 * ms;
	sample(m, t, TT_ST_D);
	tick(m, t);
	assert_int_equal(model__thread_io_wait(m, 11, &w), -ENOENT);
	t += 50 * ms;
	io_wait(m, t, 11, ms);
	sample(m, t, TT_ST_S);
	tick(m, t);
	assert_int_equal(model__thread_io_wait(m, 11, &w), -ENOENT);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(windows),    cmocka_unit_test(bounded),
		cmocka_unit_test(io_workers), cmocka_unit_test(percentile),
		cmocka_unit_test(io_waits),   cmocka_unit_test(by_stack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
