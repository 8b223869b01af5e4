/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The cgroups that did I/O, and the containers they are: every thread
 * entry carries its cgroup v2 id, taken in the kernel; the id is resolved
 * to a path in user space (cgroups__resolve: a file handle on the cgroup2
 * file system, one open_by_handle_at per new id) and the path is parsed
 * into the container runtime's id and the Kubernetes pod's uid where the
 * path has them (cgroup__parse, pure).
 *
 * Bounded: at most max cgroups get a record of their own; the I/O of any
 * other is summed into one overflow record (cgid CGROUP_OTHER) and the
 * cgroups it holds are counted, so memory stays flat however many
 * containers come and go.
 */
#ifndef MODEL_CGROUP_H
#define MODEL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"

#define CGROUP_OTHER	((__u64)-1)	/* the overflow record's id */
#define CGROUPS_MAX	256		/* records by default */

/* What a cgroup path says about its container; "" where it says nothing. */
struct cgroup_name {
	char runtime[16];	/* "containerd", "crio", "docker", "podman" */
	char container_id[72];
	char pod_uid[40];	/* with dashes, as the API server writes it */
	char qos[12];		/* "burstable", "besteffort", "guaranteed" */
	char slurm_job[24];	/* Slurm's job id: ".../job_<id>/step_<n>" */
	char slurm_step[24];	/* and its step: a number, "batch", "extern" */
};

struct cgroup_rec {
	__u64 cgid;
	char *path;		/* under the cgroup2 mount ("/kubepods/..."); NULL: unknown */
	bool tried;		/* resolution tried once: a gone cgroup stays unknown */
	struct cgroup_name name;
	__u64 threads;		/* thread entries merged (a thread once per interval) */
	struct io_counters io;	/* its threads' counters, summed */
};

#define CGROUP_FOLD_SLOTS	512	/* ids remembered as folded (direct-mapped) */

struct cgroups {
	struct cgroup_rec *recs;	/* unsorted; at most max + 1 (the overflow) */
	size_t nr;
	size_t max;			/* 0: CGROUPS_MAX */
	__u64 gen;			/* drain intervals seen (cgroups__tick) */
	__u64 *seen;			/* per record: gen when last added to */
	__u64 folded;			/* cgroups summed into CGROUP_OTHER (see below) */
	__u64 fold_ids[CGROUP_FOLD_SLOTS];
};

void cgroups__free(struct cgroups *c);
/*
 * Add one interval's thread entry to its cgroup's record. A new id when
 * all max records are taken evicts the record idle longest (not added to
 * in this interval) into CGROUP_OTHER, sums and all, or, with none idle,
 * is summed there itself. folded counts both: each evicted record, and
 * each id summed there (once while it stays in a slot of fold_ids, so
 * the count is exact until ids collide, then an upper bound). Totals over
 * the records stay exact. 0 or -ENOMEM.
 */
int cgroups__add(struct cgroups *c, const struct thread_stats *ts);
/* A drain interval ends: records not added to from now on are idle. */
void cgroups__tick(struct cgroups *c);
struct cgroup_rec *cgroups__find(const struct cgroups *c, __u64 cgid);
/*
 * Parse a cgroup path: cgroupfs "kubepods/<qos>/pod<uid>/<id>", systemd
 * "kubepods-<qos>-pod<uid>.slice/cri-containerd-<id>.scope", "crio-<id>.scope",
 * "docker-<id>.scope", "/docker/<id>", "libpod-<id>.scope"; Slurm's job and step,
 * cgroup v1 "/slurm/uid_<U>/job_<J>/step_<S>", v2 ".../job_<J>/step_<S>" (under
 * slurmstepd.scope). Fills what it finds.
 */
void cgroup__parse(const char *path, struct cgroup_name *n);
/* Set the path of one record (relative to the cgroup2 mount) and parse it. 0 or -ENOMEM. */
int cgroup__set_path(struct cgroup_rec *r, const char *path);
/*
 * Resolve the ids not tried yet to paths, by file handle on the cgroup2
 * file system mounted at mount (NULL: found in /proc/self/mountinfo), or,
 * without CAP_DAC_READ_SEARCH, by a walk of its tree (inode == id).
 * Returns how many are still unknown, or -errno.
 */
int cgroups__resolve(struct cgroups *c, const char *mount);
/* Records with I/O, busiest first (read + metadata time), overflow last; free() it. */
struct cgroup_rec **cgroups__sorted(const struct cgroups *c, size_t *n);

#endif /* MODEL_CGROUP_H */
