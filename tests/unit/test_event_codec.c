// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the portable event encoding (src/record/event_codec.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "event_codec.h"

#include "codec_roundtrip.h"

static void thread_sample(void **state)
{
	struct tt_thread_sample s = {
		.hdr = {TT_EV_THREAD_SAMPLE, TT_THREAD_SAMPLE_VERSION, sizeof(s),
			0x1122334455667788},
		.pid = 1,
		.tid = 2,
		.start_time_ns = 3,
		.cgroup_id = 4,
		.cpu_time_ns = 5,
		.syscall_args = {6, 7, 8, 9, 10, UINT64_MAX},
		.kstack_id = 11,
		.ustack_id = 12,
		.wchan_id = 13,
		.weight_us = 14,
		.syscall_nr = -1,
		.state = TT_ST_D,
		.flags = 3,
		.cpu = 17,
		.comm = "comm\x1b[31m",
	};

	roundtrip(&s.hdr);
	/* Little-endian on the wire, field by field. */
	assert_int_equal(wire[0], TT_EV_THREAD_SAMPLE);
	assert_int_equal(wire[8], 0x88);
	assert_int_equal(wire[15], 0x11);
	/* Version 2's fd target, last on the wire. */
	s.syscall_target_id = 0x01020304;
	roundtrip(&s.hdr);
	assert_int_equal(wire[136], 0x04);
	assert_int_equal(wire[139], 0x01);
	/* Version 1 (older recordings): 136 bytes, no target; 144 of them are not one. */
	s.hdr.version = 1;
	s.hdr.size = 136;
	roundtrip(&s.hdr);
	s.hdr.size = sizeof(s);
	assert_int_not_equal(tt_event_validate(&s.hdr, sizeof(s)), 0);
	s.hdr.version = 2;
	s.hdr.size = 136;
	assert_int_not_equal(tt_event_validate(&s.hdr, sizeof(s)), 0);
}

static void other_fixed_types(void **state)
{
	struct tt_thread_info info = {.hdr = {TT_EV_THREAD_INFO, 1, sizeof(info), 9},
				      .pid = 1,
				      .tid = 2,
				      .start_time_ns = 3,
				      .cmdline_id = 4,
				      .flags = 1,
				      .comm = "x"};
	struct tt_tick tick = {.hdr = {TT_EV_TICK, TT_TICK_VERSION, sizeof(tick), 9},
			       .weight_us = 50000,
			       .nr_threads = 7,
			       .duration_ns = 123,
			       .asked_us = 50000,
			       .target_us = 100000,
			       .missed = 3};
	/* A version 1 tick (recordings before asked_us/missed) still reads, at its size. */
	struct tt_tick old = {.hdr = {TT_EV_TICK, 1, 32, 9}, .weight_us = 50000, .nr_threads = 7};
	struct tt_drops drops = {.hdr = {TT_EV_DROPS, 1, sizeof(drops), 9},
				 .count = {1, 2, 3, 4, 5}};

	roundtrip(&info.hdr);
	roundtrip(&tick.hdr);
	roundtrip(&old.hdr);
	roundtrip(&drops.hdr);
}

static void variable_types(void **state)
{
	union {
		struct tt_stack st;
		unsigned char buf[sizeof(struct tt_stack) + TT_MAX_STACK_DEPTH * 8];
	} u = {0};
	union {
		struct tt_string s;
		char buf[sizeof(struct tt_string) + TT_MAX_STRING_LEN];
	} v = {0};

	u.st.hdr = (struct tt_event_header){TT_EV_STACK, 1,
					    sizeof(struct tt_stack) + TT_MAX_STACK_DEPTH * 8, 1};
	u.st.id = 42;
	u.st.nr = TT_MAX_STACK_DEPTH;
	u.st.flags = TT_STACK_KERNEL;
	for (int i = 0; i < TT_MAX_STACK_DEPTH; i++)
		u.st.ips[i] = 0xffffffff81000000ull + (uint64_t)i;
	roundtrip(&u.st.hdr);

	v.s.hdr = (struct tt_event_header){TT_EV_STRING, 1, sizeof(struct tt_string) + 3, 1};
	v.s.id = 1;
	v.s.len = 3;
	memcpy(v.s.data, "a\0b", 3);
	roundtrip(&v.s.hdr);
}

static void thread_repeat(void **state)
{
	union {
		struct tt_thread_repeat r;
		unsigned char buf[sizeof(struct tt_thread_repeat) + (TT_REPEAT_MAX + 1) * 4];
	} u = {0};
	unsigned char enc[sizeof(u)];

	u.r.hdr = (struct tt_event_header){TT_EV_THREAD_REPEAT, TT_THREAD_REPEAT_VERSION,
					   sizeof(u.r) + TT_REPEAT_MAX * 4, 7};
	u.r.nr = TT_REPEAT_MAX;
	for (uint32_t i = 0; i < TT_REPEAT_MAX; i++)
		u.r.tids[i] = 0x01020304u + i;
	roundtrip(&u.r.hdr);
	/* The tids are little-endian 32-bit integers on disk. */
	assert_int_equal(tt_event_encode(&u.r.hdr, enc, sizeof(enc)), u.r.hdr.size);
	assert_int_equal(enc[sizeof(u.r)], 0x04);
	assert_int_equal(enc[sizeof(u.r) + 3], 0x01);
	/* More tids than a record holds, or a size that disagrees with nr. */
	u.r.nr = TT_REPEAT_MAX + 1;
	u.r.hdr.size += 4;
	assert_int_equal(tt_event_validate(&u.r.hdr, sizeof(u)), -EINVAL);
	u.r.nr = 2;
	u.r.hdr.size = sizeof(u.r) + 4;
	assert_int_equal(tt_event_validate(&u.r.hdr, sizeof(u)), -EINVAL);
}

static void malformed(void **state)
{
	struct tt_tick tick = {.hdr = {TT_EV_TICK, TT_TICK_VERSION, sizeof(tick), 9}};
	union {
		struct tt_stack st;
		unsigned char buf[512];
	} u = {.st = {.hdr = {TT_EV_STACK, 1, sizeof(struct tt_stack) + 8, 1}, .nr = 1}};
	const char *why;
	ssize_t n = tt_event_encode(&tick.hdr, wire, sizeof(wire));

	assert_int_equal(n, sizeof(tick));
	/* Unknown type. */
	wire[0] = 99;
	why = NULL;
	assert_int_equal(tt_event_decode(wire, (size_t)n, (void *)back, sizeof(back), &why),
			 -EINVAL);
	assert_string_equal(why, "unknown record type");
	/* A version from the future. */
	wire[0] = TT_EV_TICK;
	wire[2] = 9;
	assert_int_equal(tt_event_decode(wire, (size_t)n, (void *)back, sizeof(back), &why),
			 -EINVAL);
	assert_non_null(strstr(why, "version"));
	/* A size that lies. */
	wire[2] = 1;
	wire[4] = 200;
	assert_int_equal(tt_event_decode(wire, sizeof(wire), (void *)back, sizeof(back), &why),
			 -EINVAL);
	/* Absurd size: no allocation, an error. */
	wire[4] = 0xff, wire[5] = 0xff, wire[6] = 0xff, wire[7] = 0x7f;
	assert_int_equal(tt_event_decode(wire, sizeof(wire), (void *)back, sizeof(back), &why),
			 -EINVAL);

	/* A stack claiming more frames than it carries, or too many. */
	n = tt_event_encode(&u.st.hdr, wire, sizeof(wire));
	assert_true(n > 0);
	wire[24] = 2; /* nr */
	assert_int_equal(tt_event_decode(wire, (size_t)n, (void *)back, sizeof(back), &why),
			 -EINVAL);
	wire[24] = 200;
	assert_int_equal(tt_event_decode(wire, (size_t)n, (void *)back, sizeof(back), &why),
			 -EINVAL);
	/* Validation of in-memory records (what BPF hands over). */
	u.st.nr = 3;
	assert_int_equal(tt_event_validate(&u.st.hdr, u.st.hdr.size), -EINVAL);
	assert_int_equal(tt_event_encode(&u.st.hdr, wire, sizeof(wire)), -EINVAL);
	u.st.nr = 1;
	assert_int_equal(tt_event_validate(&u.st.hdr, u.st.hdr.size), 0);
	assert_int_equal(tt_event_encode(&u.st.hdr, wire, 8), -ENOSPC);
	assert_string_equal(tt_event_type_name(TT_EV_STACK), "stack");
	assert_string_equal(tt_event_type_name(77), "unknown");
}

/* The live-only stack copy: validated by its length, large copies never decode. */
static void stack_copy(void **state)
{
	static union {
		struct tt_stack_copy sc;
		unsigned char bytes[sizeof(struct tt_stack_copy) + 8192];
	} u;
	static _Alignas(8) unsigned char big[sizeof(u)];
	const char *why = NULL;

	u.sc.hdr = (struct tt_event_header){TT_EV_STACK_COPY, TT_STACK_COPY_VERSION,
					    sizeof(u.sc) + 64, 5};
	u.sc.pid = 1;
	u.sc.tid = 2;
	u.sc.regs[TT_UREG_IP] = 0x401000;
	u.sc.regs[TT_UREG_SP] = 0x7ffd0000;
	u.sc.len = 64;
	memset(u.sc.data, 0xab, 64);
	assert_int_equal(tt_event_validate(&u.sc.hdr, u.sc.hdr.size), 0);
	roundtrip(&u.sc.hdr);
	u.sc.len = 65;
	assert_int_equal(tt_event_validate(&u.sc.hdr, sizeof(u)), -EINVAL);
	u.sc.len = TT_STACK_COPY_MAX + 8;
	u.sc.hdr.size = (uint32_t)(sizeof(u.sc) + u.sc.len);
	assert_int_equal(tt_event_validate(&u.sc.hdr, UINT32_MAX), -EINVAL);
	u.sc.len = 8192;
	u.sc.hdr.size = (uint32_t)(sizeof(u.sc) + 8192);
	assert_int_equal(tt_event_validate(&u.sc.hdr, u.sc.hdr.size), 0);
	assert_int_equal(tt_event_encode(&u.sc.hdr, big, sizeof(big)), u.sc.hdr.size);
	assert_int_equal(tt_event_decode(big, u.sc.hdr.size, (struct tt_event_header *)back,
					 sizeof(back), &why),
			 -EINVAL);
	assert_string_equal(tt_event_type_name(TT_EV_STACK_COPY), "stack_copy");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(thread_sample),  cmocka_unit_test(other_fixed_types),
		cmocka_unit_test(variable_types), cmocka_unit_test(malformed),
		cmocka_unit_test(stack_copy),	  cmocka_unit_test(thread_repeat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
