// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of recordings: the writer (record.c), the reader
 * (ttr_reader.c) and the replay source's seek. Round trip of every record,
 * an unfinished file, a full disk (RLIMIT_FSIZE), --max-size, records of
 * unknown types, and a seek that shows the same interval as playing on.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "event_codec.h"
#include "model.h"
#include "record.h"
#include "source_replay.h"
#include "ttr_reader.h"
#include "util.h"
#include "ttr_format.h"

#define T0 (500 * NSEC_PER_SEC)
#define TICK (NSEC_PER_SEC / 10)

static char path[64];

static int setup(void **state)
{
	int fd;

	strcpy(path, "/tmp/test_record_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static struct recorder *open_rec(uint64_t max_size)
{
	struct recorder_opts o = {.path = path,
				  .force = true, /* setup's mkstemp made it */
				  .source = "proc",
				  .hz = 10,
				  .interval_s = 1,
				  .max_size = max_size,
				  .chunk_ns = NSEC_PER_SEC};
	char err[320];
	struct recorder *r = recorder__new(&o, err, sizeof(err));

	assert_non_null(r);
	return r;
}

static void put_string(struct recorder *r, uint32_t id, const char *text, uint64_t t)
{
	union {
		struct tt_string rec;
		char buf[sizeof(struct tt_string) + 256];
	} u;
	size_t len = strlen(text);

	u.rec.hdr = (struct tt_event_header){TT_EV_STRING, TT_STRING_VERSION,
					     (uint32_t)(sizeof(u.rec) + len), t};
	u.rec.id = id;
	u.rec.len = (uint32_t)len;
	memcpy(u.rec.data, text, len);
	assert_int_equal(recorder__write(r, &u.rec.hdr), 0);
}

static void put_info(struct recorder *r, uint32_t tid, uint32_t cmdline, uint64_t t)
{
	struct tt_thread_info i = {
		.hdr = {TT_EV_THREAD_INFO, TT_THREAD_INFO_VERSION, sizeof(i), t},
		.pid = 100,
		.tid = tid,
		.start_time_ns = tid,
		.cmdline_id = cmdline,
	};

	snprintf(i.comm, sizeof(i.comm), "t%u", tid);
	recorder__write(r, &i.hdr);
}

/* One tick at t: a clock mark, a sample of each of n threads, an interval every 10. */
static int put_tick(struct recorder *r, unsigned n, uint64_t t, unsigned k)
{
	struct tt_clock c = {{TT_EV_CLOCK, TT_CLOCK_VERSION, sizeof(c), t}};
	int err = recorder__write(r, &c.hdr);

	for (unsigned i = 0; i < n && !err; i++) {
		struct tt_thread_sample s = {
			.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s), t},
			.pid = 100,
			.tid = 100 + i,
			.start_time_ns = 100 + i,
			.weight_us = 100000,
			.syscall_nr = (int)(i + k % 3),
			.state = (uint8_t)((i + k) % 2 ? TT_ST_R : TT_ST_S),
			.cpu_time_ns = k * 1000000ull,
		};

		snprintf(s.comm, sizeof(s.comm), "t%u", 100 + i);
		err = recorder__write(r, &s.hdr);
	}
	if (!err && k % 10 == 9) {
		struct tt_interval iv = {
			.hdr = {TT_EV_INTERVAL, TT_INTERVAL_VERSION, sizeof(iv), t},
			.realtime_ns = t + 17,
			.seq = k / 10,
		};

		err = recorder__write(r, &iv.hdr);
	}
	return err;
}

static size_t count_records(struct ttr_reader *rd, size_t *ret_intervals)
{
	_Alignas(8) unsigned char buf[TT_EVENT_MAX_SIZE];
	size_t n = 0, iv = 0;
	int e;

	for (size_t i = 0; i < ttr_reader__nr_chunks(rd); i++) {
		if (ttr_reader__chunk(rd, i)->kind != TTR_KIND_EVENTS)
			continue;
		assert_int_equal(ttr_reader__load(rd, i), 0);
		while ((e = ttr_reader__next(rd, (struct tt_event_header *)buf, sizeof(buf))) > 0) {
			n++;
			iv += ((struct tt_event_header *)buf)->type == TT_EV_INTERVAL;
		}
		assert_int_equal(e, 0);
	}
	if (ret_intervals)
		*ret_intervals = iv;
	return n;
}

static void test_round_trip(void **state)
{
	struct recorder *r = open_rec(0);
	_Alignas(8) unsigned char buf[TT_EVENT_MAX_SIZE];
	struct ttr_reader *rd;
	const struct tt_string *s;
	char err[384];
	size_t iv;

	put_string(r, 1, "/usr/bin/app --flag", T0);
	put_info(r, 100, 1, T0);
	for (unsigned k = 0; k < 50; k++)
		assert_int_equal(put_tick(r, 3, T0 + (k + 1) * TICK, k), 0);
	assert_int_equal(recorder__records(r), 2 + 50 * 4 + 5);
	assert_int_equal(recorder__close(r), 0);

	rd = ttr_reader__open(path, err, sizeof(err));
	assert_non_null(rd);
	assert_true(ttr_reader__finished(rd));
	assert_null(ttr_reader__damage(rd));
	assert_string_equal(ttr_reader__info(rd, "source"), "proc");
	assert_string_equal(ttr_reader__info(rd, "hz"), "10");
	assert_non_null(ttr_reader__info(rd, "hostname"));
	assert_non_null(ttr_reader__info(rd, "boot_time_ns"));
	assert_null(ttr_reader__info(rd, "no_such_key"));
	assert_true(ttr_reader__nr_chunks(rd) >= 4); /* 5 s of records, 1 s chunks */
	assert_int_equal(count_records(rd, &iv), 2 + 50 * 4 + 5);
	assert_int_equal(iv, 5);
	/* The first record comes back as it went in. */
	assert_int_equal(ttr_reader__load(rd, 0), 0);
	assert_int_equal(ttr_reader__next(rd, (struct tt_event_header *)buf, sizeof(buf)), 1);
	s = (const struct tt_string *)buf;
	assert_int_equal(s->hdr.type, TT_EV_STRING);
	assert_int_equal(s->hdr.time_ns, T0);
	assert_int_equal(s->len, strlen("/usr/bin/app --flag"));
	assert_memory_equal(s->data, "/usr/bin/app --flag", s->len);
	/* Binary search over chunk times. */
	assert_int_equal(ttr_reader__find(rd, 0), 0);
	assert_int_equal(ttr_reader__find(rd, T0 + 100 * NSEC_PER_SEC), ttr_reader__nr_chunks(rd));
	assert_true(ttr_reader__find(rd, T0 + 3 * NSEC_PER_SEC) > 0);
	ttr_reader__free(rd);
}

/* A recorder killed after some chunks: no index, every flushed chunk reads. */
static void test_unfinished(void **state)
{
	struct recorder *r = open_rec(0);
	struct ttr_reader *rd;
	char err[384];

	for (unsigned k = 0; k < 25; k++)
		put_tick(r, 2, T0 + (k + 1) * TICK, k);
	assert_int_equal(recorder__flush(r), 0);
	rd = ttr_reader__open(path, err, sizeof(err)); /* as if killed here */
	assert_non_null(rd);
	assert_false(ttr_reader__finished(rd));
	assert_null(ttr_reader__damage(rd));
	assert_int_equal(count_records(rd, NULL), 25 * 3 + 2);
	ttr_reader__free(rd);
	recorder__close(r);
}

static void check_stopped_file_reads(size_t min_records)
{
	struct ttr_reader *rd;
	char err[384];

	rd = ttr_reader__open(path, err, sizeof(err));
	assert_non_null(rd);
	assert_null(ttr_reader__damage(rd));
	assert_true(count_records(rd, NULL) >= min_records);
	ttr_reader__free(rd);
}

/* A full disk (here: the file size limit) stops the recording, not the caller. */
static void test_full_disk(void **state)
{
	struct rlimit old, lim = {.rlim_cur = 6000, .rlim_max = RLIM_INFINITY};
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	struct recorder *r = open_rec(0);
	int err = 0, failures = 0;
	unsigned k;

	getrlimit(RLIMIT_FSIZE, &old);
	lim.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (k = 0; k < 400; k++) {
		err = put_tick(r, 20, T0 + (k + 1) * TICK, k);
		if (err) {
			failures++;
			assert_int_equal(err, -EFBIG);
			assert_true(recorder__stopped(r));
			assert_non_null(strstr(recorder__error(r), path));
			assert_non_null(strstr(recorder__error(r), "replays up to there"));
		}
	}
	assert_int_equal(failures, 1); /* said once; later writes do nothing */
	recorder__close(r);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, old_handler);
	check_stopped_file_reads(20);
}

static void test_max_size(void **state)
{
	struct recorder *r = open_rec(20000);
	struct stat st;
	int failures = 0;

	for (unsigned k = 0; k < 2000; k++)
		if (put_tick(r, 20, T0 + (k + 1) * TICK, k) < 0)
			failures++;
	assert_int_equal(failures, 1);
	assert_non_null(strstr(recorder__error(r), "--max-size"));
	assert_int_equal(recorder__close(r), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size <= 20000);
	check_stopped_file_reads(20);
}

/* A file of a later minor version: a record type unknown here is skipped. */
static void test_unknown_record_skipped(void **state)
{
	static const char info[] = "source=future\nhz=10\n";
	unsigned char file[512], *p = file, *chunk, *pay;
	struct tt_clock c = {{TT_EV_CLOCK, TT_CLOCK_VERSION, sizeof(c), T0}};
	_Alignas(8) unsigned char buf[TT_EVENT_MAX_SIZE];
	struct ttr_chunk_header h = {.kind = TTR_CHUNK_EVENTS};
	struct ttr_reader *rd;
	size_t len = sizeof(info) - 1;
	char err[384];
	FILE *f;

	memcpy(p, TTR_MAGIC, 8);
	ttr_put16(p + 8, 1);
	ttr_put16(p + 10, 7);
	ttr_put32(p + 12, (uint32_t)(TTR_HEADER_FIXED + len + 4));
	ttr_put32(p + 16, 0);
	ttr_put32(p + 20, (uint32_t)len);
	memcpy(p + 24, info, len);
	ttr_put32(p + 24 + len, (uint32_t)crc32(0, p, (uInt)(24 + len)));
	chunk = p + 28 + len;
	pay = chunk + TTR_CHUNK_HEADER;
	/* A record of type 200 with 8 bytes of payload, then a clock mark. */
	ttr_put16(pay, 200);
	ttr_put16(pay + 2, 1);
	ttr_put32(pay + 4, 24);
	ttr_put64(pay + 8, T0);
	ttr_put64(pay + 16, 42);
	assert_int_equal(tt_event_encode(&c.hdr, pay + 24, 64), 16);
	h.raw_size = h.stored_size = 40;
	h.nr_records = 2;
	h.first_ns = h.last_ns = T0;
	h.payload_crc = (uint32_t)crc32(0, pay, 40);
	ttr_chunk_header_encode(&h, chunk);
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(file, 1, (size_t)(pay + 40 - file), f);
	fclose(f);

	rd = ttr_reader__open(path, err, sizeof(err));
	assert_non_null(rd);
	assert_int_equal(ttr_reader__nr_chunks(rd), 1);
	assert_int_equal(ttr_reader__load(rd, 0), 0);
	assert_int_equal(ttr_reader__next(rd, (struct tt_event_header *)buf, sizeof(buf)), 1);
	assert_int_equal(((struct tt_event_header *)buf)->type, TT_EV_CLOCK);
	assert_int_equal(ttr_reader__next(rd, (struct tt_event_header *)buf, sizeof(buf)), 0);
	assert_int_equal(ttr_reader__skipped(rd), 1);
	ttr_reader__free(rd);
}

/* --- seek: a fresh model jumped to an interval shows what playing on showed --- */

struct player {
	struct model *m;
	uint64_t last_interval;
	uint64_t want;	 /* capture the interval ending here */
	uint64_t got[8]; /* samples per thread of that interval */
	uint32_t strings_seen;
	bool seeking;
};

static void play_emit(void *ctx, const struct tt_event_header *ev)
{
	struct player *p = ctx;

	if (p->seeking && ev->type == TT_EV_STRING)
		p->strings_seen++;
	if (ev->type == TT_EV_CLOCK) {
		model__advance(p->m, ev->time_ns);
	} else if (ev->type == TT_EV_INTERVAL) {
		model__advance(p->m, ev->time_ns);
		if (ev->time_ns == p->want) {
			struct model_result res;
			struct model_query q;

			model_query_init(&q);
			assert_int_equal(model__query(p->m, &q, &res), 0);
			for (size_t i = 0; i < res.nr; i++) {
				const char *cmd = res.rows[i].cmdline;

				assert_true(res.rows[i].tid >= 100 && res.rows[i].tid < 108);
				p->got[res.rows[i].tid - 100] = res.rows[i].samples;
				/* Names come from the dictionaries the seek replayed. */
				assert_non_null(cmd);
				assert_string_equal(cmd, "/bin/app");
			}
			model_result__release(&res);
		}
		model__end_interval(p->m, ev->time_ns);
		p->last_interval = ev->time_ns;
	} else {
		model__ingest(p->m, ev);
	}
}

static void test_seek(void **state)
{
	struct recorder *r = open_rec(0);
	struct player seq = {0}, jump = {0};
	struct event_sink sink = {play_emit, &seq};
	struct source *src;
	uint64_t want = T0 + 250 * TICK; /* end of interval 24 */
	char err[384];

	put_string(r, 1, "/bin/app", T0);
	for (unsigned t = 100; t < 108; t++)
		put_info(r, t, 1, T0);
	for (unsigned k = 0; k < 400; k++) {
		char s[32];

		/* A new string every second: the dictionaries change in every chunk. */
		if (k % 10 == 0) {
			snprintf(s, sizeof(s), "wchan-%u", k);
			put_string(r, 2 + k / 10, s, T0 + (k + 1) * TICK);
		}
		put_tick(r, 8, T0 + (k + 1) * TICK, k);
	}
	recorder__close(r);

	/* Playing from the start. */
	seq.m = model__new(NULL);
	seq.want = want;
	src = replay_source__new(path, sink, err, sizeof(err));
	assert_non_null(src);
	while (src->ops->ready(src) == 0)
		;
	source__free(src);
	model__free(seq.m);
	assert_true(seq.got[0] > 0);

	/* Jumping there with a fresh model. */
	jump.m = model__new(NULL);
	jump.want = want;
	sink.ctx = &jump;
	src = replay_source__new(path, sink, err, sizeof(err));
	assert_non_null(src);
	{
		const struct ttr_reader *rd = replay_source__reader(src);
		size_t snapshots = 0;

		for (size_t i = 0; i < ttr_reader__nr_chunks(rd); i++)
			snapshots += ttr_reader__chunk(rd, i)->kind == TTR_KIND_SNAPSHOT;
		assert_true(snapshots >= 3); /* one per ten chunks that changed the dictionaries */
	}
	jump.seeking = true;
	assert_int_equal(replay_source__seek(src, want - 2 * NSEC_PER_SEC), 0);
	jump.seeking = false;
	/* Every string up to the jump: the first, and one per second (from a snapshot). */
	assert_true(jump.strings_seen >= 1 + 22);
	while (jump.last_interval < want && src->ops->ready(src) == 0)
		;
	assert_int_equal(jump.last_interval, want);
	assert_memory_equal(jump.got, seq.got, sizeof(seq.got));
	assert_int_equal(replay_source__seek(src, T0 + 1000 * NSEC_PER_SEC), -ERANGE);
	source__free(src);
	model__free(jump.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unfinished, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_record_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seek, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
