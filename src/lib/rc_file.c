// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading and writing the rc file (see rc_file.h). A bad line is reported
 * with the file and line and stops the reading there, never the program: a
 * hand-edited rc file must not keep threadtop from starting.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "invoker.h"
#include "rc_file.h"
#include "user_file.h"
#include "util.h"

int rc_file_path(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	struct passwd pw, *res = NULL;
	unsigned uid = (unsigned)getuid(), gid;
	char pwbuf[1024];

	if (xdg && xdg[0] == '/') {
		snprintf(buf, len, "%s/threadtop/threadtoprc", xdg);
		return 0;
	}
	/* Under sudo HOME is root's: the file belongs in the invoking user's home. */
	invoker_ids(&uid, &gid);
	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) || !res || res->pw_dir[0] != '/')
		return -ENOENT;
	snprintf(buf, len, "%s/.config/threadtop/threadtoprc", res->pw_dir);
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int rc_file_read(const char *path, const char *(*fn)(void *ctx, const char *key, const char *value),
		 void *ctx, char *err, size_t errlen)
{
	char *buf = xmalloc(RC_FILE_MAX + 1), *line, *next;
	int fd = user_file_open(path, USER_FILE_READ, false, 0), taken = 0, nr = 0;
	ssize_t n;

	if (fd < 0) {
		free(buf);
		if (fd == -ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, user_file_reason(fd, USER_FILE_READ));
		return fd;
	}
	n = read(fd, buf, RC_FILE_MAX + 1);
	close(fd);
	if (n < 0 || n > RC_FILE_MAX) {
		int e = n < 0 ? -errno : -EFBIG;

		snprintf(err, errlen, "%s: %s", path,
			 n < 0 ? strerror(-e) : "larger than 16 KiB, not an rc file; remove it");
		free(buf);
		return e;
	}
	buf[n] = '\0';
	for (line = buf; line && *line; line = next) {
		const char *why;
		char *eq, *s;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		nr++;
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		why = !eq ? "not a key=value line" : NULL;
		if (eq) {
			*eq = '\0';
			why = fn(ctx, trim(s), trim(eq + 1));
		}
		if (why) {
			snprintf(err, errlen,
				 "%s:%d: %s (the rest is ignored; fix or remove the file)", path,
				 nr, why);
			free(buf);
			return -EINVAL;
		}
		taken++;
	}
	free(buf);
	return taken;
}

/* Makes the directories of path up to its last "/" as the invoking user. */
static int make_dirs(const char *path)
{
	char dir[4096];
	struct invoker_fs fs;
	int ret;

	snprintf(dir, sizeof(dir), "%s", path);
	ret = invoker_enter(&fs);
	if (ret < 0)
		return ret;
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			ret = -errno;
			break;
		}
		*p = '/';
	}
	invoker_leave(&fs);
	return ret;
}

int rc_file_write(const char *path, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text), done = 0;
	int fd, ret = make_dirs(path);

	if (ret < 0) {
		snprintf(err, errlen, "%s: cannot make its directory: %s", path, strerror(-ret));
		return ret;
	}
	fd = user_file_open(path, USER_FILE_CREATE, true, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, user_file_reason(fd, USER_FILE_CREATE));
		return fd;
	}
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0 && !ret) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	}
	return ret;
}
