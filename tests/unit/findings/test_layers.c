// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Latency by layer: where a read's time goes, and the thresholds of that verdict. */
#include "findings/findings.h"
#include "unit.h"

#define MS		1000000ULL	/* ns */

static struct layer_sums reads_of(__u64 n, __u64 bytes, __u64 ns_each)
{
	return (struct layer_sums){ .reads = n, .read_bytes = bytes, .read_ns = n * ns_each };
}

/* The target's block reads: n requests, total bytes, queue and device ns each. */
static void blk_of(struct layer_sums *s, __u64 n, __u64 bytes, __u64 q, __u64 d)
{
	s->blk_reqs = n;
	s->blk_bytes = bytes;
	s->queue_ns = n * q;
	s->device_ns = n * d;
	s->blk_ns = n * (q + d);
}

TEST(layers_judge)
{
	struct layer_sums s = {};

	CHECK_EQ_INT(layers__judge(&s), LAYER_NONE);
	/* IOPS cap: 20 ms per read, 0.3 ms per request. */
	s = reads_of(200, 200 * 32768, 20 * MS);
	blk_of(&s, 200, 200 * 32768, 5000, 300000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_ABOVE);
	/* ... even when most requests were dispatched by a kworker. */
	blk_of(&s, 20, 20 * 32768, 5000, 300000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_ABOVE);
	/* Warm cache: 10 µs reads, 1% of the bytes from the device. */
	s = reads_of(10000, 10000 * 65536, 10000);
	blk_of(&s, 50, 10000 * 65536 / 100, 2000, 200000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_CACHE);
	/* Saturated: 8 ms per request, 7 of them queued. */
	s = reads_of(1000, 1000 * 131072, 8 * MS + 20000);
	blk_of(&s, 1000, 1000 * 131072, 7 * MS, MS);
	CHECK_EQ_INT(layers__judge(&s), LAYER_QUEUE);
	/* Slow device: 8 ms per request, in the device. */
	blk_of(&s, 1000, 1000 * 131072, 100000, 7900000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_DEVICE);
	/* Keeping up: 0.3 ms per request. */
	s = reads_of(1000, 1000 * 131072, 320000);
	blk_of(&s, 1000, 1000 * 131072, 10000, 290000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_OK);
}

/* The thresholds, each just missed and just met. */
TEST(layers_judge_thresholds)
{
	struct layer_sums s;

	/* read() 2x the block time, 0.5 ms more per read: above. */
	s = reads_of(100, 100 * 4096, 2 * LAYER_ABOVE_MIN_NS);
	blk_of(&s, 100, 100 * 4096, 0, LAYER_ABOVE_MIN_NS);
	CHECK_EQ_INT(layers__judge(&s), LAYER_ABOVE);
	s.read_ns -= 1;		/* under twice the block time */
	CHECK(layers__judge(&s) != LAYER_ABOVE);
	/* 3x the block time but only 0.4 ms more per read: not above. */
	s = reads_of(100, 100 * 4096, 600000);
	blk_of(&s, 100, 100 * 4096, 0, 200000);
	CHECK(layers__judge(&s) != LAYER_ABOVE);
	/* The device brought exactly 10% of the bytes: not the cache... */
	s = reads_of(100, 100000, 1000);
	blk_of(&s, 1, 10000, 0, 1000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_OK);
	/* ... one byte less is. */
	s.blk_bytes -= 1;
	CHECK_EQ_INT(layers__judge(&s), LAYER_CACHE);
	/* No block request at all, fast reads: the cache. */
	s = reads_of(100, 100000, 1000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_CACHE);
	/* Exactly 1 ms per request is slow; queue == device time is the device. */
	s = reads_of(100, 100 * 4096, LAYER_SLOW_NS);
	blk_of(&s, 100, 100 * 4096, LAYER_SLOW_NS / 2, LAYER_SLOW_NS / 2);
	CHECK_EQ_INT(layers__judge(&s), LAYER_DEVICE);
	s.blk_ns -= 1;
	CHECK_EQ_INT(layers__judge(&s), LAYER_OK);
	CHECK_STR(layers__key(LAYER_ABOVE), "above_block");
	CHECK(strstr(layers__words(LAYER_ABOVE), "above the block layer") != NULL);
	CHECK_STR(layers__words(LAYER_QUEUE), "requests wait in the queue before the device");
	CHECK_STR(layers__key(LAYER__MAX), "unknown");
}
