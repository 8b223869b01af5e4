/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The block layer as the trace saw it, per device: completed requests per
 * (operation, submitter), histograms per (operation, histogram, scope),
 * busy time per scope, and /proc/diskstats at the start and the end of the
 * traced window. The kernel's block maps are cumulative: block__read()
 * replaces what an earlier call read.
 */
#ifndef BLOCK_H
#define BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model/diskstats.h"
#include "model/iostat.h"
#include "iostorm.h"

#define BLK_HISTS	(H_BLK_INFLIGHT - H_BLK_QUEUE_LAT + 1)	/* H_BLK_* */
#define BLK_SCOPES	2					/* enum blk_scope */

struct blk_dev {
	__u32 dev;				/* major << 20 | minor of the disk */
	char name[32];				/* "vda", "loop0" */
	struct blk_stats st[BLK__MAX][WHO__MAX];	/* [enum blk_op][enum blk_who] */
	__u64 busy_ns[BLK_SCOPES];		/* up to the read's time */
	__u64 unfinished[BLK__MAX];		/* started, completion not seen */
	__u64 untracked[BLK__MAX];		/* completed, start not seen */
	struct hist *hists[BLK__MAX][BLK_HISTS][BLK_SCOPES];	/* NULL: empty */
};

struct block {
	struct blk_dev *devs;		/* busiest for the target first */
	size_t nr_devs;
	__u64 start_ns;			/* the traced window, CLOCK_MONOTONIC */
	__u64 end_ns;
	struct diskstats ds_start;	/* empty when unreadable */
	struct diskstats ds_end;
};

/* The kernel's block maps, by fd (see bpf/block.bpf.c). */
struct block_maps {
	int stats_fd;		/* blk_stats: PERCPU_HASH blk_key -> blk_stats */
	int devs_fd;		/* blk_devs: HASH dev -> blk_dev_info */
	int hists_fd;		/* blk_hists: HASH blk_hist_key -> hist; -1 skips */
	int reqs_fd;		/* blk_reqs: HASH request -> blk_req; -1 skips */
	int missed_fd;		/* blk_missed: HASH blk_key (.who: blk_miss) -> count */
};

void block__free(struct block *b);
/*
 * Read the maps into b, replacing what it held. Busy time still open at
 * now_ns (CLOCK_MONOTONIC) is counted up to now_ns. Unfinished requests
 * are those whose completion the programs missed (the kernel, rarely, does
 * not run a tracepoint's program, and does not count a miss either) and,
 * with reqs_fd (read it after the detach), those still in flight at the
 * end; untracked ones completed after the attach but their start was
 * missed. Devices are sorted by the target's requests, then all
 * requests, then dev.
 */
int block__read(struct block *b, const struct block_maps *m, int ncpus, __u64 now_ns);
/* Mark the start or the end of the window and read /proc/diskstats then. */
int block__start(struct block *b, __u64 now_ns);
int block__stop(struct block *b, __u64 now_ns);
/* The window in seconds; 0 before block__stop(). */
double block__secs(const struct block *b);
struct blk_dev *block__find(const struct block *b, __u32 dev);

/* Bits of enum blk_who to sum over. */
#define WHO_BIT(w)	(1U << (w))
#define WHO_ALL		(WHO_BIT(WHO__MAX) - 1)
#define WHO_UNATTRIBUTED	(WHO_ALL & ~WHO_BIT(WHO_TARGET))

/* Sum d's counts of one operation (BLK__MAX: every one) over submitters. */
void blk_dev__sum(const struct blk_dev *d, int op, unsigned int who,
		  struct blk_stats *out);
/* Submitters of a scope: SCOPE_TARGET -> the target, SCOPE_DEVICE -> all. */
unsigned int blk_dev__who(int scope);
/* Did d complete a request in the window? */
bool blk_dev__active(const struct blk_dev *d);
/* A histogram of d (hist is an H_BLK_* id); NULL when empty. */
const struct hist *blk_dev__hist(const struct blk_dev *d, int op, int hist, int scope);
/* iostat's input from d's counts of one scope over secs. */
void blk_dev__iostat_in(const struct blk_dev *d, int scope, double secs,
			struct iostat_in *in);
/* The same from d's /proc/diskstats delta; -ENOENT when it is not there. */
int block__diskstats(const struct block *b, const struct blk_dev *d,
		     struct diskstat *delta);

/* One operation of one scope summed over every device. */
void block__sum(const struct block *b, int op, unsigned int who, struct blk_stats *out);
void block__hist(const struct block *b, int op, int hist, int scope, struct hist *out);

/* "read", "write", "flush", "discard", "other". */
const char *block__op_name(int op);

#endif /* BLOCK_H */
