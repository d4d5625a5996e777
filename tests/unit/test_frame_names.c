// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of recorded frame names (frame_names.c): the recording side
 * names each frame once and emits records; the replay side, fed those
 * records, names every frame as the live namer did, with no namer of its own.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "threadtop/event_codec.h"
#include "threadtop/frame_names.h"

static int live_calls;

/* The "symbolizer": kernel frames k_ADDR in [kernel], user frames fn_PID_ADDR in app. */
static int live_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	static char buf[64];

	live_calls++;
	if (kernel)
		snprintf(buf, sizeof(buf), "k_%llx", (unsigned long long)addr);
	else
		snprintf(buf, sizeof(buf), "fn_%u_%llx", pid, (unsigned long long)addr);
	ret->name = buf;
	ret->module = kernel ? "[kernel]" : "app";
	ret->kernel = kernel;
	return 0;
}

static const struct frame_namer live = {live_name, NULL};

struct replay {
	struct frame_names *fn;
	int records;
};

/* The sink of the recording side feeds the replay side, through the codec. */
static void to_replay(void *ctx, const struct tt_event_header *ev)
{
	_Alignas(8) unsigned char enc[TT_EVENT_MAX_SIZE], dec[TT_EVENT_MAX_SIZE];
	struct replay *r = ctx;
	ssize_t n;

	assert_int_equal(ev->type, TT_EV_FRAME_NAME);
	assert_int_equal(tt_event_validate(ev, ev->size), 0);
	n = tt_event_encode(ev, enc, sizeof(enc));
	assert_true(n > 0);
	assert_int_equal(
		tt_event_decode(enc, (size_t)n, (struct tt_event_header *)dec, sizeof(dec), NULL),
		n);
	frame_names__add(r->fn, (const struct tt_frame_name *)dec);
	r->records++;
}

static void test_names_travel(void **state)
{
	union {
		struct tt_stack st;
		char buf[sizeof(struct tt_stack) + 4 * 8];
	} k = {0}, u = {0};
	struct replay rp = {frame_names__new(), 0};
	struct frame_names *rec = frame_names__new();
	struct event_sink sink = {to_replay, &rp};
	const struct frame_namer *kept = frame_names__namer(rp.fn);
	struct frame_name a, b;

	k.st.flags = TT_STACK_KERNEL;
	k.st.nr = 3;
	k.st.ips[0] = 0xffffffff81000010;
	k.st.ips[1] = 0xffffffff81000020;
	k.st.ips[2] = 0xffffffff81000010; /* recursion: named once */
	u.st.pid = 42;
	u.st.nr = 2;
	u.st.ips[0] = 0x401000;
	u.st.ips[1] = 0x402000;

	frame_names__record_stack(rec, &live, &k.st, &sink, 5);
	frame_names__record_stack(rec, &live, &u.st, &sink, 6);
	frame_names__record_stack(rec, &live, &u.st, &sink, 7); /* seen: nothing new */
	assert_int_equal(rp.records, 4);
	assert_int_equal(live_calls, 4);

	frame_namer__name(kept, 0, 0xffffffff81000020, true, &a);
	assert_string_equal(a.name, "k_ffffffff81000020");
	assert_string_equal(a.module, "[kernel]");
	assert_true(a.kernel);
	frame_namer__name(kept, 42, 0x402000, false, &a);
	assert_string_equal(a.name, "fn_42_402000");
	assert_string_equal(a.module, "app");
	/* Another thread's pid: the address alone still names it. */
	frame_namer__name(kept, 43, 0x401000, false, &b);
	assert_string_equal(b.name, "fn_42_401000");
	/* Never named: the address. */
	frame_namer__name(kept, 42, 0x999000, false, &a);
	assert_string_equal(a.name, "0x999000");
	frame_names__free(rec);
	frame_names__free(rp.fn);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
