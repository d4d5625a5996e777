// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the tracefs trace_pipe reader (--trace): the text is fed in two
 * chunks split where the first byte says (lines span reads), then every kept
 * line is read back. Tracepoint fields hold strings processes chose (comm,
 * file names), so lines are outside data.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const events[] = {"sched:sched_process_exec", "irq:irq_handler_entry"};
	const struct tracer_opts opts = {.events = events, .nr_events = 2, .max_lines = 3};
	struct tracer *t;
	size_t split;
	char *text;

	if (size == 0)
		return 0;
	split = data[0] % size;
	t = tracer__new_offline(&opts);
	tracer__feed(t, (const char *)data + 1, split);
	tracer__feed(t, (const char *)data + 1 + split, size - 1 - split);
	for (size_t i = 0; i < tracer__count(t); i++) {
		struct trace_stats st;
		const char *line;

		tracer__stats(t, i, &st);
		if (st.kept > 3 || st.kept > st.total)
			abort();
		for (size_t j = 0; (line = tracer__line(t, i, j, NULL)); j++)
			if (strlen(line) >= TRACE_LINE_MAX || j >= st.kept)
				abort();
	}
	tracer__free(t);
	/* The line matcher alone, on the text as one NUL-terminated line. */
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	trace_match_line(text, events, 2);
	free(text);
	return 0;
}
