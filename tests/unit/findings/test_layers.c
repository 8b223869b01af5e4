// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Latency by layer: where a read's time goes, and the thresholds of that verdict. */
#include <math.h>
#include <string.h>
#include "findings/findings.h"
#include "unit.h"

#define MS		1000000ULL	/* ns */
#define MIB		1048576ULL

/* The verdict at the default thresholds. */
static enum layer_verdict judge(const struct layer_sums *s)
{
	struct thresholds th;

	thresholds__defaults(&th);
	return layers__judge(s, th.v);
}

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

	CHECK_EQ_INT(judge(&s), LAYER_NONE);
	/* IOPS cap: 20 ms per read, 0.3 ms per request. */
	s = reads_of(200, 200 * 32768, 20 * MS);
	blk_of(&s, 200, 200 * 32768, 5000, 300000);
	CHECK_EQ_INT(judge(&s), LAYER_ABOVE);
	/* ... even when most requests were dispatched by a kworker. */
	blk_of(&s, 20, 20 * 32768, 5000, 300000);
	CHECK_EQ_INT(judge(&s), LAYER_ABOVE);
	/* Warm cache: 10 µs reads, 1% of the bytes from the device. */
	s = reads_of(10000, 10000 * 65536, 10000);
	blk_of(&s, 50, 10000 * 65536 / 100, 2000, 200000);
	CHECK_EQ_INT(judge(&s), LAYER_CACHE);
	/* Saturated: 8 ms per request, 7 of them queued. */
	s = reads_of(1000, 1000 * 131072, 8 * MS + 20000);
	blk_of(&s, 1000, 1000 * 131072, 7 * MS, MS);
	CHECK_EQ_INT(judge(&s), LAYER_QUEUE);
	/* Slow device: 8 ms per request, in the device. */
	blk_of(&s, 1000, 1000 * 131072, 100000, 7900000);
	CHECK_EQ_INT(judge(&s), LAYER_DEVICE);
	/* Keeping up: 0.3 ms per request. */
	s = reads_of(1000, 1000 * 131072, 320000);
	blk_of(&s, 1000, 1000 * 131072, 10000, 290000);
	CHECK_EQ_INT(judge(&s), LAYER_OK);
}

/* layers__slow_ns() at the default thresholds. */
static double judge_limit(const struct layer_sums *s)
{
	struct thresholds th;

	thresholds__defaults(&th);
	return layers__slow_ns(s, th.v);
}

/* The thresholds, each just missed and just met. */
TEST(layers_judge_thresholds)
{
	struct layer_sums s;

	/* read() 2x the block time, 0.5 ms more per read: above. */
	s = reads_of(100, 100 * 4096, 2 * LAYER_ABOVE_MIN_NS);
	blk_of(&s, 100, 100 * 4096, 0, LAYER_ABOVE_MIN_NS);
	CHECK_EQ_INT(judge(&s), LAYER_ABOVE);
	s.read_ns -= 1;		/* under twice the block time */
	CHECK(judge(&s) != LAYER_ABOVE);
	/* 3x the block time but only 0.4 ms more per read: not above. */
	s = reads_of(100, 100 * 4096, 600000);
	blk_of(&s, 100, 100 * 4096, 0, 200000);
	CHECK(judge(&s) != LAYER_ABOVE);
	/* The device brought exactly 10% of the bytes: not the cache... */
	s = reads_of(100, 100000, 1000);
	blk_of(&s, 1, 10000, 0, 1000);
	CHECK_EQ_INT(judge(&s), LAYER_OK);
	/* ... one byte less is. */
	s.blk_bytes -= 1;
	CHECK_EQ_INT(judge(&s), LAYER_CACHE);
	/* No block request at all, fast reads: the cache. */
	s = reads_of(100, 100000, 1000);
	CHECK_EQ_INT(judge(&s), LAYER_CACHE);
	/* At the slow limit (1 ms + 2 ms per MiB) is slow; queue == device time is the device. */
	s = reads_of(100, 100 * 4096, 2 * MS);
	blk_of(&s, 100, 100 * 4096, 0, 0);
	s.blk_ns = s.device_ns = (__u64)judge_limit(&s);
	s.queue_ns = s.blk_ns / 2;
	s.device_ns = s.blk_ns - s.queue_ns;
	CHECK_EQ_INT(judge(&s), LAYER_DEVICE);
	s.blk_ns -= 1;
	CHECK_EQ_INT(judge(&s), LAYER_OK);
	CHECK_STR(layers__key(LAYER_ABOVE), "above_block");
	CHECK(strstr(layers__words(LAYER_ABOVE), "above the block layer") != NULL);
	CHECK_STR(layers__words(LAYER_QUEUE), "requests wait in the queue before the device");
	CHECK_STR(layers__key(LAYER__MAX), "unknown");
}

/*
 * A device is slow for the size of its requests: 2 MiB reads at 1.9 ms
 * each move 1 GiB/s (fast); 4 KiB reads at 1.9 ms are slow for any SSD.
 */
TEST(layers_judge_per_request_size)
{
	struct layer_sums s;

	s = reads_of(1000, 1000 * 2 * MIB, 2 * MS);
	blk_of(&s, 1000, 1000 * 2 * MIB, 100000, 1800000);
	CHECK_EQ_INT(judge(&s), LAYER_OK);
	CHECK(judge_limit(&s) > 1000 * 1.9e6);
	s = reads_of(1000, 1000 * 4096, 2 * MS);
	blk_of(&s, 1000, 1000 * 4096, 100000, 1800000);
	CHECK_EQ_INT(judge(&s), LAYER_DEVICE);
	CHECK(judge_limit(&s) < 1000 * 1.9e6);
	/* The limit is 1 ms a request and 2 ms a MiB: 1000 x (1 + 4) ms for 2 MiB. */
	s = reads_of(1, 1, 1);
	blk_of(&s, 1000, 1000 * 2 * MIB, 0, 0);
	CHECK(fabs(judge_limit(&s) - 1000 * 5e6) < 1);
}

/*
 * Where the bytes came from, one share for the verdict and the findings:
 * block reads, pages added to the page cache, or FUSE daemons' replies.
 */
TEST(layers_judge_sources)
{
	struct layer_sums s;

	/* sshfs: the daemon returned the bytes, 4 stray block requests: FUSE. */
	s = reads_of(1000, 1000 * 65536, 300000);
	s.fuse_bytes = s.read_bytes;
	s.cache_bytes = s.read_bytes;
	blk_of(&s, 4, 4 * 4096, 0, 100000);
	CHECK_EQ_INT(judge(&s), LAYER_FUSE);
	CHECK(layers__storage_share(&s) >= 1);
	/* Half the bytes from FUSE is FUSE; under half is judged as the rest. */
	s.fuse_bytes = s.read_bytes / 2;
	s.cache_bytes = 0;
	CHECK_EQ_INT(judge(&s), LAYER_FUSE);
	s.fuse_bytes -= 1;
	CHECK(judge(&s) != LAYER_FUSE);
	/* NFS: its servers' READ replies are half the bytes read or more. */
	s = reads_of(1000, 1000 * 65536, 300000);
	s.nfs_bytes = s.read_bytes / 2;
	s.cache_bytes = s.read_bytes;
	CHECK_EQ_INT(judge(&s), LAYER_NFS);
	CHECK(layers__storage_share(&s) >= 1);
	s.nfs_bytes -= 1;
	CHECK(judge(&s) != LAYER_NFS);
	s.fuse_bytes = s.read_bytes;		/* both: FUSE's rule first */
	CHECK_EQ_INT(judge(&s), LAYER_FUSE);
	CHECK_STR(layers__key(LAYER_NFS), "nfs");
	CHECK_HAS(layers__words(LAYER_NFS), "over the network");
	/* A network file system: pages added to the cache, no block request. */
	s = reads_of(1000, 1000 * 65536, 200000);
	s.cache_bytes = s.read_bytes;
	CHECK_EQ_INT(judge(&s), LAYER_NO_BLOCK);
	/* ... fast reads of what is in the cache already: the cache. */
	s.cache_bytes = s.read_bytes / 20;
	CHECK_EQ_INT(judge(&s), LAYER_CACHE);
	CHECK(fabs(layers__storage_share(&s) - 0.05) < 1e-9);
	/* Direct I/O fills no page cache: its block bytes are from storage. */
	s = reads_of(1000, 1000 * 65536, 200000);
	blk_of(&s, 1000, 1000 * 65536, 10000, 150000);
	CHECK_EQ_INT(judge(&s), LAYER_OK);
	CHECK(fabs(layers__storage_share(&s) - 1) < 1e-9);
	s.read_bytes = 0;
	s.reads = 0;
	CHECK(layers__storage_share(&s) == -1);
	CHECK_STR(layers__key(LAYER_FUSE), "fuse");
	CHECK_STR(layers__key(LAYER_NO_BLOCK), "no_block");
}
