// SPDX-License-Identifier: GPL-2.0-only
/*
 * An unprivileged process flooding threadtop's LuaJIT probe: it maps
 * libthreadtop-sysprof.so (argv[1]), drops to nobody, waits until threadtop
 * attaches (the probe's reference counter), then names fresh function ids
 * with 4000-byte names without end, for argv[2] seconds. Prints "flooding"
 * once it does, and the count of probe calls at the end.
 */
#include <dlfcn.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "threadtop/luajit_probe.h"

int main(int argc, char **argv)
{
	void (*probe)(const struct tt_lj_probe *);
	volatile unsigned short *attached;
	static char name[4001];
	struct tt_lj_probe p = {.kind = TT_LJ_PROBE_FUNC, .version = TT_LJ_PROBE_VERSION};
	unsigned long long calls = 0;
	time_t end;
	void *lib;

	if (argc < 3)
		return 2;
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "probe_flood: %s\n", dlerror());
		return 1;
	}
	probe = (void (*)(const struct tt_lj_probe *))dlsym(lib, TT_LJ_PROBE_FUNC_NAME);
	attached = dlsym(lib, TT_LJ_PROBE_SEMAPHORE_NAME);
	if (!probe || !attached)
		return 1;
	if (getuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
		return 1;
	end = time(NULL) + atoi(argv[2]);
	while (!*attached && time(NULL) < end)
		usleep(10000); /* threadtop not attached yet: nothing would see the calls */
	printf("flooding\n");
	fflush(stdout);
	memset(name, 'f', 4000);
	p.name = (__u64)(unsigned long)name;
	p.name_len = 4000;
	while (time(NULL) < end) {
		for (int i = 0; i < 1000; i++) {
			p.id = ++calls;
			snprintf(name, 17, "%016llx", calls);
			name[16] = 'f';
			probe(&p);
		}
	}
	printf("%llu calls\n", calls);
	return 0;
}
