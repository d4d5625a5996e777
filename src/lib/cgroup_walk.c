// SPDX-License-Identifier: GPL-2.0-only
/* A bounded directory-tree walk (see cgroup_walk.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cgroup_walk.h"
#include "util.h"

bool cgroup_walk(int dirfd, const char *rel, int max_depth, cgroup_visit_fn visit, void *ctx)
{
	struct dirent *de;
	bool go_on = true;
	DIR *dir;

	if (max_depth <= 0)
		return true;
	dir = opendir_dup(dirfd);
	if (!dir)
		return true;
	while (go_on && (de = readdir(dir))) {
		char child[CGROUP_WALK_PATH];
		int cfd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s/%s", rel, de->d_name) >=
		    sizeof(child))
			continue;
		cfd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfd < 0)
			continue;
		go_on = visit(ctx, cfd, child, de->d_ino) &&
			cgroup_walk(cfd, child, max_depth - 1, visit, ctx);
		close(cfd);
	}
	closedir(dir);
	return go_on;
}
