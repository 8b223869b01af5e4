/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Paths in two views. The kernel walks a file's path up to the reading
 * task's root, so it is the job's own path (what its code opened, inside
 * its chroot, pivot_root and mounts), and records the view (mount
 * namespace, root) and an anchor: the dentry where the walk left the file's
 * mount, with that dentry's path inside its file system (struct
 * anchor_path). Here the host's path follows from the host's mountinfo
 * (/proc/1/mountinfo, or iostorm's own): a host mount of the anchor's file system whose root
 * holds the anchor's path, its mount point, then the rest; checked by
 * stat() (same inode, same device) before it is believed. A stat() by a
 * name that crosses a mount inside the job's view is placed instead
 * through that view's own mountinfo (/proc/PID/mountinfo of a process
 * seen in it), while the process lives, or, when it is gone, from where
 * the view's other files were found: the directories they share
 * (views__rehost(), at the end of a trace).
 *
 *   job:  /data/c07/img.jpg   (mnt ns 4026532301, root "/")
 *   anchor of /c07/img.jpg:  "/srv/ds" on 254:1
 *   host mount of 254:1, root "/", at "/":  /srv/ds/c07/img.jpg
 */
#ifndef MODEL_VIEW_H
#define MODEL_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"

#define VIEWS_MAX	1024	/* views kept; files of later ones keep job paths only */
#define ANCHORS_MAX	8192	/* anchors kept, the oldest replaced beyond */
#define XLATE_MAX	64	/* job -> host directory pairs kept per view */

/* A directory as a job sees it and where it is on the host: "/data" -> "/srv/ds". */
struct xlate {
	char *job;
	char *host;
};

struct mnt_ent {
	__u32 dev;		/* kernel encoding: major << 20 | minor */
	char *root;		/* of the mount in its file system: "/", "/srv/ds" */
	char *point;		/* where it is mounted, in the reader's view */
};

struct mnt_table {
	struct mnt_ent *ents;
	size_t nr;
};

struct anchor_rec {
	__u64 addr;		/* the dentry's address, the kernel's key */
	__u32 dev;
	char *path;		/* in its file system */
};

/* A job's view: a mount namespace and a root within it. */
struct view_rec {
	__u32 mnt_ns;		/* inode number of the namespace */
	__u32 tgid;		/* a process seen in it (the latest) */
	__u64 root;		/* the root dentry's address */
	__u32 root_dev;
	bool host;		/* the host's own view: paths are the host's */
	bool mounts_tried;	/* its mountinfo was read, or could not be */
	char *root_host;	/* where its root is on the host, NULL if unknown */
	struct mnt_table mounts;	/* its mountinfo, for stat names */
	struct xlate *xl;		/* learned from the files placed */
	size_t nr_xl;
};

struct views {
	__u32 host_ns;			/* /proc/1/ns/mnt's inode number */
	char proc[64];			/* "/proc" (tests use another) */
	char host_dir[80];		/* "/proc/1", or "/proc/self" (see views__init) */
	struct mnt_table host;		/* /proc/1/mountinfo */
	bool host_fresh;		/* read since the last views__refresh() */
	struct anchor_rec *anchors;
	size_t nr_anchors;
	size_t next_anchor;		/* the one replaced next when full */
	struct view_rec *v;
	size_t nr;
};

/* A file's paths, malloc'd: host NULL when not found, job NULL when equal. */
struct file_paths {
	char *host;
	char *job;
	__u32 view;		/* views->v index + 1 of a job's view, 0 for the host's */
};

/* Read the host's mount namespace and mounts under proc ("/proc"). 0 or -errno. */
int views__init(struct views *vw, const char *proc);
void views__free(struct views *vw);
/* Learn (or update) the anchor at addr. 0 or -ENOMEM. */
int views__anchor(struct views *vw, __u64 addr, __u32 dev, const char *path);
/* Once per drain: the host's mountinfo may be read again if a path is not found. */
void views__refresh(struct views *vw);
/*
 * The paths of fs's file, whose path as the job sees it is job (malloc'd,
 * normalized; taken over). 0 or -ENOMEM.
 */
int views__place(struct views *vw, const struct file_key *key,
		 const struct file_stats *fs, char *job, struct file_paths *out);
/*
 * The host's path of a file the job knew as job, in view, from the
 * directories other files of the view were found in; checked by stat().
 * Malloc'd, NULL when not found.
 */
char *views__rehost(struct views *vw, __u32 view, const char *job, __u64 ino, __u32 dev);
/* A view by its number in struct file_paths, NULL for the host's. */
const struct view_rec *views__get(const struct views *vw, __u32 view);
/* Non-host views that hold files: 1-based numbers, as file records name them. */
size_t views__count(const struct views *vw);

/* Parse mountinfo text at path into t (every line kept); t stays as it was on error. 0 or -errno. */
int mnt_table__read(struct mnt_table *t, const char *path);
void mnt_table__free(struct mnt_table *t);
/*
 * Join a mount's point and a path inside its file system below its root:
 * ("/", "/srv", "/srv/a") -> "/a"; NULL when path is not below root.
 */
char *mnt__join(const char *point, const char *root, const char *path);

#endif /* MODEL_VIEW_H */
