// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the block I/O tracer's device names (src/sources/bpf_io.c):
 * DEVNAME from a /sys/dev/block/MAJ:MIN/uevent text, bounded by the record's
 * name field.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "source_bpf_impl.h"

static void devname(void **state)
{
	char name[TT_IO_DISK_LEN];

	memset(name, 'x', sizeof(name));
	assert_int_equal(io_devname_parse("MAJOR=7\nMINOR=0\nDEVNAME=loop0\nDEVTYPE=disk\n", name,
					  sizeof(name)),
			 5);
	assert_string_equal(name, "loop0");
	assert_int_equal(name[sizeof(name) - 1], 0); /* NUL-padded: no stale bytes in a record */
	assert_int_equal(io_devname_parse("DEVNAME=nvme0n1p1", name, sizeof(name)), 9);
	assert_string_equal(name, "nvme0n1p1");
	assert_int_equal(io_devname_parse("MAJOR=7\nMINOR=0\n", name, sizeof(name)), -ENOENT);
	assert_int_equal(io_devname_parse("", name, sizeof(name)), -ENOENT);
	assert_int_equal(io_devname_parse("DEVNAME=\n", name, sizeof(name)), -ENAMETOOLONG);
	/* Not a prefix of another key, and no longer than the field holds with its NUL. */
	assert_int_equal(io_devname_parse("XDEVNAME=a\n", name, sizeof(name)), -ENOENT);
	assert_int_equal(
		io_devname_parse("DEVNAME=0123456789012345678901234567890\n", name, sizeof(name)),
		31);
	assert_int_equal(
		io_devname_parse("DEVNAME=01234567890123456789012345678901\n", name, sizeof(name)),
		-ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(devname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
