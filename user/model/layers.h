/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Latency by layer, measured: the time the target's read() calls took, and
 * its faults on mapped data waited, next to the time its block read
 * requests took (queue and device). Where a read's time goes, the verdict,
 * is judged in findings/layers.h.
 */
#ifndef MODEL_LAYERS_H
#define MODEL_LAYERS_H

#include <linux/types.h>

struct trace;

/* The sums behind the latencies. Block figures: the target's read requests. */
struct layer_sums {
	__u64 reads;		/* read-family syscalls on regular files */
	__u64 read_bytes;
	__u64 read_ns;
	__u64 faults;		/* faults on file mappings that read from storage */
	__u64 fault_bytes;	/* the pages they brought in */
	__u64 fault_ns;		/* their threads' wait for those pages (D state) */
	__u64 blk_reqs;
	__u64 blk_bytes;
	__u64 blk_ns;		/* start -> done */
	__u64 queue_ns;		/* start -> issue */
	__u64 device_ns;	/* issue -> done */
	__u64 cache_bytes;	/* pages the target added to the page cache */
	__u64 fuse_bytes;	/* READ reply bytes of FUSE daemons; the judge's caller fills it */
	__u64 nfs_bytes;	/* READ and READ_PLUS reply bytes of NFS servers; likewise */
};

/* p50, p99 (upper bucket bounds) and mean of one layer, ns. */
struct layer_lat {
	__u64 count;
	__u64 p50;
	__u64 p99;
	double mean;
};

/*
 * The target's syscalls on the files of one device: a FUSE connection's
 * or an NFS mount's (model/fuse_layers.h, model/nfs_layers.h).
 */
struct mount_syscalls {
	__u64 files_opened;	/* regular files opened at least once */
	__u64 opens;
	__u64 stats;
	__u64 reads;
	__u64 read_bytes;
	double read_mean_ns;	/* per read() */
	double meta_mean_ns;	/* per open or stat (close and getdents time included) */
};

struct layers {
	struct layer_sums sums;
	struct layer_lat read;		/* read() */
	struct layer_lat fault;		/* faults that read: count and mean only */
	struct layer_lat total;		/* block requests: start -> done */
	struct layer_lat queue;
	struct layer_lat device;
};

/* Gather the target's reads and block reads from t. */
void layers__measure(const struct trace *t, struct layers *l);
/* Sum the target's syscalls on the files of device dev in t into *m. */
void layers__mount_syscalls(const struct trace *t, __u32 dev, struct mount_syscalls *m);

#endif /* MODEL_LAYERS_H */
