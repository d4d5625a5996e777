// SPDX-License-Identifier: GPL-2.0-only
/* speedscope export: not written yet. */
#include <errno.h>

#include "export_internal.h"

int export_speedscope(const struct export_ctx *x, FILE *f)
{
	return -ENOTSUP;
}
