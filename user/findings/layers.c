// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where a read's time goes, see layers.h. */
#include "findings/layers.h"

/*
 * A mapped dataset's faults that read from storage are reads too: their
 * wait (fault_ns) against the block time of the requests they issued shows
 * a cap above the device as read()'s time does.
 */
enum layer_verdict layers__judge(const struct layer_sums *s)
{
	__u64 reads = s->reads + s->faults, read_ns = s->read_ns + s->fault_ns;
	__u64 read_bytes = s->read_bytes + s->fault_bytes, above;

	if (!reads)
		return LAYER_NONE;
	above = read_ns > s->blk_ns ? read_ns - s->blk_ns : 0;
	if (read_ns >= LAYER_ABOVE_RATIO * s->blk_ns && above >= LAYER_ABOVE_MIN_NS * reads)
		return LAYER_ABOVE;
	if (s->blk_bytes * 100 < read_bytes * LAYER_CACHE_PCT)
		return LAYER_CACHE;
	if (!s->blk_reqs || s->blk_ns < LAYER_SLOW_NS * s->blk_reqs)
		return LAYER_OK;
	return s->queue_ns > s->device_ns ? LAYER_QUEUE : LAYER_DEVICE;
}

static const char *const keys[LAYER__MAX] = {
	[LAYER_NONE] = "none",
	[LAYER_ABOVE] = "above_block",
	[LAYER_CACHE] = "page_cache",
	[LAYER_QUEUE] = "queue",
	[LAYER_DEVICE] = "device",
	[LAYER_OK] = "ok",
};

static const char *const words[LAYER__MAX] = {
	[LAYER_NONE] = "no reads of regular files were seen",
	[LAYER_ABOVE] = "time is spent above the block layer (throttling, e.g. a cloud "
			"volume's IOPS cap or a cgroup io limit, or lock/page-cache contention)",
	[LAYER_CACHE] = "reads are served from the page cache",
	[LAYER_QUEUE] = "requests wait in the queue before the device",
	[LAYER_DEVICE] = "the device itself is slow",
	[LAYER_OK] = "the storage keeps up: block reads take less than 1 ms on average",
};

const char *layers__key(enum layer_verdict v)
{
	return v < LAYER__MAX ? keys[v] : "unknown";
}

const char *layers__words(enum layer_verdict v)
{
	return v < LAYER__MAX ? words[v] : "unknown";
}
