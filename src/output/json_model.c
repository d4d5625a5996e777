// SPDX-License-Identifier: GPL-2.0-only
/* Model figures as JSON members (see json_model.h). */
#include "json_model.h"
#include "threadtop/events.h"
#include "syscalls.h"

void json_thread_names(struct json *j, const struct model_row *row)
{
	json_u64(j, "pid", row->pid);
	json_u64(j, "tid", row->tid);
	json_string(j, "comm", row->comm);
	if (row->cmdline)
		json_string(j, "cmdline", row->cmdline);
}

void json_state_samples(struct json *j, const char *key, const uint64_t *counts)
{
	json_begin_object(j, key);
	for (int s = 0; s < TT_ST_MAX; s++) {
		char letter[2] = {TT_STATE_LETTERS[s], '\0'};

		if (counts[s])
			json_u64(j, letter, counts[s]);
	}
	json_end_object(j);
}

void json_syscall_samples(struct json *j, const char *key, const struct model_syscall_count *sc,
			  int nr)
{
	char name[32];

	json_begin_object(j, key);
	for (int i = 0; i < nr; i++)
		json_u64(j, syscall_label(sc[i].nr, name, sizeof(name)), sc[i].samples);
	json_end_object(j);
}
