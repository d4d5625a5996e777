// SPDX-License-Identifier: GPL-2.0-only
/*
 * Symbolization throughput, in unique addresses per second: user addresses
 * spread over this process's libc text and kernel text addresses, measured
 * cold (a fresh symbolizer: maps, ELF and debuginfo reads included), with
 * files loaded but addresses new (the steady state of a live run), and warm
 * (every address cached). Usage: bench_symbols [NR_ADDRESSES]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kallsyms.h"
#include "proc_maps.h"
#include "symbolizer.h"
#include "util.h"

static double pass(struct symbolizer *s, uint32_t pid, const uint64_t *addrs, size_t n,
		   uint64_t shift, bool kernel, size_t *unknown)
{
	uint64_t t0 = monotonic_ns();

	*unknown = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sym_frame *f;

		symbolizer__resolve(s, pid, addrs[i] + shift, kernel, &f);
		if (f->flags & SYM_FRAME_UNKNOWN)
			(*unknown)++;
	}
	return (double)n / ((double)(monotonic_ns() - t0) / 1e9);
}

static void run(const char *what, uint32_t pid, const uint64_t *addrs, size_t n, bool kernel)
{
	struct symbolizer *s = symbolizer__new(NULL);
	size_t unk_cold, unk_new, unk_warm;
	double cold = pass(s, pid, addrs, n, 0, kernel, &unk_cold);
	double fresh = pass(s, pid, addrs, n, 4, kernel, &unk_new);
	double warm = pass(s, pid, addrs, n, 0, kernel, &unk_warm);

	struct symbolizer_stats st;

	printf("%-7s %8zu addrs  cold %10.0f/s  new-addr %10.0f/s  warm %11.0f/s  unknown %zu\n",
	       what, n, cold, fresh, warm, unk_cold);
	symbolizer__stats(s, &st);
	if (st.dwarf_files) /* the rates above include reading inline chains from DWARF */
		printf("%-7s %8" PRIu64 " frames with inlined functions, %" PRIu64
		       " files with DWARF\n",
		       what, st.inlined, st.dwarf_files);
	symbolizer__free(s);
}

int main(int argc, char **argv)
{
	size_t want = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000, n = 0;
	uint32_t pid = (uint32_t)getpid();
	struct proc_maps *maps = proc_maps__read(NULL, pid);
	uint64_t *addrs = xcalloc(want, sizeof(*addrs));
	const struct proc_map *text = NULL;
	struct ksyms *ks;

	for (size_t i = 0; i < proc_maps__count(maps); i++) {
		const struct proc_map *m = proc_maps__get(maps, i);

		if ((m->flags & PROC_MAP_EXEC) && strstr(m->path, "/libc.so"))
			text = m;
	}
	if (!text) {
		fprintf(stderr, "bench_symbols: no libc text mapping found\n");
		return 1;
	}
	for (n = 0; n < want; n++) /* evenly spread, 8-byte steps apart at least */
		addrs[n] = text->start + ((text->end - text->start - 8) / want * n & ~7ull);
	run("user", pid, addrs, n, false);

	ks = ksyms__load(NULL);
	if (ks) {
		uint64_t lo = 0xffffffff81000000ull, span = 16u << 20;

		for (n = 0; n < want; n++)
			addrs[n] = lo + (span / want * n & ~7ull);
		run("kernel", 0, addrs, n, true);
		ksyms__free(ks);
	} else {
		printf("kernel  skipped: /proc/kallsyms unreadable (not root?)\n");
	}
	free(addrs);
	proc_maps__free(maps);
	return 0;
}
