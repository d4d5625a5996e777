// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the command-line parser: the input is the arguments separated by
 * NUL bytes (scripts and wrappers pass arguments others wrote). --labels is
 * left out: it reads a file (which the fuzzer could make a FIFO that blocks)
 * and the file's parser has its own target, fuzz_labels.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null_out;
	static struct options o;
	char *text, *argv[MAX_ARGS + 2], *p;
	int argc = 0, r;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	if (memmem(text, size, "labels", 6)) {
		free(text);
		return 0;
	}
	argv[argc++] = "threadtop";
	for (p = text; p < text + size && argc < MAX_ARGS + 1; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	r = cli_parse(argc, argv, &o, null_out, null_out);
	if (r == CLI_RUN) {
		if (o.nr_pids > MAX_PIDS || o.nr_exports > MAX_EXPORTS ||
		    o.nr_traces > MAX_TRACES || o.nr_cmds > MAX_CMDS || o.delay_s < 0.1)
			abort();
	} else if (r != CLI_EXIT_OK && r != -22) {
		abort();
	}
	free(text);
	return 0;
}
