/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The block layer as the trace saw it, per device: completed requests per
 * (operation, submitter), histograms per (operation, histogram, scope),
 * busy time per scope, and /proc/diskstats at the start and the end of the
 * traced window. collect/ fills it from the kernel's block maps, which are
 * cumulative: each read replaces what an earlier one read.
 */
#ifndef BLOCK_H
#define BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"
#include "model/diskstats.h"
#include "model/iostat.h"

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

void block__free(struct block *b);
/* d's record, added zeroed when new; NULL when out of memory. */
struct blk_dev *block__dev(struct block *b, __u32 dev);
/* Zero every count and busy time, keeping devices and histograms: the maps are cumulative. */
void block__clear_counts(struct block *b);
/* Devices by the target's requests, then all requests, then dev. */
void block__sort(struct block *b);
/* Copy src's devices, counts and busy times into dst, histograms left out. 0 or -ENOMEM. */
int block__copy_counts(struct block *dst, const struct block *src);
void blk_stats__add(struct blk_stats *dst, const struct blk_stats *src);
/* Mark the start or the end of the window and read /proc/diskstats then. */
int block__start(struct block *b, __u64 now_ns);
int block__stop(struct block *b, __u64 now_ns);
/* The window in seconds; 0 before block__stop(). */
double block__secs(const struct block *b);
struct blk_dev *block__find(const struct block *b, __u32 dev);
/* A disk's or a partition's name ("vda", "vda1"); NULL when unknown. */
const char *block__name(const struct block *b, __u32 dev);

/* Bits of enum blk_who to sum over. */
#define WHO_BIT(w)	(1U << (w))
#define WHO_ALL		(WHO_BIT(WHO__MAX) - 1)
#define WHO_UNATTRIBUTED	(WHO_ALL & ~WHO_BIT(WHO_TARGET))

/* Sum d's counts of one operation (BLK__MAX: every one) over submitters. */
void blk_dev__sum(const struct blk_dev *d, int op, unsigned int who,
		  struct blk_stats *out);
/* Submitters of a scope: BLK_SCOPE_TARGET -> the target, BLK_SCOPE_DEVICE -> all. */
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
