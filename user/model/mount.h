/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The mounts a trace's files live on: a file's device (st_dev) names its
 * mount in /proc/PID/mountinfo of the target's mount namespace, read in
 * user space at the start and at the end of the trace, never per event.
 * And what the target did on each mount, summed over its files.
 */
#ifndef MODEL_MOUNT_H
#define MODEL_MOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct store;

struct mount_rec {
	__u32 dev;		/* kernel encoding: major << 20 | minor */
	char *point;		/* "/mnt/data" */
	char *fstype;		/* "fuse.sshfs", "ext4" */
	char *source;		/* "host:/data", "/dev/vda1" */
	char *root;		/* of the mount in its file system: "/", or a
				 * bind mount's subtree "/srv/ds" */
	char *options;		/* the super block's: "rw,vers=4.2,rsize=1048576,..." */
};

struct mounts {
	struct mount_rec *recs;
	size_t nr;
};

void mounts__free(struct mounts *m);
/*
 * Add the mounts of a mountinfo file (path) whose device m does not hold
 * yet: a device mounted twice keeps its first entry of root "/" (else its
 * first). 0 or -errno (-ENOENT: no such file, as for an exited process).
 */
int mounts__read(struct mounts *m, const char *path);
/* The same from /proc/PID/mountinfo, /proc/self/mountinfo when pid <= 0. */
int mounts__read_pid(struct mounts *m, pid_t pid);
/*
 * Each mount of a mountinfo file (path), parsed, given to take (which owns
 * the record's strings from then on); lines that are not mounts are
 * skipped. Stops at take's first error. 0 or -errno.
 */
int mounts__each(const char *path, int (*take)(void *ctx, struct mount_rec *r), void *ctx);
/* Parse one mountinfo line into r (strings allocated). 0, -EINVAL or -ENOMEM. */
int mounts__parse_line(const char *line, struct mount_rec *r);
/* Free the strings of a record mounts__parse_line() filled. */
void mounts__rec_free(struct mount_rec *r);
/* A mountinfo field with its \ooo escapes undone, malloc'd; NULL when out of memory. */
char *mounts__unescape(const char *s);
const struct mount_rec *mounts__find(const struct mounts *m, __u32 dev);
/* Is it a FUSE (fuse, fuse.*, fuseblk) or network (nfs*, cifs, smb3...) file system? */
bool mount__is_fuse(const struct mount_rec *r);
bool mount__is_network(const struct mount_rec *r);
/* Is it NFS (nfs, nfs4)? */
bool mount__is_nfs(const struct mount_rec *r);
/*
 * The value of option name in r's super options ("vers" of "vers=4.2"),
 * into buf; "" for a flag without a value ("nocto"). NULL when absent.
 */
const char *mount__option(const struct mount_rec *r, const char *name, char *buf, size_t len);

#endif /* MODEL_MOUNT_H */
