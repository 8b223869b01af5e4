// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where a read's time goes, see layers.h. */
#include "findings/layers.h"

#define MIB	1048576.0

double layers__storage_share(const struct layer_sums *s)
{
	double read_bytes = (double)s->read_bytes + s->fault_bytes;
	double from = s->blk_bytes;

	if (s->cache_bytes > from)
		from = s->cache_bytes;
	if (s->fuse_bytes > from)
		from = s->fuse_bytes;
	if (s->nfs_bytes > from)
		from = s->nfs_bytes;
	return read_bytes > 0 ? from / read_bytes : -1;
}

/*
 * Per request size, not per request: a 2 MiB request at 1.9 ms moves
 * 1 GiB/s and is fast; a 4 KiB one at 1.9 ms is slow for any SSD.
 */
double layers__slow_ns(const struct layer_sums *s, const double *th)
{
	return 1e3 * (th[TH_SLOW_REQ_US] * s->blk_reqs +
		      th[TH_SLOW_REQ_US_PER_MIB] * s->blk_bytes / MIB);
}

/*
 * A mapped dataset's faults that read from storage are reads too: their
 * wait (fault_ns) against the block time of the requests they issued shows
 * a cap above the device as read()'s time does.
 */
enum layer_verdict layers__judge(const struct layer_sums *s, const double *th)
{
	__u64 reads = s->reads + s->faults, read_ns = s->read_ns + s->fault_ns;
	__u64 read_bytes = s->read_bytes + s->fault_bytes, above;
	double share = layers__storage_share(s);

	if (!reads)
		return LAYER_NONE;
	if (s->fuse_bytes && 2 * s->fuse_bytes >= read_bytes)
		return LAYER_FUSE;
	if (s->nfs_bytes && 2 * s->nfs_bytes >= read_bytes)
		return LAYER_NFS;
	above = read_ns > s->blk_ns ? read_ns - s->blk_ns : 0;
	if (read_ns >= LAYER_ABOVE_RATIO * s->blk_ns && above >= LAYER_ABOVE_MIN_NS * reads)
		return LAYER_ABOVE;
	if (share < th[TH_CACHE_MISS])
		return LAYER_CACHE;
	if (!s->blk_reqs)
		return LAYER_NO_BLOCK;
	if (s->blk_ns < layers__slow_ns(s, th))
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
	[LAYER_FUSE] = "fuse",
	[LAYER_NFS] = "nfs",
	[LAYER_NO_BLOCK] = "no_block",
	[LAYER_UNMEASURED] = "unmeasured",
};

static const char *const words[LAYER__MAX] = {
	[LAYER_NONE] = "no reads of the dataset were seen (code and libraries aside)",
	[LAYER_ABOVE] = "time is spent above the block layer (throttling, e.g. a cloud "
			"volume's IOPS cap or a cgroup io limit, or lock/page-cache contention)",
	[LAYER_CACHE] = "reads are served from the page cache: storage brought few of the "
			"bytes read",
	[LAYER_QUEUE] = "requests wait in the queue before the device",
	[LAYER_DEVICE] = "the device itself is slow",
	[LAYER_OK] = "block requests explain read()'s time and are fast for their size",
	[LAYER_FUSE] = "reads go through FUSE: its daemon, not a block device, returned most "
		       "of the bytes read",
	[LAYER_NFS] = "reads go through NFS: its server, over the network, returned most of "
		      "the bytes read",
	[LAYER_NO_BLOCK] = "reads come from storage without block requests by the target "
			   "(a network file system, or another process's requests)",
	[LAYER_UNMEASURED] = "not judged: this kernel gave no block layer or page cache "
			     "to iostorm (see the header)",
};

const char *layers__key(enum layer_verdict v)
{
	return v < LAYER__MAX ? keys[v] : "unknown";
}

const char *layers__words(enum layer_verdict v)
{
	return v < LAYER__MAX ? words[v] : "unknown";
}
