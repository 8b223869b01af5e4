// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Files written aside and renamed: a full disk never leaves half a file. */
#include <errno.h>
#include <fcntl.h>
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

int atomic_file__write(const char *path, bool sync, atomic_fill_fn fill,
		       const void *arg)
{
	char *tmp;
	FILE *f;
	int fd, err;

	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
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

int atomic_file__output(const char *path, atomic_fill_fn fill, const void *arg)
{
	struct stat st;

	if (!strcmp(path, "-"))
		return write_stream(stdout, fill, arg);
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return write_in_place(path, fill, arg);
	return atomic_file__write(path, true, fill, arg);
}
