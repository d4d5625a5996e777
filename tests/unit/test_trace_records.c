// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the encoding of the BPF source's record types (on-CPU
 * sample, syscall stats, off-CPU time, program stats, block I/O): round trips, every
 * byte of every field on the wire (no padding leaks), and truncations.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "event_codec.h"

#include "codec_roundtrip.h"

/* Fills a record with distinct byte values after its header. */
static void pattern(struct tt_event_header *ev, unsigned type, unsigned version, size_t size)
{
	unsigned char *p = (unsigned char *)ev;

	for (size_t i = sizeof(*ev); i < size; i++)
		p[i] = (unsigned char)(i * 7 + 1);
	*ev = (struct tt_event_header){(__u16)type, (__u16)version, (__u32)size,
				       0x0102030405060708ull};
}

static void cpu_sample(void **state)
{
	_Alignas(8) unsigned char buf[sizeof(struct tt_cpu_sample)];
	struct tt_cpu_sample *s = (struct tt_cpu_sample *)buf;

	pattern(&s->hdr, TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(*s));
	roundtrip(&s->hdr);
	assert_string_equal(tt_event_type_name(TT_EV_CPU_SAMPLE), "cpu_sample");
	/* pid little-endian at offset 16. */
	s->pid = 0x11223344;
	assert_int_equal(tt_event_encode(&s->hdr, wire, sizeof(wire)), sizeof(*s));
	assert_int_equal(wire[16], 0x44);
	assert_int_equal(wire[19], 0x11);
}

/*
 * Version 1 (recordings made before CPU samples carried labels) is 8 bytes
 * shorter: it still round-trips at its own size, and only at that size.
 */
static void cpu_sample_v1(void **state)
{
	_Alignas(8) unsigned char buf[sizeof(struct tt_cpu_sample)];
	struct tt_cpu_sample *s = (struct tt_cpu_sample *)buf;
	const size_t v1 = offsetof(struct tt_cpu_sample, labels_hash);

	assert_int_equal(v1, 64);
	pattern(&s->hdr, TT_EV_CPU_SAMPLE, 1, v1);
	roundtrip(&s->hdr);
	s->hdr.size = sizeof(*s);
	assert_int_equal(tt_event_validate(&s->hdr, sizeof(*s)), -EINVAL);
	/* Version 2's labels_hash is little-endian at offset 64. */
	pattern(&s->hdr, TT_EV_CPU_SAMPLE, 2, sizeof(*s));
	s->labels_hash = 0xa1b2c3d4;
	assert_int_equal(tt_event_encode(&s->hdr, wire, sizeof(wire)), sizeof(*s));
	assert_int_equal(wire[64], 0xd4);
	assert_int_equal(wire[67], 0xa1);
}

static void syscall_stats(void **state)
{
	_Alignas(8) unsigned char buf[sizeof(struct tt_syscall_stats)];
	struct tt_syscall_stats *s = (struct tt_syscall_stats *)buf;

	pattern(&s->hdr, TT_EV_SYSCALL_STATS, TT_SYSCALL_STATS_VERSION, sizeof(*s));
	roundtrip(&s->hdr);
	s->hist[TT_SYSCALL_HIST_BUCKETS - 1] = 0xa1b2c3d4;
	assert_int_equal(tt_event_encode(&s->hdr, wire, sizeof(wire)), sizeof(*s));
	assert_int_equal(wire[sizeof(*s) - 4], 0xd4);
	assert_int_equal(wire[sizeof(*s) - 1], 0xa1);
}

static void offcpu(void **state)
{
	_Alignas(8) unsigned char buf[sizeof(struct tt_offcpu)];
	struct tt_offcpu *o = (struct tt_offcpu *)buf;

	pattern(&o->hdr, TT_EV_OFFCPU, TT_OFFCPU_VERSION, sizeof(*o));
	roundtrip(&o->hdr);
}

static void prog_stats(void **state)
{
	_Alignas(8) unsigned char buf[sizeof(struct tt_prog_stats)];
	struct tt_prog_stats *p = (struct tt_prog_stats *)buf;

	pattern(&p->hdr, TT_EV_PROG_STATS, TT_PROG_STATS_VERSION, sizeof(*p));
	roundtrip(&p->hdr);
}

/* A valid I/O record with distinct bytes wherever the bounds allow them. */
static void io_pattern(struct tt_io_stats *io)
{
	pattern(&io->hdr, TT_EV_IO_STATS, TT_IO_STATS_VERSION, sizeof(*io));
	io->major = 259;
	io->minor = 0xabcde;
	io->op = TT_IO_WRITE;
	io->count = 0x1122334455667788ull;
	io->errors = 3;
}

static void io_stats(void **state)
{
	_Alignas(8) unsigned char buf[sizeof(struct tt_io_stats)];
	struct tt_io_stats *io = (struct tt_io_stats *)buf;

	assert_int_equal(sizeof(*io), 264);
	io_pattern(io);
	roundtrip(&io->hdr);
	assert_string_equal(tt_event_type_name(TT_EV_IO_STATS), "io_stats");
	/* count little-endian at offset 40, the device's name 32 bytes before the stacks. */
	assert_int_equal(tt_event_encode(&io->hdr, wire, sizeof(wire)), sizeof(*io));
	assert_int_equal(wire[40], 0x88);
	assert_int_equal(wire[47], 0x11);
	memcpy(io->disk, "nvme0n1p1", 10);
	assert_int_equal(tt_event_encode(&io->hdr, wire, sizeof(wire)), sizeof(*io));
	assert_memory_equal(wire + offsetof(struct tt_io_stats, disk), "nvme0n1p1", 10);
	assert_int_equal(offsetof(struct tt_io_stats, disk), 256 - TT_IO_DISK_LEN);
	/* The stacks (version 3) little-endian in the last 8 bytes. */
	io->kstack_id = 0xa1b2c3d4;
	io->ustack_id = 0x80000001;
	assert_int_equal(tt_event_encode(&io->hdr, wire, sizeof(wire)), sizeof(*io));
	assert_int_equal(wire[256], 0xd4);
	assert_int_equal(wire[259], 0xa1);
	assert_int_equal(wire[263], 0x80);
	/* Versions 1 and 2 end before the stacks: they round-trip at 256 bytes, only there. */
	for (unsigned v = 1; v <= 2; v++) {
		io_pattern(io);
		io->hdr.version = (__u16)v;
		io->hdr.size = 256;
		roundtrip(&io->hdr);
		io->hdr.size = sizeof(*io);
		assert_int_equal(tt_event_validate(&io->hdr, sizeof(*io)), -EINVAL);
	}
	/* Out of bounds: a major past 12 bits, a minor past 20, an unknown op, no requests. */
	io->major = 4096;
	assert_int_equal(tt_event_validate(&io->hdr, sizeof(*io)), -EINVAL);
	io_pattern(io);
	io->minor = 1u << 20;
	assert_int_equal(tt_event_validate(&io->hdr, sizeof(*io)), -EINVAL);
	io_pattern(io);
	io->op = TT_IO_OP_MAX;
	assert_int_equal(tt_event_validate(&io->hdr, sizeof(*io)), -EINVAL);
	io_pattern(io);
	io->count = 0;
	assert_int_equal(tt_event_validate(&io->hdr, sizeof(*io)), -EINVAL);
	io_pattern(io);
	io->errors = io->count + 1;
	assert_int_equal(tt_event_validate(&io->hdr, sizeof(*io)), -EINVAL);
	/* More requests by io_uring workers than requests. */
	io_pattern(io);
	io->count = 5;
	io->errors = 0;
	io->io_worker = 5;
	assert_int_equal(tt_event_validate(&io->hdr, sizeof(*io)), 0);
	io->io_worker = 6;
	assert_int_equal(tt_event_validate(&io->hdr, sizeof(*io)), -EINVAL);
	io_pattern(io);
	io->hdr.size = sizeof(*io) + 8;
	assert_int_equal(tt_event_validate(&io->hdr, sizeof(*io) + 8), -EINVAL);
}

static void wrong_sizes(void **state)
{
	struct tt_cpu_sample s = {
		.hdr = {TT_EV_CPU_SAMPLE, TT_CPU_SAMPLE_VERSION, sizeof(s) - 8, 1},
	};
	const char *why = NULL;

	assert_int_equal(tt_event_validate(&s.hdr, sizeof(s)), -EINVAL);
	s.hdr.size = sizeof(s) + 8;
	assert_int_equal(tt_event_validate(&s.hdr, sizeof(s) + 8), -EINVAL);
	s.hdr.size = sizeof(s);
	s.hdr.version = TT_CPU_SAMPLE_VERSION + 1;
	assert_int_equal(tt_event_validate(&s.hdr, sizeof(s)), -EINVAL);
	/* A newer version on the wire is refused with a reason. */
	s.hdr.version = TT_CPU_SAMPLE_VERSION;
	assert_int_equal(tt_event_encode(&s.hdr, wire, sizeof(wire)), sizeof(s));
	wire[2] = TT_CPU_SAMPLE_VERSION + 1;
	assert_int_equal(tt_event_decode(wire, sizeof(s), (struct tt_event_header *)back,
					 sizeof(back), &why),
			 -EINVAL);
	assert_non_null(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_sample),	 cmocka_unit_test(cpu_sample_v1),
		cmocka_unit_test(syscall_stats), cmocka_unit_test(offcpu),
		cmocka_unit_test(prog_stats),	 cmocka_unit_test(io_stats),
		cmocka_unit_test(wrong_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
