// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the /proc text parsers (stat, syscall, cmdline, status NSpid): the first byte
 * picks the parser, the rest is the file's text as another process shaped it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, out[256];
	struct proc_task_stat st;
	struct proc_syscall sc;
	uint64_t pages = 3;

	if (size == 0)
		return 0;
	/* The readers NUL-terminate what they read: do the same. */
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		if (procfs_parse_stat(text, &st) == 0 && strlen(st.comm) >= TT_COMM_LEN)
			abort();
		break;
	case 1:
		if (procfs_parse_syscall(text, &sc) == 0 && sc.nr > 4095)
			abort();
		break;
	case 3:
		if (procfs_parse_nspid(text, 7) == 0)
			abort();
		if (procfs_parse_statm_rss(text, &pages) < 0 && pages != 3)
			abort(); /* a failure leaves the result alone */
		break;
	default:
		if (procfs_join_cmdline((const char *)data + 1, size - 1, out, sizeof(out)) >=
		    sizeof(out))
			abort();
	}
	free(text);
	return 0;
}
