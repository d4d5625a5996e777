// SPDX-License-Identifier: GPL-2.0-only
/* The default frame namer (addresses as hex) and the fallback rule (see frame_namer.h). */
#include <inttypes.h>
#include <stdio.h>

#include "threadtop/frame_namer.h"

static char hex_buf[24];

static int hex_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	snprintf(hex_buf, sizeof(hex_buf), "0x%" PRIx64, addr);
	*ret = (struct frame_name){
		.name = hex_buf, .module = kernel ? "[kernel]" : NULL, .kernel = kernel};
	return 0;
}

const struct frame_namer frame_namer_hex = {hex_name, NULL};

void frame_namer__name(const struct frame_namer *namer, uint32_t pid, uint64_t addr, bool kernel,
		       struct frame_name *ret)
{
	*ret = (struct frame_name){0}; /* a namer may fill only some fields */
	if (namer && namer->name && namer->name(namer->ctx, pid, addr, kernel, ret) == 0 &&
	    ret->name) {
		ret->kernel = kernel;
		return;
	}
	hex_name(NULL, pid, addr, kernel, ret);
}
