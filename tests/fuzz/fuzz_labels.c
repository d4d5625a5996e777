// SPDX-License-Identifier: GPL-2.0-only
/* Fuzzes the labels-file parser (configuration users are sent by others). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct label_set set;
	char err[512];

	memset(&set, 0, sizeof(set));
	if (label_set__parse_file(&set, "fuzz", (const char *)data, size, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < set.nr_defs; i++)
			if (set.defs[i].slot < 0 || (size_t)set.defs[i].slot >= set.nr_names ||
			    strlen(set.defs[i].literal) >= LABEL_VALUE_LEN)
				abort();
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort();
	}
	return 0;
}
