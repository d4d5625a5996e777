// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening the files the user names (see user_file.h): lstat/stat before the
 * open so a device is never opened, O_NONBLOCK so a FIFO swapped in
 * meanwhile cannot block, fstat after it to be sure of what was opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "invoker.h"
#include "user_file.h"

/* 0 for a regular file, else why threadtop will not use it. */
static int kind_error(mode_t m)
{
	if (S_ISREG(m))
		return 0;
	if (S_ISDIR(m))
		return -EISDIR;
	if (S_ISLNK(m))
		return -ELOOP;
	return -ENXIO;
}

/* The opened fd must be a regular file; then back to blocking I/O. */
static int finish(int fd)
{
	struct stat st;
	int err = 0, fl;

	if (fstat(fd, &st) < 0)
		err = -errno;
	else
		err = kind_error(st.st_mode);
	if (!err && ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static int open_read(const char *path)
{
	struct stat st;
	int fd, err;

	if (stat(path, &st) < 0)
		return -errno;
	err = kind_error(st.st_mode);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return fd < 0 ? -errno : finish(fd);
}

/* What is at path now, for a writer: 0 (nothing, or may be used), or -errno. */
static int check_target(const char *path, enum user_file_how how, bool force)
{
	struct stat st;
	int err;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	err = kind_error(st.st_mode);
	if (how == USER_FILE_APPEND)
		return err;
	/* CREATE: only an existing file or link may go, and only when forced. */
	if (err && (err != -ELOOP || !force))
		return err;
	if (!force)
		return -EEXIST;
	return unlink(path) < 0 ? -errno : 0;
}

static int open_write(const char *path, enum user_file_how how, bool force, mode_t mode)
{
	int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	int fd, err = check_target(path, how, force);

	if (err)
		return err;
	flags |= how == USER_FILE_APPEND ? O_APPEND : O_EXCL;
	fd = open(path, flags, mode);
	return fd < 0 ? -errno : finish(fd);
}

int user_file_open(const char *path, enum user_file_how how, bool force, mode_t mode)
{
	struct invoker_fs fs;
	int ret;

	if (!path || !*path)
		return -EINVAL;
	ret = invoker_enter(&fs);
	if (ret < 0)
		return ret;
	ret = how == USER_FILE_READ ? open_read(path) : open_write(path, how, force, mode);
	invoker_leave(&fs);
	return ret;
}

int user_file_unlink(const char *path)
{
	struct invoker_fs fs;
	int ret = invoker_enter(&fs);

	if (ret < 0)
		return ret;
	ret = unlink(path) < 0 ? -errno : 0;
	invoker_leave(&fs);
	return ret;
}

const char *user_file_reason(int err, enum user_file_how how)
{
	switch (err) {
	case -ELOOP:
		if (how == USER_FILE_CREATE)
			return "a symbolic link: threadtop does not write through links; name the "
			       "file itself, or --force to replace the link";
		return "a symbolic link: threadtop does not write through links; name the file "
		       "itself";
	case -EISDIR:
		return "a directory, not a regular file: name a file";
	case -ENXIO:
		return "not a regular file (a FIFO, socket or device): threadtop only uses "
		       "regular files; name one";
	case -EEXIST:
		return how == USER_FILE_CREATE ? "the file exists; use --force to replace it"
					       : strerror(EEXIST);
	case -EPERM:
		return "cannot take the sudo user's IDs (SUDO_UID, SUDO_GID) to open it; run "
		       "without sudo or fix those variables";
	case -EACCES:
		if (how == USER_FILE_READ)
			return "permission denied (under sudo threadtop opens files as the user "
			       "who ran it); give that user read access";
		return "permission denied (under sudo threadtop creates files as the user who "
		       "ran it); choose a place that user may write";
	default:
		return strerror(-err);
	}
}
