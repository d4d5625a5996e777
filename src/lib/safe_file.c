// SPDX-License-Identifier: GPL-2.0-only
/*
 * Safe file writing (see safe_file.h): temporary file in the same
 * directory, flush + fsync, then rename; RENAME_NOREPLACE unless forced.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "invoker.h"
#include "safe_file.h"
#include "user_file.h"
#include "util.h"

struct safe_file {
	char *path;
	char *tmp;
	FILE *f;
	int fd;
	int write_err; /* first write error (negative errno), kept for the message */
	bool force;
};

/* The stream's writes: remembers the first error so commit can name it. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t len)
{
	struct safe_file *sf = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(sf->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!sf->write_err)
				sf->write_err = n < 0 ? -errno : -ENOSPC;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int cookie_close(void *cookie)
{
	return 0; /* the fd is closed by commit or abort */
}

/* The directory part of path (".", "/", "a/b"); caller frees. */
static char *dir_of(const char *path)
{
	char *copy = xstrdup(path), *d = xstrdup(dirname(copy));

	free(copy);
	return d;
}

/* safe_file_check as whoever opens files (the sudo user, inside invoker_enter). */
static int check_as_opener(const char *path, bool force)
{
	struct stat st;
	char *dir;
	int err = 0;

	if (!path || !*path)
		return -EINVAL;
	if (strlen(path) >= PATH_MAX - 16)
		return -ENAMETOOLONG;
	if (path[strlen(path) - 1] == '/')
		return -EISDIR;
	dir = dir_of(path);
	if (stat(dir, &st) < 0)
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
		err = -errno; /* AT_EACCESS: the file system IDs, not root's real ID */
	free(dir);
	if (err)
		return err;
	if (lstat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			return -ENXIO; /* a FIFO or device is not replaced by a file */
		if (!force)
			return -EEXIST;
	} else if (errno != ENOENT) {
		return -errno;
	}
	return 0;
}

int safe_file_check(const char *path, bool force)
{
	struct invoker_fs fs;
	int err = invoker_enter(&fs);

	if (err)
		return err;
	err = check_as_opener(path, force);
	invoker_leave(&fs);
	return err;
}

struct safe_file *safe_file__open(const char *path, bool force)
{
	struct safe_file *sf;
	struct invoker_fs fs;
	char *copy, *dir;
	int fd, err = safe_file_check(path, force);

	if (err) {
		errno = -err;
		return NULL;
	}
	sf = xcalloc(1, sizeof(*sf));
	sf->path = xstrdup(path);
	sf->force = force;
	dir = dir_of(path);
	copy = xstrdup(path);
	sf->tmp = xmalloc(strlen(path) + 32);
	sprintf(sf->tmp, "%s/.%s.XXXXXX", dir, basename(copy));
	free(copy);
	free(dir);
	/* mkostemp creates with O_CREAT | O_EXCL: it never follows a symlink. */
	err = invoker_enter(&fs);
	if (err) {
		errno = -err;
		goto fail;
	}
	fd = mkostemp(sf->tmp, O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		invoker_leave(&fs);
		errno = err;
		goto fail;
	}
	sf->fd = fd;
	sf->f = fopencookie(sf, "w",
			    (cookie_io_functions_t){.write = cookie_write, .close = cookie_close});
	if (!sf->f) {
		err = errno;
		close(fd);
		unlink(sf->tmp);
		invoker_leave(&fs);
		errno = err;
		goto fail;
	}
	invoker_leave(&fs);
	setvbuf(sf->f, NULL, _IOFBF, 1 << 16);
	return sf;
fail:
	err = errno;
	free(sf->tmp);
	free(sf->path);
	free(sf);
	errno = err;
	return NULL;
}

FILE *safe_file__stream(struct safe_file *sf)
{
	return sf->f;
}

static void safe_file_free(struct safe_file *sf)
{
	free(sf->tmp);
	free(sf->path);
	free(sf);
}

void safe_file__abort(struct safe_file *sf)
{
	struct invoker_fs fs;

	if (!sf)
		return;
	if (sf->f) {
		fclose(sf->f);
		close(sf->fd);
	}
	if (invoker_enter(&fs) == 0) {
		unlink(sf->tmp);
		invoker_leave(&fs);
	}
	safe_file_free(sf);
}

/* Moves tmp onto path, refusing to replace an existing file unless force. */
static int place(const char *tmp, const char *path, bool force)
{
	if (force)
		return rename(tmp, path) < 0 ? -errno : 0;
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A file system without RENAME_NOREPLACE: link() fails on an existing name too. */
	if (link(tmp, path) < 0)
		return -errno;
	unlink(tmp);
	return 0;
}

/*
 * Inside invoker_enter: the temporary file and its directory are the sudo
 * user's (it was created as them), which root may no longer touch once its
 * capabilities are dropped.
 */
static int commit_as_opener(struct safe_file *sf, size_t *ret_size)
{
	mode_t mask = umask(0);
	int fd = sf->fd, err = 0;
	struct stat st;
	char *dir;

	umask(mask);
	if (fflush(sf->f) == EOF || ferror(sf->f))
		err = sf->write_err ? sf->write_err : -EIO;
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (!err && fchmod(fd, 0666 & ~mask) < 0)
		err = -errno;
	if (!err && fstat(fd, &st) < 0)
		err = -errno;
	fclose(sf->f);
	sf->f = NULL;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err)
		err = place(sf->tmp, sf->path, sf->force);
	if (err) {
		unlink(sf->tmp);
		return err;
	}
	/* Make the new name durable too. */
	dir = dir_of(sf->path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
	if (ret_size)
		*ret_size = (size_t)st.st_size;
	return 0;
}

int safe_file__commit(struct safe_file *sf, size_t *ret_size)
{
	struct invoker_fs fs;
	int err = invoker_enter(&fs);

	if (err) {
		fclose(sf->f);
		close(sf->fd);
		safe_file_free(sf);
		return err;
	}
	err = commit_as_opener(sf, ret_size);
	invoker_leave(&fs);
	safe_file_free(sf);
	return err;
}
