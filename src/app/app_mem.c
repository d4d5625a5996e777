// SPDX-License-Identifier: GPL-2.0-only
/*
 * --mem-log: one log line, every so many seconds, of what threadtop's
 * memory holds, structure by structure (the model's threads, stacks and
 * strings, the symbolizer's processes and frames, the maps cache, the
 * dictionary budget) beside the resident set and the heap in use, so that
 * a long session on a churning box shows what grows (issue 21); and, once a
 * minute, the heap's free pages go back to the kernel.
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "app_internal.h"
#include "dict_budget.h"
#include "log.h"
#include "model.h"
#include "symbolizer.h"
#include "util.h"

/* VmRSS of this process in KiB, 0 when unreadable. */
static unsigned long rss_kib(void)
{
	char buf[4096], *p;
	unsigned long kib = 0;
	FILE *f = fopen("/proc/self/status", "re");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strstr(buf, "VmRSS:");
	if (p)
		sscanf(p + 6, "%lu", &kib);
	return kib;
}

/*
 * On a churning box the heap turns over tens of thousands of small blocks a
 * minute (threads, stacks, maps, unwinding state of processes that come and
 * go); glibc keeps the pages they freed, so the resident set grew past what
 * was in use by 60 MB in ten minutes. malloc_trim gives whole free pages
 * back (madvise), a few milliseconds once a minute.
 */
#define TRIM_EVERY_NS (60 * NSEC_PER_SEC)

void app_mem_log(struct app *app, uint64_t now_ns)
{
	struct symbolizer_stats ss = {0};
	struct mallinfo2 mi;
	struct model_mem mm;

	if (!app->mem_trimmed_ns)
		app->mem_trimmed_ns = now_ns;
	if (now_ns - app->mem_trimmed_ns >= TRIM_EVERY_NS) {
		app->mem_trimmed_ns = now_ns;
		malloc_trim(0);
	}
	if (app->o->mem_log_s <= 0 ||
	    (app->mem_logged_ns && now_ns - app->mem_logged_ns < app->o->mem_log_s * 1e9))
		return;
	app->mem_logged_ns = now_ns;
	mi = mallinfo2();
	model__mem(app->model, &mm);
	if (app->sym)
		symbolizer__stats(app->sym, &ss);
	log_info(
		"memory: rss %.1f MB, heap %.1f MB in use; model: %zu threads (%zu exited, "
		"%zu keys) %.1f MB, %zu stacks (%zu of processes, %zu of gone ones, %llu aged "
		"out) %.1f MB, "
		"%zu strings (%llu aged out) %.1f MB, %zu processes; symbolizer: %llu processes, %llu frames, "
		"%llu files (%llu dropped), maps of %llu processes; dictionaries %.1f MB of %.0f",
		rss_kib() / 1024.0, mi.uordblks / 1048576.0, mm.threads, mm.exited, mm.keys,
		mm.thread_bytes / 1048576.0, mm.stacks, mm.user_stacks, mm.dead_stacks,
		(unsigned long long)mm.stacks_aged, mm.stack_bytes / 1048576.0, mm.strings,
		(unsigned long long)mm.strings_aged, mm.string_bytes / 1048576.0, mm.procs,
		(unsigned long long)ss.procs, (unsigned long long)ss.frames,
		(unsigned long long)ss.files, (unsigned long long)ss.files_freed,
		(unsigned long long)ss.maps_procs, dict_budget__used(app->budget) / 1048576.0,
		dict_budget__total(app->budget) / 1048576.0);
}
