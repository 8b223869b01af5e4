/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The evidence the findings are judged from: every figure a rule may cite,
 * computed once from a trace. Pure code: no BPF, unit-tested.
 */
#ifndef EVIDENCE_H
#define EVIDENCE_H

#include <stdbool.h>
#include <linux/types.h>
#include "findings/layers.h"	/* enum layer_verdict: where a read's time goes */
#include "lib/schema.h"		/* WHOLE_SHARE */

struct facts;
struct trace;

/*
 * Every figure a finding may cite, computed once from a trace. Rates are
 * per second of traced time; shares are 0..1; -1 means "not measured".
 * evidence__from_trace() fills all but the block part, which the caller
 * fills from the block layer (have_block, blk_*, layer).
 */
struct evidence {
	double duration_s;
	/* VFS */
	__u64 files_read;		/* distinct regular files with reads (a phase: the run's) */
	bool files_lower_bound;		/* files_read and the like: at least (see trace.h) */
	__u64 phase_file_opens;		/* a phase's opens of regular files; 0: the whole run */
	__u64 opens;
	__u64 reads;
	__u64 read_bytes;
	__u64 stats;
	__u64 getdents;
	double files_per_s;		/* files_read per s; a phase: phase_file_opens per s */
	double opens_per_s;
	double reads_per_s;
	double read_bytes_per_s;
	double median_file_bytes;	/* over files read; -1 without */
	double whole_file_share;	/* files read to >= 90% of their size */
	double file_order_random;	/* 0 = files read in path order, ~1 = shuffled; -1 < 10 files */
	double small_read_share;	/* reads returning < 256 KiB, EOF reads excluded */
	double meta_share;		/* open+stat+close+getdents / (that + read) time */
	double meta_s;			/* open+stat+close+getdents time, summed over calls */
	double read_s;			/* read time, summed over calls */
	double read_p50_us;
	double read_p99_us;
	double read_mean_us;
	double open_p50_us;
	double stat_p50_us;
	/* mapped data: faults that read from storage (code excluded) */
	__u64 files_mapped;
	__u64 fault_reads;
	__u64 fault_bytes;
	__u64 mapped_bytes;		/* size of the mapped data files */
	double fault_reads_per_s;
	double fault_random_share;	/* of classified faults; -1 without */
	double fault_wait_s;		/* waiting for pages after those faults */
	/* code and libraries (model/kind.h): out of every figure above */
	__u64 code_files;
	__u64 code_opens;
	__u64 code_reads;
	/* threads (sched) */
	__u64 io_threads;		/* threads that read or opened files */
	double cpu_share;		/* of the I/O threads' time: on CPU */
	double io_wait_share;		/* off CPU in file syscalls or D state */
	double runq_share;		/* waiting for a CPU */
	double sleep_share;		/* asleep otherwise */
	double read_concurrency;	/* mean reads in flight: sum(read time) / duration */
	/* page cache */
	__u64 cache_bytes;		/* brought into the page cache by the target */
	double miss_share;		/* from storage / read bytes (layers__storage_share()) */
	__u64 working_set_bytes;	/* distinct bytes of files read */
	__u64 reread_bytes;		/* bytes read beyond each file's first pass */
	__u64 mem_total_bytes;		/* MemTotal; 0 when unknown */
	/* the training loop (model/stall.h): have_stall false when no consumer */
	bool have_stall;
	double stall_share;		/* data wait / the consumer's wall time */
	double stall_own_io_share;	/* its own file syscalls */
	double stall_loader_share;	/* asleep until the loader woke it */
	double stall_cpu_share;
	double stall_wall_s;
	char stall_comm[16];
	__u32 stall_pid;
	double stall_rank_share;	/* asleep until another rank's loop side woke it */
	double stall_receive_share;	/* its CPU and run queue receiving batches */
	double stall_shake_share;	/* asleep in their handshakes (of its loader wait) */
	double stall_runq_share;	/* runnable: preempted while it computes */
	size_t stall_loops;		/* training loops (data-parallel ranks) */
	double stall_least_share;	/* the share of the loop that waits least */
	/*
	 * The loop that waits most on writes (model/stall.h): have_write_wait
	 * false when no loop waits on any; shares of its wall time.
	 */
	bool have_write_wait;
	double write_share;		/* its write wait: own writes + writers' */
	double write_own_share;		/* its own writes, syncs and commits */
	double write_writer_share;	/* asleep until a writer (a saver) woke it */
	double write_data_share;	/* its data wait */
	double write_wall_s;
	char write_comm[16];
	__u32 write_pid;
	/* writes of regular files; the saves among them (evidence__add_saves()) */
	__u64 writes;
	__u64 write_bytes;
	__u64 save_files;		/* data files written with save_bytes at least */
	__u64 saves;			/* their closes that commit (else syncs, else 1 each) */
	__u64 save_bytes;		/* bytes written to them */
	double save_s;			/* time in their writes, syncs and commits */
	char save_dir[128];		/* the directory most of those bytes went to */
	/* the headline loop's loader: its working threads (model/stall.h) */
	int ld_workers;			/* threads */
	int ld_procs;			/* processes apart from the loop's: DataLoader workers */
	double ld_cpu_share;		/* of their time: on CPU; -1 without workers */
	double ld_runq_share;		/* waiting for a CPU */
	double ld_io_share;		/* in file syscalls or D state */
	double ld_sleep_share;		/* asleep otherwise: idle, or waiting for work */
	double ld_runnable;		/* threads on CPU or waiting for one, mean */
	double ld_busiest_share;	/* the busiest one: on CPU or waiting for one; -1 */
	char ld_busiest_comm[16];
	__u32 nr_cpus;			/* online; 0 when unknown */
	/* layers this kernel did not give (model/kernel.h), ", "-separated; filled by the caller */
	int nr_unmeasured;
	char unmeasured[96];
	/* block layer: the target's reads; filled by the caller */
	bool blk_unmeasured;		/* this kernel did not give it: no figure said */
	bool have_block;
	__u64 blk_reads;
	double blk_mean_bytes;		/* bytes per read request */
	double blk_reads_per_s;
	double blk_random_share;
	double blk_small_share;		/* requests of at most BLK_SMALL bytes */
	double blk_await_ms;		/* mean start -> done */
	double blk_queue_share;		/* queue time / total time */
	double blk_device_p50_us;
	double blk_inflight_mean;	/* aqu-sz: sum(total time) / duration */
	double blk_util;		/* busy share, 0..1 */
	enum layer_verdict layer;	/* layers__judge(), evidence__add_layer(); LAYER_NONE before */
	/* FUSE: the connection with most of the target's requests; filled by the caller */
	bool have_fuse;
	char fuse_fs[48];		/* "fuse.sshfs" */
	char fuse_mount[128];		/* "/mnt/data"; "" when unknown */
	__u64 fuse_reqs;		/* the target's, on that connection */
	__u64 fuse_read_bytes;		/* READ reply bytes, every connection */
	double fuse_reqs_per_s;
	double fuse_round_trips;	/* requests per file opened; -1 without opens */
	double fuse_rtt_us;		/* mean request, send -> end */
	double fuse_lookup_p50_us;
	double fuse_getattr_p50_us;
	double fuse_open_p50_us;
	double fuse_read_p50_us;
	double fuse_read_inflight;	/* READ requests in flight at send, mean */
	/* NFS: the mount with most of the target's calls; filled by the caller */
	bool have_nfs;
	char nfs_fs[160];		/* "nfs4 10.0.0.5:/data" */
	char nfs_mount[128];		/* "/mnt/data"; "" when unknown */
	char nfs_version[8];		/* "4.2" */
	char nfs_per_file[128];		/* "LOOKUP 1.0, OPEN 1.0, READ_PLUS 1.0, CLOSE 1.0" */
	__u64 nfs_calls;		/* the target's, on that mount */
	__u64 nfs_read_bytes;		/* READ and READ_PLUS reply bytes, every mount */
	double nfs_calls_per_s;
	double nfs_round_trips;		/* calls per file opened; -1 without opens */
	double nfs_rtt_us;		/* mean call: transmission -> reply */
	double nfs_total_us;		/* mean call: begin -> end */
	double nfs_lookup_p50_us;
	double nfs_getattr_p50_us;
	double nfs_access_p50_us;
	double nfs_open_p50_us;
	double nfs_read_p50_us;
	double nfs_read_inflight;	/* READ calls in flight at begin, mean */
	__u64 nfs_retrans;		/* the target's calls' retransmissions */
	__u32 nfs_nconnect;		/* 0 when unknown */
	__u64 nfs_rsize;		/* 0 when unknown */
	bool nfs_nocto;
	bool nfs_actimeo;
};

struct stall;

/* The evidence of t; fa is facts__measure()'s of t (its file totals). 0 or -errno. */
int evidence__from_trace(struct evidence *e, const struct trace *t, const struct facts *fa);
/* The loop part of e from loop s: its split and its loader's time (duration_s first). */
void evidence__set_loop(struct evidence *e, const struct stall *s);

/* a / b, or -1 (not measured) unless b > 0: how the evidence gives shares. */
static inline double evidence__ratio(double a, double b)
{
	return b > 0 ? a / b : -1;
}

#endif /* EVIDENCE_H */
