// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where libthreadtop-sysprof.so is (see sysprof_lib.h): the BPF source
 * attaches its probe there, threadtop run preloads it.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysprof_lib.h"

#ifndef TT_INSTALL_LIBDIR
#define TT_INSTALL_LIBDIR "/usr/local/lib"
#endif

static int add_path(char (*paths)[PATH_MAX], int n, int max, dev_t *devs, ino_t *inos,
		    const char *p)
{
	struct stat st;

	if (n >= max || !p || !*p || stat(p, &st) < 0 || !S_ISREG(st.st_mode))
		return n;
	for (int i = 0; i < n; i++)
		if (devs[i] == st.st_dev && inos[i] == st.st_ino)
			return n;
	if (!realpath(p, paths[n]))
		return n;
	devs[n] = st.st_dev;
	inos[n] = st.st_ino;
	return n + 1;
}

int lj_lib_paths(char (*paths)[PATH_MAX], int max)
{
	dev_t devs[LJ_LIB_MAX_PATHS];
	ino_t inos[LJ_LIB_MAX_PATHS];
	char exe[PATH_MAX], cand[PATH_MAX + 64];
	ssize_t len;
	int n = 0;

	if (max > LJ_LIB_MAX_PATHS)
		max = LJ_LIB_MAX_PATHS;
	n = add_path(paths, n, max, devs, inos, getenv("THREADTOP_SYSPROF_LIB"));
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		dirname(exe);
		snprintf(cand, sizeof(cand), "%s/lib/%s", exe, LJ_LIB_NAME);
		n = add_path(paths, n, max, devs, inos, cand);
		snprintf(cand, sizeof(cand), "%s/../lib/%s", exe, LJ_LIB_NAME);
		n = add_path(paths, n, max, devs, inos, cand);
	}
	n = add_path(paths, n, max, devs, inos, TT_INSTALL_LIBDIR "/" LJ_LIB_NAME);
	return n;
}
