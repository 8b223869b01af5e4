/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Files that are complete or untouched: written aside, then renamed. */
#ifndef ATOMIC_FILE_H
#define ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>

typedef int (*atomic_fill_fn)(FILE *f, const void *arg);

/*
 * Write what fill() writes to path: into "path.tmp.<pid>" in the same
 * directory, flushed (and fsync'ed with sync), then renamed over path. On
 * any error the temporary file is removed and path is left as it was.
 * Returns 0 or the first -errno (fill's own, or -ENOSPC and the like).
 */
int atomic_file__write(const char *path, bool sync, atomic_fill_fn fill,
		       const void *arg);
/*
 * A report to path, as every output is written (JSON, HTML, the
 * Prometheus file): "-" to stdout (flushed, not closed); a symlink written
 * through to the file it leads to, created if missing (the link stays a
 * link); a device or FIFO, which rename cannot replace, in place;
 * anything else by atomic_file__write() with sync. 0 or the first -errno.
 */
int atomic_file__output(const char *path, atomic_fill_fn fill, const void *arg);
/* The same, with fsync only when sync (a file rewritten every second needs none). */
int atomic_file__output_sync(const char *path, bool sync, atomic_fill_fn fill,
			     const void *arg);
/*
 * Could atomic_file__output() write path? Checked before a long run, so a
 * missing or unwritable directory fails at once: the temporary file is
 * created and removed; a device or FIFO must be writable; a directory is
 * -EISDIR. 0 or -errno.
 */
int atomic_file__check(const char *path);

#endif /* ATOMIC_FILE_H */
