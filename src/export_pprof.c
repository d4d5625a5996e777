// SPDX-License-Identifier: GPL-2.0-only
/* pprof export: not written yet. */
#include <errno.h>

#include "export_internal.h"

int export_pprof(const struct export_ctx *x, FILE *f)
{
	return -ENOTSUP;
}
