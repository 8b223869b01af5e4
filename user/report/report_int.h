/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Private to report/. Two documents on top (text.c, json.c) call the
 * sections, each of which prints its subject in both formats side by side
 * (vfs.c, mounts.c, block.c, fuse.c, nfs.c, lists.c, threads.c, cgroups.c, findings.c,
 * stall.c, lost.c, timeline.c), so a figure
 * added to one format is seen missing from the other; below them the
 * ranking (rank.c) and the emitters (emit.c).
 */
#ifndef REPORT_REPORT_INT_H
#define REPORT_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "findings/findings.h"
#include "model/facts.h"
#include "model/hist.h"
#include "model/trace.h"
#include "report/report.h"

struct json;

#define ELLIPSIS	"\xe2\x80\xa6"

/* ---- sections, text and JSON (docs/json.md names the keys) ---- */

/* "iostorm: <target>, traced 60.0 s (stopped by ...)": both texts' first line. */
void report_header__text(FILE *out, const struct report *r);
/* The one screen (brief.c); 0, -ENOMEM. */
int report_brief__text(FILE *out, const struct report *r, size_t top);

/* Totals, access pattern, latency and size distributions: "vfs", "latency", "sizes". */
void report_vfs__text(FILE *out, const struct report *r);
void report_vfs__json(struct json *j, const struct report *r);
/* The one screen's key figures (brief.c): files, opens, reads, metadata, writes, code. */
void report_vfs__brief_text(FILE *out, const struct report *r);
/* Per device iostat -x figures, submitters, pattern, latency by layer: "block", "layers". */
void report_block__text(FILE *out, const struct report *r);
/* The one screen's: each device's reads, wait and %util (devices), latency by layer (layers). */
void report_block__brief_text(FILE *out, const struct report *r, bool devices, bool layers);
void report_block__json(struct json *j, const struct report *r);
/* What the target did per mount ("mounts"), and the FUSE layer ("fuse"). */
void report_mounts__text(FILE *out, const struct report *r);
void report_mounts__json(struct json *j, const struct report *r);
void report_fuse__text(FILE *out, const struct report *r);
/* The one screen's FUSE and NFS: each mount's round trips and latency by layer. */
void report_fuse__brief_text(FILE *out, const struct report *r);
void report_nfs__brief_text(FILE *out, const struct report *r);
void report_fuse__json(struct json *j, const struct report *r);
/* The NFS layer ("nfs"): calls per RPC client and procedure, latency by layer. */
void report_nfs__text(FILE *out, const struct report *r);
void report_nfs__json(struct json *j, const struct report *r);
/* The busiest files, directories, threads, and threads by name. 0 or -ENOMEM. */
int report_lists__text(FILE *out, const struct report *r, size_t top);
/* The one screen's: the top dataset files. */
void report_lists__brief_text(FILE *out, const struct report *r, size_t top);
int report_lists__json(struct json *j, const struct report *r);
/* Threads rolled up by name: "thread_groups". 0 or -ENOMEM. */
void report_threads__text(FILE *out, const struct report *r, size_t top);
void report_threads__json(struct json *j, const struct report *r);
/* The cgroups that did I/O and their containers: "cgroups", "cgroups_folded". 0 or -ENOMEM. */
void report_cgroups__text(FILE *out, const struct report *r, size_t top);
void report_cgroups__json(struct json *j, const struct report *r);
/* The verdict line and the findings (f NULL: not judged): "verdict", "findings". */
void report_findings__text(FILE *out, const struct report *r);
void report_findings__json(struct json *j, const struct report *r);
/* detail 2: each phase's verdict and most severe findings; 1: its verdict; 0: neither. */
void report_phases__text(FILE *out, const struct report *r, int detail);
void report_phases__json(struct json *j, const struct report *r);
/* The training loop's wait for data: "stall". */
void report_stall__text(FILE *out, const struct report *r);
/*
 * The one screen's (brief.c): level 0 as report_stall__text(); 1 with
 * several loops, the line that sums them up and, where they span several
 * workloads, each workload's line; 2 the line that sums them up.
 */
void report_stall__brief_text(FILE *out, const struct report *r, int level);
void report_stall__json(struct json *j, const struct report *r);
/* What was lost, always, and the memory iostorm held: "lost", "store". */
/* full: the memory line too. */
void report_lost__text(FILE *out, const struct report *r, bool full);
void report_lost__json(struct json *j, const struct report *r);
/* The layers this kernel gave and the fallbacks taken: "kernel". */
void report_kernel__text(FILE *out, const struct report *r);
void report_kernel__json(struct json *j, const struct report *r);
/* The run over time, JSON only: "timeline". */
void report_timeline__json(struct json *j, const struct report *r);

/* ---- ranking (rank.c) ---- */

/*
 * One directory, one level deep: the regular files it holds directly, plus
 * the directory itself (opening, listing or stat-ing it), summed.
 */
struct dir_rec {
	char *path;		/* NULL: records whose path is unknown */
	__u64 files;		/* regular files */
	__u64 size;		/* of the regular files */
	struct file_counters c;	/* its records' counters, summed */
};

/* A file's I/O time, what the tables rank by: read + metadata ns. */
__u64 report__io_ns(const struct file_rec *f);
/* Busiest first: I/O time, then read bytes, then path. */
void report__sort_files(struct file_rec **files, size_t n);
/* Roll files up into their parent directories, busiest first. */
int report__dirs(struct file_rec *const *files, size_t n,
		 struct dir_rec **dirs, size_t *nr_dirs);
void report__dirs_free(struct dir_rec *dirs, size_t nr_dirs);
/* Threads busiest first (read + metadata ns) into *threads; free() it. */
int report__threads(const struct store *s, const struct thread_rec ***threads,
		    size_t *n);
/* The ranked lists both reports print: files, directories, threads. */
struct report_lists {
	struct file_rec **files;
	size_t nr_files;
	struct dir_rec *dirs;
	size_t nr_dirs;
	const struct thread_rec **threads;
	size_t nr_threads;
};

int report__lists(const struct store *s, struct report_lists *l);
void report__lists_free(struct report_lists *l);

/* ---- the report, built once (build.c) ---- */

/* Threads summed by name (threads__group()): report/threads.c. */
struct thread_group {
	char name[COMM_LEN];	/* comm without a trailing number: "tf_data_" */
	__u32 threads;
	__u64 opens;
	__u64 reads;
	__u64 read_bytes;
	__u64 io_ns;		/* read + metadata syscall time */
	__u64 cpu_ns;
	__u64 io_wait_ns;
	__u64 runq_ns;
	__u64 sleep_ns;
};

/* ---- the loops by workload (workloads.c) ---- */

/* What names a workload: a pod, else a Slurm job, else a cgroup, else a process. */
enum work_kind { WORK_POD, WORK_SLURM, WORK_CGROUP, WORK_PROCESS };

/* Their names in the JSON ("kind"). */
extern const char *const work_kind_names[];

/*
 * One workload of the node and its loops (ranks), in the order of t->loops
 * (the most waiting first): its first loop names it. Its storage facts
 * are the sums of the cgroup records it owns (every cgroup of its pod, of
 * its Slurm job, or its cgroup): what its loaders read, wherever they run.
 */
struct workload {
	enum work_kind kind;
	const struct stall *first;	/* its worst loop */
	const char *path;		/* first's cgroup; NULL for a process */
	struct cgroup_name name;	/* parsed from it */
	size_t nr_loops;
	size_t cgroups;			/* records summed into io */
	struct io_counters io;
};

/*
 * Loop s's cgroup path and what it names (*n), as its metrics label them:
 * its ledger entry's (model/ledger.h), else its cgroup's where resolved;
 * NULL where neither is known.
 */
const char *report__loop_workload(const struct trace *t, const struct stall *s,
				  struct cgroup_name *n);

/*
 * The workloads of t's loops into *v, each loop's workload into *work_of
 * (t->nr_loops of them); free() both. How many, or -ENOMEM.
 */
int report__workloads(const struct trace *t, struct workload **v, size_t **work_of);

struct report {
	const struct trace *t;
	const struct findings *f;	/* NULL: not judged */
	/* file totals, latency by layer (its verdict is f's), FUSE and NFS layers */
	const struct facts *fa;
	struct report_lists lists;	/* files and dirs busiest first, threads */
	struct mount_sums *mounts;	/* busiest first */
	size_t nr_mounts;
	struct hist file_sizes;		/* the regular files' sizes */
	struct thread_group *groups;	/* busiest first (on CPU + I/O wait) */
	size_t nr_groups;
	struct cgroup_rec **cgroups;	/* busiest first (cgroups__sorted()) */
	size_t nr_cgroups;
	struct workload *workloads;	/* the loops', the most waiting first */
	size_t nr_workloads;
	size_t *work_of;		/* each loop's index in workloads */
};

/* Thread groups busiest first (on-CPU + I/O wait time); free() *groups. */
int report__groups(const struct store *s, struct thread_group **groups, size_t *n);

/* ---- emitters (emit.c) ---- */

/* s right-aligned in width columns, after a space. */
void emit__cell(FILE *out, const char *s, int width);
void emit__cell_u64(FILE *out, __u64 v, int width);
/* A duration (units__ns()) right-aligned in width terminal columns. */
void emit__cell_ns(FILE *out, double ns, int width);
/* Text of a path or comm, control characters shown as '?'. */
void emit__safe(FILE *out, const char *s);
/* s left-aligned in width columns, its head cut to "…" when too long. */
void emit__left(FILE *out, const char *s, int width);
/* A record's path; directories end in "/", unknown paths show dev and inode. */
void emit__path(FILE *out, const struct file_rec *f, int width);
/* log2 rows as biolatency lays them out: time rows "8 -> 15", byte rows "[4K, 8K)". */
void emit__log2_rows(FILE *out, const __u64 rows[64], const char *unit, bool bytes);
/* "p50 12.3µs  p90 ...  max 4.56ms" for a latency histogram in ns. */
void emit__lat_quantiles(FILE *out, const struct hist *h);
/* The same for sizes, at lower bucket bounds. */
void emit__size_quantiles(FILE *out, const struct hist *h);
/* part of whole in percent; 0 when whole is 0. */
double emit__pct(__u64 part, __u64 whole);
/* A histogram as the HIST object of docs/json.md, under key. */
void emit__json_hist(struct json *j, const char *key, const struct hist *h,
		     const char *unit);

#endif /* REPORT_REPORT_INT_H */
