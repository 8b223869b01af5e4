/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * iostat -x's figures, by sysstat's formulas, from counts over a window:
 * either /proc/diskstats deltas or iostorm's own block-layer counts, so
 * the two can be shown side by side.
 */
#ifndef IOSTAT_H
#define IOSTAT_H

#include <linux/types.h>

struct diskstat;

/* What the formulas need, whatever the source. Times in milliseconds. */
struct iostat_in {
	double secs;		/* the window */
	__u64 reads;		/* completed requests */
	__u64 read_bytes;
	double read_ms;		/* summed over requests, start -> done */
	__u64 writes;
	__u64 write_bytes;
	double write_ms;
	double busy_ms;		/* time with a request in flight */
	double queue_ms;	/* summed request time of every operation */
};

struct iostat {
	double r_s;		/* reads/s */
	double rkb_s;		/* kB read/s (kB = 1024 bytes, as iostat) */
	double r_await;		/* ms per read, queue included; 0 without reads */
	double rareq_sz;	/* kB per read */
	double w_s;
	double wkb_s;
	double w_await;
	double wareq_sz;
	double aqu_sz;		/* requests in flight on average */
	double util;		/* % of the window with a request in flight */
};

/*
 * r/s = reads/secs; rkB/s = read_bytes/1024/secs; r_await = read_ms/reads;
 * rareq-sz = read_bytes/1024/reads; the same for writes; aqu-sz =
 * queue_ms/(secs*1000); %util = busy_ms/(secs*1000)*100, at most 100
 * (as sysstat caps it). All 0 when
 * secs <= 0 or (per-request figures) without requests.
 */
void iostat__compute(const struct iostat_in *in, struct iostat *out);
/* The input from a diskstats delta over secs (sectors are 512 bytes). */
void iostat__from_diskstat(const struct diskstat *delta, double secs,
			   struct iostat_in *in);

#endif /* IOSTAT_H */
