/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Latency by layer: the time the target's read() calls took, next to the
 * time its block read requests took (queue and device), and a verdict on
 * where a read's time goes.
 */
#ifndef LAYERS_H
#define LAYERS_H

#include <linux/types.h>
#include "iostorm.h"

struct trace;

enum layer_verdict {
	LAYER_NONE = 0,		/* no reads */
	LAYER_ABOVE,		/* read() waits beyond its block requests */
	LAYER_CACHE,		/* the device supplied few of the bytes read */
	LAYER_QUEUE,		/* slow requests, mostly waiting in the queue */
	LAYER_DEVICE,		/* slow requests, mostly in the device */
	LAYER_OK,		/* block requests explain read(), and are fast */
	LAYER__MAX,
};

/*
 * Thresholds of layers__judge(), in the order the rules are tried:
 * ABOVE: read() time is at least LAYER_ABOVE_RATIO times the block time and
 *        exceeds it by LAYER_ABOVE_MIN_NS per read on average (a copy from
 *        the page cache costs ~0.1 ms per MiB, far less);
 * CACHE: the target's block reads brought less than LAYER_CACHE_PCT % of
 *        the bytes read() returned;
 * QUEUE / DEVICE: a block read takes LAYER_SLOW_NS or more on average, and
 *        queue time is more (QUEUE) or not (DEVICE) than device time;
 * OK:    the rest.
 */
#define LAYER_ABOVE_RATIO	2
#define LAYER_ABOVE_MIN_NS	500000ULL
#define LAYER_CACHE_PCT		10
#define LAYER_SLOW_NS		1000000ULL

/* Sums the verdict is made of. Block figures: the target's read requests. */
struct layer_sums {
	__u64 reads;		/* read-family syscalls on regular files */
	__u64 read_bytes;
	__u64 read_ns;
	__u64 blk_reqs;
	__u64 blk_bytes;
	__u64 blk_ns;		/* start -> done */
	__u64 queue_ns;		/* start -> issue */
	__u64 device_ns;	/* issue -> done */
};

/* p50, p99 (upper bucket bounds) and mean of one layer, ns. */
struct layer_lat {
	__u64 count;
	__u64 p50;
	__u64 p99;
	double mean;
};

struct layers {
	struct layer_sums sums;
	struct layer_lat read;		/* read() */
	struct layer_lat total;		/* block requests: start -> done */
	struct layer_lat queue;
	struct layer_lat device;
	enum layer_verdict verdict;
};

/* Where a read's time goes, by the rules above. Pure. */
enum layer_verdict layers__judge(const struct layer_sums *s);
/* Gather the target's reads and block reads from t, and judge them. */
void layers__compute(const struct trace *t, struct layers *l);
/* "above_block", "page_cache", "queue", "device", "ok", "none". */
const char *layers__key(enum layer_verdict v);
/* The verdict in words, one sentence without a full stop. */
const char *layers__words(enum layer_verdict v);

#endif /* LAYERS_H */
