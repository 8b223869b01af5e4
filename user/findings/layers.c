// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Latency by layer and its verdict, see layers.h. */
#include <string.h>
#include "findings/layers.h"
#include "model/hist.h"
#include "model/trace.h"

enum layer_verdict layers__judge(const struct layer_sums *s)
{
	__u64 above;

	if (!s->reads)
		return LAYER_NONE;
	above = s->read_ns > s->blk_ns ? s->read_ns - s->blk_ns : 0;
	if (s->read_ns >= LAYER_ABOVE_RATIO * s->blk_ns &&
	    above >= LAYER_ABOVE_MIN_NS * s->reads)
		return LAYER_ABOVE;
	if (s->blk_bytes * 100 < s->read_bytes * LAYER_CACHE_PCT)
		return LAYER_CACHE;
	if (!s->blk_reqs || s->blk_ns < LAYER_SLOW_NS * s->blk_reqs)
		return LAYER_OK;
	return s->queue_ns > s->device_ns ? LAYER_QUEUE : LAYER_DEVICE;
}

static void lat_fill(struct layer_lat *l, const struct hist *h, __u64 sum)
{
	l->count = hist__count(h);
	l->p50 = hist__quantile(h, 0.5);
	l->p99 = hist__quantile(h, 0.99);
	l->mean = l->count ? (double)sum / l->count : 0;
}

void layers__compute(const struct trace *t, struct layers *l)
{
	struct blk_stats mine;
	struct hist h;

	memset(l, 0, sizeof(*l));
	block__sum(&t->block, BLK_READ, WHO_BIT(WHO_TARGET), &mine);
	l->sums = (struct layer_sums){
		.reads = t->counters[C_READS],
		.read_bytes = t->counters[C_READ_BYTES],
		.read_ns = t->counters[C_READ_NS],
		.blk_reqs = mine.reqs,
		.blk_bytes = mine.bytes,
		.blk_ns = mine.total_ns,
		.queue_ns = mine.queue_ns,
		.device_ns = mine.device_ns,
	};
	lat_fill(&l->read, &t->hists[H_READ_LAT], l->sums.read_ns);
	block__hist(&t->block, BLK_READ, H_BLK_TOTAL_LAT, BLK_SCOPE_TARGET, &h);
	lat_fill(&l->total, &h, mine.total_ns);
	block__hist(&t->block, BLK_READ, H_BLK_QUEUE_LAT, BLK_SCOPE_TARGET, &h);
	lat_fill(&l->queue, &h, mine.queue_ns);
	block__hist(&t->block, BLK_READ, H_BLK_DEV_LAT, BLK_SCOPE_TARGET, &h);
	lat_fill(&l->device, &h, mine.device_ns);
	l->verdict = layers__judge(&l->sums);
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
