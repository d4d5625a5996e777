// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the symbol parsers, which read files other people control: the
 * first byte picks /proc/PID/maps, /proc/kallsyms, a perf-PID.map or an ELF
 * image (as the vdso is read), the rest is the input. Each result is then
 * searched the way the symbolizer searches it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf_symbols.h"
#include "kallsyms.h"
#include "perfmap.h"
#include "proc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t probes[] = {
	0,	   1, 0x1000, 0x401000, 0x55d0c0002010ull, 0x7f0000001010ull, 0xffffffff81000000ull,
	UINT64_MAX};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	size_t len = size ? size - 1 : 0;

	if (size == 0)
		return 0;
	switch (data[0] % 4) {
	case 0: {
		struct proc_maps *m = proc_maps__parse(text, len);

		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			proc_maps__find(m, probes[i]);
		for (size_t i = 0; i < proc_maps__count(m); i++)
			if (strlen(proc_maps__get(m, i)->path) >= 4096)
				abort();
		proc_maps__free(m);
		break;
	}
	case 1: {
		struct ksyms *k = ksyms__parse(text, len);

		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
			const struct ksym *s = ksyms__find(k, probes[i]);

			if (s && (strlen(s->name) == 0 || s->addr > probes[i]))
				abort();
		}
		ksyms__free(k);
		break;
	}
	case 2: {
		struct perfmap *p = perfmap__parse(text, len);

		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
			const struct perfmap_sym *s = perfmap__find(p, probes[i]);

			if (s && probes[i] - s->start >= s->size)
				abort();
		}
		perfmap__free(p);
		break;
	}
	default: {
		struct elf_syms *e = elf_syms__from_mem(text, len);
		uint64_t vaddr;

		if (!e)
			break;
		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
			const struct elf_sym *s = elf_syms__find(e, probes[i]);

			if (s && s->addr > probes[i])
				abort();
			elf_syms__offset_to_vaddr(e, probes[i], &vaddr);
		}
		elf_syms__build_id_hex(e, hex, sizeof(hex));
		elf_syms__debuglink(e);
		elf_syms__free(e);
		break;
	}
	}
	return 0;
}
