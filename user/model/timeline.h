/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The run over time: one point per drain interval for the target, taken
 * from the refreshed trace as the difference from the previous point.
 * Bounded: at most TL_MAX_POINTS points; when full, neighbours are merged
 * pairwise and later intervals are gathered per_point at a time, so the
 * whole run stays covered at a coarser step. Points hold counts, never
 * rates, so merging is a sum and the points always add up to the trace's
 * totals exactly.
 */
#ifndef MODEL_TIMELINE_H
#define MODEL_TIMELINE_H

#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"

struct trace;

#define TL_MAX_POINTS	3600

/*
 * Read latency per point: the trace's log-linear slots (16 per power of
 * two) from 2^TL_LAT_MIN_LOG2 ns to 2^TL_LAT_MAX_LOG2 ns, so a point's
 * percentiles are the same bucket bounds as the report's. Faster reads
 * count in the first slot, slower ones in the last.
 */
#define TL_LAT_MIN_LOG2	8	/* 256 ns */
#define TL_LAT_MAX_LOG2	34	/* 17.2 s */
#define TL_LAT_ROWS	(TL_LAT_MAX_LOG2 - TL_LAT_MIN_LOG2)	/* log2 rows */
#define TL_LAT_SLOTS	(TL_LAT_ROWS * HIST_SUB)

/* What a point counts; every one sums over merged points. */
enum tl_count {
	TL_FILES = 0,		/* opens of regular files (store.reg_opens) */
	TL_OPENS,		/* C_OPENS */
	TL_READS,		/* C_READS */
	TL_READ_BYTES,		/* C_READ_BYTES */
	TL_READ_NS,		/* C_READ_NS */
	TL_CACHE_PAGES,		/* C_CACHE_PAGES: page-cache misses */
	TL_BLK_READS,		/* the target's block read requests, every device */
	TL_BLK_READ_NS,		/* their start -> done time, summed */
	TL_BLK_READ_BYTES,	/* their bytes */
	TL_BUSY_NS,		/* busy time (every submitter's) of the device the target
				 * read most bytes from in the interval; 0: no block read */
	TL_CPU_NS,		/* loader threads: on CPU */
	TL_IO_WAIT_NS,		/* in I/O wait */
	TL_RUNQ_NS,		/* waiting for a CPU */
	TL_SLEEP_NS,		/* asleep otherwise */
	TL_STALL_DATA_NS,	/* the training loop: its data wait (stall.data_wait_ns) */
	TL_STALL_WALL_NS,	/* and its wall time then */
	TL_WRITES,		/* C_WRITES */
	TL_WRITE_BYTES,		/* C_WRITE_BYTES */
	TL_WRITE_NS,		/* C_WRITE_NS + C_FSYNC_NS + C_COMMIT_NS: time writing */
	TL_STALL_WRITE_NS,	/* the training loop: its write wait (stall.write_wait_ns) */
	TL__MAX,
};

struct tl_point {
	__u64 t_ns;			/* start, since the window opened */
	__u64 dur_ns;
	__u64 intervals;		/* drain intervals summed in it */
	__u64 n[TL__MAX];		/* enum tl_count */
	__u32 lat[TL_LAT_SLOTS];	/* read() latency, saturating */
};

/* Cumulative figures of the trace when the last interval ended. */
struct tl_prev;

struct timeline {
	struct tl_point *points;
	size_t nr;
	size_t cap;
	__u64 per_point;		/* drain intervals per point: 1, 2, 4... */
	struct tl_point pending;	/* intervals gathered for the next point */
	__u64 drain_ns;			/* the nominal drain interval */
	__u64 start_ns;			/* the window opened, CLOCK_MONOTONIC */
	__u64 last_ns;			/* the last interval ended */
	struct tl_prev *prev;
};

/*
 * Open the timeline at start_ns, drained every drain_ns (what the step
 * says; each point keeps its own span). 0 or -ENOMEM.
 */
int timeline__init(struct timeline *tl, __u64 start_ns, __u64 drain_ns);
void timeline__free(struct timeline *tl);
/*
 * One drain interval, from a trace refreshed at now_ns (counters, block
 * counts, histograms and threads): the difference from the last call.
 * 0 or -ENOMEM.
 */
int timeline__take(struct timeline *tl, const struct trace *t, __u64 now_ns);
/* Add one interval's point (what timeline__take() computes). 0 or -ENOMEM. */
int timeline__add(struct timeline *tl, const struct tl_point *p);
/* The end: the gathered intervals become the last point. 0 or -ENOMEM. */
int timeline__finish(struct timeline *tl);
/* Sum of every point (and the pending one) into sum. */
void timeline__sum(const struct timeline *tl, struct tl_point *sum);
/* Memory held, bytes. */
size_t timeline__bytes(const struct timeline *tl);

/* Add src into dst: counts and latency summed, time spans joined. */
void tl_point__merge(struct tl_point *dst, const struct tl_point *src);
/* Count one read of ns into p's latency slots. */
void tl_point__add_lat(struct tl_point *p, __u64 ns, __u64 n);
/* Upper bound of the slot holding the q-quantile, ns; 0 without reads. */
__u64 tl_point__quantile(const struct tl_point *p, double q);
/* Reads per log2 row: row r holds [2^(TL_LAT_MIN_LOG2 + r), twice that) ns. */
void tl_point__log2_rows(const struct tl_point *p, __u64 rows[TL_LAT_ROWS]);

#endif /* MODEL_TIMELINE_H */
