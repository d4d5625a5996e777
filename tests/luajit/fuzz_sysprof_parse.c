/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fuzz target for the sysprof stream parser (luajit-parse-sysprof): any
 * input must parse or be rejected with a reason, never crash or leak. With
 * TT_FUZZ it is a libFuzzer target (label fuzz); otherwise it replays
 * corpus/sysprof_parse through tests/fuzz/standalone_driver.c.
 */
#include <stdint.h>
#include <stdio.h>

#include "parse_sysprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	const char *why = NULL;
	size_t off = 0;

	if (!null)
		null = fopen("/dev/null", "w");
	if (!null)
		return 0;
	tt_sysprof_parse(data, size, 0, null, &why, &off);
	tt_sysprof_parse(data, size, 1, null, &why, &off);
	return 0;
}
