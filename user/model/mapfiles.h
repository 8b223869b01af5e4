/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Paths for mapped files the kernel side could not name. A fault names its
 * file by (device, inode) only: a file mapped before iostorm attached, or
 * by exec (the binary, its interpreter), has no path in the trace. The
 * target's /proc/PID/maps lists each mapping with its device, inode and
 * path: read it, at a drain, while the processes live.
 */
#ifndef MAPFILES_H
#define MAPFILES_H

#include <stdbool.h>
#include <linux/types.h>

struct store;

/*
 * Read /proc/TGID/maps (under proc, NULL for /proc): name the store's
 * records without a path, mark those mapped executable code (FILE_F_EXEC),
 * and remember the other mapped files (at most
 * MAPFILES_KEEP) for records that appear later. Called at the attach, for
 * files mapped before it. Returns how many were named, or -ENOMEM.
 */
int mapfiles__scan(struct store *s, __u32 tgid, const char *proc);
/*
 * Remember the file (dev, ino) at path, mapped executable when exec (code),
 * as a line of maps would: a launched command's program, which exec maps
 * and no maps line may show before it exits. 0 or -ENOMEM.
 */
int mapfiles__add(struct store *s, __u32 dev, __u64 ino, const char *path, bool exec);
/*
 * Name records without a path: from the files remembered, then from the
 * maps of the store's processes (at most MAPFILES_PROCS), which the
 * records' mappers may still be. Returns how many, or -ENOMEM.
 */
int mapfiles__name(struct store *s, const char *proc);

/* One line of /proc/PID/maps: its device (kernel encoding), inode and path.
 * Returns 0, or -EINVAL for a line without a file. */
int mapfiles__parse(const char *line, __u32 *dev, __u64 *ino, const char **path);

#define MAPFILES_PROCS	64
#define MAPFILES_KEEP	4096

#endif /* MAPFILES_H */
