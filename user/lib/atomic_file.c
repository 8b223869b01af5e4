// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Files written aside and renamed: a full disk never leaves half a file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/atomic_file.h"

/* A fresh temporary file; one a crash left behind is removed first. */
static int open_tmp(const char *tmp)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(tmp, flags, 0644);

	if (fd < 0 && errno == EEXIST && !unlink(tmp))
		fd = open(tmp, flags, 0644);
	return fd < 0 ? -errno : fd;
}

/* fill, flush, sync and close: 0 or the first -errno. */
static int fill_close(FILE *f, bool sync, atomic_fill_fn fill, const void *arg)
{
	int err = fill(f, arg);

	if (!err && fflush(f))
		err = -errno;
	if (!err && ferror(f))
		err = -EIO;
	if (!err && sync && fsync(fileno(f)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* "path.tmp.<pid>", malloc'ed, or NULL. */
static char *tmp_name(const char *path)
{
	char *tmp;

	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return NULL;
	return tmp;
}

int atomic_file__write(const char *path, bool sync, atomic_fill_fn fill,
		       const void *arg)
{
	char *tmp = tmp_name(path);
	FILE *f;
	int fd, err;

	if (!tmp)
		return -ENOMEM;
	fd = open_tmp(tmp);
	if (fd < 0) {
		err = fd;
		goto out_free_tmp;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -ENOMEM;
		close(fd);
		goto out_unlink_tmp;
	}
	err = fill_close(f, sync, fill, arg);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		goto out_unlink_tmp;
	free(tmp);
	return 0;

out_unlink_tmp:
	unlink(tmp);
out_free_tmp:
	free(tmp);
	return err;
}

/* Write and flush to an open stream that is not ours to close. */
static int write_stream(FILE *f, atomic_fill_fn fill, const void *arg)
{
	int err = fill(f, arg);

	if (!err && fflush(f))
		err = -errno;
	if (!err && ferror(f))
		err = -EIO;
	return err;
}

/* A device or FIFO: cannot be replaced by rename, so write it in place. */
static int write_in_place(const char *path, atomic_fill_fn fill, const void *arg)
{
	FILE *f;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	err = write_stream(f, fill, arg);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/*
 * Where a report to path goes: path itself, or the file its symlinks lead
 * to, which may not exist yet (written through, as a shell's '>' does, so a
 * link stays a link). *real is malloc'ed. 0 or -errno (-ELOOP past 40 links).
 */
static int output_target(const char *path, char **real, int hops)
{
	char target[PATH_MAX], *next;
	const char *slash;
	struct stat st;
	ssize_t n;
	int err;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode)) {
		*real = strdup(path);
		return *real ? 0 : -ENOMEM;
	}
	if (hops >= 40)
		return -ELOOP;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	/* A relative link is relative to the link's own directory. */
	slash = strrchr(path, '/');
	if (target[0] == '/' || !slash)
		next = strdup(target);
	else if (asprintf(&next, "%.*s/%s", (int)(slash - path), path, target) < 0)
		next = NULL;
	if (!next)
		return -ENOMEM;
	err = output_target(next, real, hops + 1);
	free(next);
	return err;
}

int atomic_file__output_sync(const char *path, bool sync, atomic_fill_fn fill,
			     const void *arg)
{
	struct stat st;
	char *real;
	int err;

	if (!strcmp(path, "-"))
		return write_stream(stdout, fill, arg);
	err = output_target(path, &real, 0);
	if (err)
		return err;
	if (!stat(real, &st) && !S_ISREG(st.st_mode))
		err = write_in_place(real, fill, arg);
	else
		err = atomic_file__write(real, sync, fill, arg);
	free(real);
	return err;
}

int atomic_file__output(const char *path, atomic_fill_fn fill, const void *arg)
{
	return atomic_file__output_sync(path, true, fill, arg);
}

/* Can a file be written aside and renamed to path? Try the temporary file. */
static int check_aside(const char *path)
{
	char *tmp = tmp_name(path);
	int fd;

	if (!tmp)
		return -ENOMEM;
	fd = open_tmp(tmp);
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	return fd < 0 ? fd : 0;
}

int atomic_file__check(const char *path)
{
	struct stat st;
	char *real;
	int err;

	if (!strcmp(path, "-"))
		return 0;
	err = output_target(path, &real, 0);
	if (err)
		return err;
	if (stat(real, &st) || S_ISREG(st.st_mode))
		err = check_aside(real);
	else if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (faccessat(AT_FDCWD, real, W_OK, AT_EACCESS))
		err = -errno;
	free(real);
	return err;
}
