// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the USE metric parsers (/proc/stat, loadavg, meminfo, vmstat,
 * diskstats, net/dev, net/snmp, pressure, cgroup cpu.stat and cpu.max, sysfs
 * counters and link speed): the first byte picks the parser, the rest is the
 * file's text. Output arrays are heap-allocated at their exact capacity so
 * ASan sees any write past it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "use_parse.h"

#define CAP 4 /* small: the "more devices than slots" paths run often */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_names(const char *name)
{
	if (!memchr(name, '\0', USE_NAME_LEN))
		abort();
}

static void parse_one(unsigned which, const char *text)
{
	struct use_cpu_times all, *cpus = malloc(CAP * sizeof(*cpus));
	struct use_disk_stat *disks = malloc(CAP * sizeof(*disks));
	struct use_net_stat *nets = malloc(CAP * sizeof(*nets));
	struct use_meminfo mem;
	struct use_vmstat vm;
	struct use_tcp_stat tcp;
	struct use_psi psi;
	struct use_cg_cpu cg;
	unsigned running;
	uint64_t counter;
	double cpus_allowed, speed;
	int n;

	switch (which) {
	case 0:
		n = use_parse_stat(text, &all, cpus, CAP, &running);
		if (n < 0 && n != -22)
			abort();
		break;
	case 1:
		use_parse_loadavg(text, &running);
		break;
	case 2:
		use_parse_meminfo(text, &mem);
		break;
	case 3:
		use_parse_vmstat(text, &vm);
		break;
	case 4:
		n = use_parse_diskstats(text, disks, CAP);
		for (int i = 0; i < n && i < CAP; i++)
			check_names(disks[i].name);
		break;
	case 5:
		n = use_parse_net_dev(text, nets, CAP);
		for (int i = 0; i < n && i < CAP; i++)
			check_names(nets[i].name);
		break;
	case 6:
		use_parse_snmp_tcp(text, &tcp);
		break;
	case 7:
		use_parse_psi(text, &psi);
		break;
	case 8:
		use_parse_cg_cpu_stat(text, &cg);
		break;
	case 9:
		if (use_parse_cg_cpu_max(text, &cpus_allowed) == 0 &&
		    (isnan(cpus_allowed) || cpus_allowed < 0))
			abort();
		break;
	case 10:
		use_parse_counter(text, &counter);
		break;
	default:
		speed = use_parse_link_speed(text);
		if (isnan(speed) || speed < 0)
			abort();
	}
	free(cpus);
	free(disks);
	free(nets);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size == 0)
		return 0;
	/* The sampler NUL-terminates what it reads: do the same. */
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	parse_one(data[0] % 12, text);
	free(text);
	return 0;
}
