/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Everything one trace measured: the store of files and threads, global
 * counters, histograms, the block layer and what was lost; and the few
 * facts of the machine the findings need. No judgement: the findings are
 * made from a trace (findings/findings.h) and handed to the outputs.
 */
#ifndef MODEL_TRACE_H
#define MODEL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"
#include "model/block.h"
#include "model/cgroup.h"
#include "model/stall.h"
#include "model/fuse.h"
#include "model/nfs.h"
#include "model/kernel.h"
#include "model/ledger.h"
#include "model/mount.h"
#include "model/procs.h"
#include "model/store.h"
#include "model/timeline.h"
#include "model/view.h"

/*
 * The kernel's tables that hold a thread's, a pair's or a file's figures
 * between drains: each is bounded by what is live in a drain interval or
 * two (docs/memory.md), and its fill is watched.
 */
enum kernel_table {
	KT_WAKES = 0,		/* (sleeper, waker) pairs of two intervals */
	KT_FORKS,		/* processes forked, exec'd or exited in an interval */
	KT_RECV,		/* recv_threads: threads until they exit */
	KT_WRITES,		/* write_threads: likewise */
	KT_ASYNC_THREADS,	/* async_threads: likewise */
	KT_ASYNC_FILES,		/* async_files: files' reads in flight, of two files intervals */
	KT_ASYNC_FILE_SUMS,	/* async_file_sums: files' async reads of two files intervals */
	KT__MAX,
};

struct table_fill {
	__u64 max;		/* its max_entries */
	__u64 high;		/* the most entries it held at a drain */
};

enum stop_reason {
	STOP_DURATION = 0,
	STOP_SIGNAL,
	STOP_TARGET_EXIT,
};

struct trace {
	char target[256];		/* what was traced, in words */
	double duration_s;		/* traced wall time */
	__u64 counters[C__MAX];		/* enum counter */
	__u64 lost[L__MAX];		/* enum lost_reason */
	__u64 async_in_flight;		/* io_uring and AIO reads submitted, not completed at the end */
	__u64 prog_misses;		/* BPF runs the kernel skipped (recursion) */
	__u64 maps_bytes;		/* kernel memory of iostorm's BPF maps */
	__u64 drains;			/* of the files maps, early or on schedule */
	__u64 open_errnos[ERRNO_SLOTS];
	struct hist hists[H__MAX];	/* enum hist_id */
	struct store store;
	struct block block;		/* block layer, diskstats included */
	struct wakes wakes;		/* who ended whose sleeps (cumulative, model/wakes.h) */
	struct table_fill tables[KT__MAX];	/* enum kernel_table */
	struct procs procs;		/* the target's process tree */
	struct stall stall;		/* the headline loop's wait for data (stall.h) */
	struct stall *loops;		/* every training loop, the most waiting first */
	size_t nr_loops;
	struct ledger ledger;		/* every loop by its identity, labelled (ledger.h) */
	struct stall_start *starts;	/* process main threads before their first batch */
	size_t nr_starts;
	bool data_seen;			/* a data file was read: loops have started */
	struct timeline timeline;	/* the run, one point per drain interval */
	struct fuse_layer fuse;		/* FUSE requests per connection and opcode */
	struct nfs_layer nfs;		/* NFS calls per RPC client and procedure */
	struct mounts mounts;		/* the target's mounts, by device */
	struct cgroups cgroups;		/* the cgroups that did I/O: containers */
	struct views views;		/* the jobs' views of paths, and the host's */
	struct kernel_reach kernel;	/* the layers this kernel gave, fallbacks taken */
	__u64 mem_bytes;		/* the machine's MemTotal; 0 when unknown */
	__u32 page_size;		/* bytes of a page-cache page */
	__u32 nr_cpus;			/* online; 0 when unknown */
	int exit_status;		/* of a launched command, else -1 */
	enum stop_reason stopped_by;
};

/* What the target did on one mount, summed over its files' records. */
struct mount_sums {
	__u32 dev;
	const struct mount_rec *mount;	/* NULL: the device is in no mountinfo read */
	__u64 files;		/* regular files */
	struct file_counters c;	/* its files' counters, summed */
};

/* Sums over the store's records. Read classes count regular files only. */
struct file_totals {
	__u64 files;		/* regular files */
	__u64 dirs;
	__u64 files_read;	/* regular files read at least once */
	__u64 files_written;	/* regular files written or synced at least once */
	__u64 reads;
	__u64 reads_consec;
	__u64 reads_seq;
	__u64 reads_random;
	/* Mapped data (not code): faults that read from storage, see file_stats. */
	__u64 files_mapped;	/* data files with such faults */
	__u64 fault_reads;
	__u64 fault_pages;
	__u64 fault_seq;
	__u64 fault_rand;
	__u64 fault_ns;
	/* Code and libraries (model/kind.h), of the figures above. */
	__u64 code_files;
	__u64 code_opens;
	__u64 code_reads;
	__u64 code_read_bytes;
	__u64 code_stats;
	__u64 code_read_ns;
	__u64 code_meta_ns;
	__u64 code_ns;		/* read + metadata time */
	__u64 code_fault_pages;
	__u64 code_why_files[KIND__MAX];	/* code files by why they are (model/kind.h) */
	__u64 code_why_reads[KIND__MAX];	/* and their reads */
	/* io_uring and AIO reads by file (struct async_file), at the end. */
	__u64 async_files;	/* files with any */
	__u64 async_reads;	/* their reads whose file was known at submit */
	__u64 async_depth;	/* those reads' depth on their file at submit, summed */
	__u64 async_late;	/* their reads whose file was known only at completion */
	__u64 async_depth_max;	/* the deepest any file's queue was at a submit */
};

/* The trace at an instant, what interval lines are made of: counters and block counts. */
struct trace_snap {
	__u64 ns;			/* CLOCK_MONOTONIC */
	__u64 counters[C__MAX];
	__u64 reg_opens;		/* store.reg_opens */
	struct hist read_lat;		/* H_READ_LAT */
	struct block block;		/* counts and busy time, no histograms */
	__u32 consumer_tid;		/* the training loop's, 0 when not found */
	__u64 consumer_data_ns;		/* its stall.data_wait_ns */
	__u64 consumer_wall_ns;	/* its stall.wall_ns */
};

/* Take s from t at now_ns. 0 or -ENOMEM. */
int trace__snap(struct trace_snap *s, const struct trace *t, __u64 now_ns);
void trace__snap_free(struct trace_snap *s);
/* The machine's memory (/proc/meminfo) and page size into t. */
void trace__machine(struct trace *t);
/*
 * Did the kernel's files map refuse files (lost.files_map_full), or the
 * store drop the least recently used (store.files_evicted, --store-files)?
 * Then every figure that counts files (distinct files and directories,
 * files read, per-directory counts) is a lower bound, and each output says so.
 */
bool trace__files_lower_bound(const struct trace *t);
/*
 * The deepest async queue on a file is an upper bound, not exact, when the
 * kernel skipped runs of the programs that count reads in flight (7.x): a
 * skipped completion leaves its read counted in flight, so the depth read
 * at that file's later submits is too high, by at most the runs skipped.
 */
bool trace__async_depth_upper_bound(const struct trace *t);
/* A kernel table's name in JSON and text ("wakes", "recv_threads"). */
const char *trace__table_key(enum kernel_table k);
/*
 * Was a sleep not charged to the thread that ended it (lost.wakes_full)?
 * Then each loop's data wait is a lower bound, and each output says so.
 */
bool trace__data_wait_lower_bound(const struct trace *t);
/* Sum of lost[] and prog_misses: the events the report does not hold. */
__u64 trace__lost_total(const struct trace *t);
/*
 * Sum the store's files per device into *out (busiest by read + metadata
 * time first, then dev; block devices' own caches are no mount's); free()
 * it. Returns how many, or -ENOMEM.
 */
int trace__mount_sums(const struct trace *t, struct mount_sums **out);
void trace__file_totals(const struct store *s, struct file_totals *tot);
/* A histogram of the sizes of every regular file. */
void trace__file_sizes(const struct store *s, struct hist *h);
/*
 * Was layer l not measured where it mattered? A layer absent from the node
 * when iostorm started (no NFS client loaded) matters only if the trace
 * saw one of its mounts (an NFS mount, mounted since): otherwise there was
 * nothing of it to measure, and no output says it is missing.
 */
bool trace__layer_missing(const struct trace *t, enum kernel_layer l);
/* Is there nothing at all to report? */
bool trace__empty(const struct trace *t);
/* "ENOENT" for an open_errnos slot; "E135+" for the last, shared slot. */
const char *trace__errno_name(int slot, char *buf, size_t len);
/* Slots of nonzero open_errnos, most frequent first; returns how many. */
int trace__top_errnos(const struct trace *t, int *slots, int max);
/* "duration", "signal", "target_exit". */
const char *trace__stop_name(enum stop_reason stopped_by);
/* JSON key of a lost reason ("files_map_full") and its words ("files map full"). */
const char *trace__lost_key(int reason);
const char *trace__lost_words(int reason);

#endif /* MODEL_TRACE_H */
