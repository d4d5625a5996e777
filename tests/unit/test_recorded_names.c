// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of recorded frame names (recorded_names.c): the recording side
 * names each frame once and emits records; the replay side, fed those
 * records, names every frame as the live namer did, with no namer of its own,
 * and gives user frames the build-ids of their modules.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "event_codec.h"
#include "recorded_names.h"

static int live_calls;

#define APP_BID "0123456789abcdef0123456789abcdef01234567"
#define LIB_BID "fedc"

/*
 * The "symbolizer": kernel frames k_ADDR in [kernel]; user frames fn_PID_ADDR
 * in app (build-id APP_BID) below 0x500000, in lib.so (LIB_BID) from there,
 * except 0x600000, in a module with a build-id that is not hex.
 */
static int live_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static char buf[64];

	live_calls++;
	if (kernel)
		snprintf(buf, sizeof(buf), "k_%llx", (unsigned long long)addr);
	else
		snprintf(buf, sizeof(buf), "fn_%u_%llx", pid, (unsigned long long)addr);
	ret->name = buf;
	ret->module = kernel ? "[kernel]" : addr < 0x500000 ? "app" : "lib.so";
	ret->kernel = kernel;
	ret->build_id = kernel ? NULL : addr < 0x500000 ? APP_BID : LIB_BID;
	if (addr == 0x600000) {
		ret->module = "odd.so";
		ret->build_id = "xyz";
	}
	if (addr == 0x402000) { /* two functions inlined there */
		static const char *const chain[] = {"mid", "hot"};

		ret->inlined = chain;
		ret->nr_inlined = 2;
	}
	return 0;
}

static const struct frame_namer live = {live_name, NULL};

struct replay {
	struct recorded_names *fn;
	int records, build_ids;
};

/* The sink of the recording side feeds the replay side, through the codec. */
static void to_replay(void *ctx, const struct tt_event_header *ev)
{
	_Alignas(8) unsigned char enc[TT_EVENT_MAX_SIZE], dec[TT_EVENT_MAX_SIZE];
	struct replay *r = ctx;
	ssize_t n;

	assert_true(ev->type == TT_EV_FRAME_NAME || ev->type == TT_EV_BUILD_ID);
	assert_int_equal(tt_event_validate(ev, ev->size), 0);
	n = tt_event_encode(ev, enc, sizeof(enc));
	assert_true(n > 0);
	assert_int_equal(
		tt_event_decode(enc, (size_t)n, (struct tt_event_header *)dec, sizeof(dec), NULL),
		n);
	if (ev->type == TT_EV_BUILD_ID) {
		recorded_names__add_build_id(r->fn, (const struct tt_build_id *)dec);
		r->build_ids++;
		return;
	}
	recorded_names__add(r->fn, (const struct tt_frame_name *)dec);
	r->records++;
}

static void test_names_travel(void **state)
{
	union {
		struct tt_stack st;
		char buf[sizeof(struct tt_stack) + 4 * 8];
	} k = {0}, u = {0};
	struct replay rp = {recorded_names__new(), 0, 0};
	struct recorded_names *rec = recorded_names__new();
	struct event_sink sink = {to_replay, &rp};
	const struct frame_namer *kept = recorded_names__namer(rp.fn);
	struct frame_name a, b;

	k.st.flags = TT_STACK_KERNEL;
	k.st.nr = 3;
	k.st.ips[0] = 0xffffffff81000010;
	k.st.ips[1] = 0xffffffff81000021; /* callers: return addresses, named one before */
	k.st.ips[2] = 0xffffffff81000011; /* recursion: named once */
	u.st.pid = 42;
	u.st.nr = 2;
	u.st.ips[0] = 0x401000;
	u.st.ips[1] = 0x402001;

	recorded_names__record_stack(rec, &live, &k.st, &sink, 5);
	recorded_names__record_stack(rec, &live, &u.st, &sink, 6);
	recorded_names__record_stack(rec, &live, &u.st, &sink, 7); /* seen: nothing new */
	assert_int_equal(rp.records, 4);
	assert_int_equal(live_calls, 4);
	assert_int_equal(rp.build_ids, 1); /* app, once */

	frame_namer__name(kept, 0, 0xffffffff81000020, true, &a);
	assert_string_equal(a.name, "k_ffffffff81000020");
	assert_string_equal(a.module, "[kernel]");
	assert_true(a.kernel);
	assert_null(a.build_id);
	frame_namer__name(kept, 42, 0x402000, false, &a);
	assert_string_equal(a.name, "fn_42_402000");
	assert_string_equal(a.module, "app");
	assert_non_null(a.build_id);
	assert_string_equal(a.build_id, APP_BID);
	/* The inlined chain travels (record version 2), outermost first. */
	assert_int_equal(a.nr_inlined, 2);
	assert_string_equal(a.inlined[0], "mid");
	assert_string_equal(a.inlined[1], "hot");
	frame_namer__name(kept, 42, 0x401000, false, &a);
	assert_int_equal(a.nr_inlined, 0);
	/* Another thread's pid: the address alone still names it. */
	frame_namer__name(kept, 43, 0x401000, false, &b);
	assert_string_equal(b.name, "fn_42_401000");
	assert_string_equal(b.build_id, APP_BID); /* the build-id of the pid that named it */
	/* Never named: the address. */
	frame_namer__name(kept, 42, 0x999000, false, &a);
	assert_string_equal(a.name, "0x999000");
	assert_null(a.build_id);
	recorded_names__free(rec);
	recorded_names__free(rp.fn);
}

/* One build-id record per (pid, module); another process gets its own; junk hex none. */
static void test_build_ids_travel(void **state)
{
	union {
		struct tt_stack st;
		char buf[sizeof(struct tt_stack) + 4 * 8];
	} u = {0};
	struct replay rp = {recorded_names__new(), 0, 0};
	struct recorded_names *rec = recorded_names__new();
	struct event_sink sink = {to_replay, &rp};
	const struct frame_namer *kept = recorded_names__namer(rp.fn);
	struct frame_name a;

	u.st.pid = 7;
	u.st.nr = 4;
	u.st.ips[0] = 0x401000;
	u.st.ips[1] = 0x510001; /* callers: return addresses, named one before */
	u.st.ips[2] = 0x520001; /* lib.so again: no second record */
	u.st.ips[3] = 0x600001; /* not hex: named, no build-id */
	recorded_names__record_stack(rec, &live, &u.st, &sink, 1);
	assert_int_equal(rp.records, 4);
	assert_int_equal(rp.build_ids, 2);
	u.st.pid = 8;
	recorded_names__record_stack(rec, &live, &u.st, &sink, 2);
	assert_int_equal(rp.build_ids, 4);

	frame_namer__name(kept, 7, 0x520000, false, &a);
	assert_string_equal(a.module, "lib.so");
	assert_string_equal(a.build_id, LIB_BID);
	frame_namer__name(kept, 8, 0x401000, false, &a);
	assert_string_equal(a.build_id, APP_BID);
	frame_namer__name(kept, 7, 0x600000, false, &a);
	assert_string_equal(a.module, "odd.so");
	assert_null(a.build_id);
	recorded_names__free(rec);
	recorded_names__free(rp.fn);
}

/* Build-id records: bounds checked; encode and decode keep every byte. */
static void test_build_id_codec(void **state)
{
	union {
		struct tt_build_id rec;
		char buf[sizeof(struct tt_build_id) + 80];
	} b = {0};
	_Alignas(8) unsigned char enc[256], dec[TT_EVENT_MAX_SIZE];
	const struct tt_build_id *out = (const struct tt_build_id *)dec;

	b.rec.hdr = (struct tt_event_header){TT_EV_BUILD_ID, TT_BUILD_ID_VERSION,
					     sizeof(b.rec) + 6 + 20, 99};
	b.rec.pid = 0x01020304;
	b.rec.module_len = 6;
	b.rec.id_len = 20;
	memcpy(b.rec.data, "lib.so", 6);
	for (int i = 0; i < 20; i++)
		b.rec.data[6 + i] = (char)(0xf0 + i);
	assert_int_equal(tt_event_validate(&b.rec.hdr, sizeof(b)), 0);
	assert_int_equal(tt_event_encode(&b.rec.hdr, enc, sizeof(enc)), 50);
	assert_int_equal(enc[0], TT_EV_BUILD_ID); /* little-endian type */
	assert_int_equal(enc[16], 4);		  /* pid, low byte first */
	assert_int_equal(enc[20], 6);		  /* module_len */
	assert_int_equal(enc[22], 20);		  /* id_len */
	assert_memory_equal(enc + 24, "lib.so", 6);
	assert_int_equal(tt_event_decode(enc, 50, (struct tt_event_header *)dec, sizeof(dec), NULL),
			 50);
	assert_int_equal(out->pid, 0x01020304);
	assert_memory_equal(out->data, b.rec.data, 26);
	assert_string_equal(tt_event_type_name(TT_EV_BUILD_ID), "build_id");

	b.rec.id_len = 0; /* no build-id */
	b.rec.hdr.size = sizeof(b.rec) + 6;
	assert_int_equal(tt_event_validate(&b.rec.hdr, sizeof(b)), -EINVAL);
	b.rec.id_len = TT_BUILD_ID_MAX + 1;
	b.rec.module_len = 0;
	b.rec.hdr.size = sizeof(b.rec) + TT_BUILD_ID_MAX + 1;
	assert_int_equal(tt_event_validate(&b.rec.hdr, sizeof(b)), -EINVAL);
	b.rec.id_len = 20;
	b.rec.module_len = 6;
	b.rec.hdr.size = sizeof(b.rec) + 6 + 21; /* size past the contents */
	assert_int_equal(tt_event_validate(&b.rec.hdr, sizeof(b)), -EINVAL);
}

/* A malformed record (lengths past the record) does not validate. */
static void test_bad_lengths(void **state)
{
	union {
		struct tt_frame_name rec;
		char buf[sizeof(struct tt_frame_name) + 16];
	} f = {0};

	f.rec.hdr = (struct tt_event_header){TT_EV_FRAME_NAME, TT_FRAME_NAME_VERSION,
					     sizeof(f.rec) + 4, 0};
	f.rec.name_len = 3;
	f.rec.module_len = 1;
	assert_int_equal(tt_event_validate(&f.rec.hdr, sizeof(f)), 0);
	f.rec.module_len = 9;
	assert_int_equal(tt_event_validate(&f.rec.hdr, sizeof(f)), -EINVAL);
	f.rec.name_len = 5000;
	assert_int_equal(tt_event_validate(&f.rec.hdr, sizeof(f)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_travel),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_build_ids_travel),
		cmocka_unit_test(test_build_id_codec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
