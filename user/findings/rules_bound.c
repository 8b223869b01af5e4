// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules on what holds the job back: storage (storage_bottleneck, and
 * parallelism: whether more readers would help), memory (page_cache) or
 * the CPU (cpu_bound). See docs/findings.md.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include "findings/rules.h"

/* "; I/O threads wait on I/O 82% of their time", or nothing when unmeasured. */
static const char *io_wait_words(const struct evidence *e, char *buf, size_t len)
{
	char pct[16];

	buf[0] = 0;	/* callers print buf itself, too */
	if (e->io_wait_share < 0)
		return buf;
	snprintf(buf, len, "; I/O threads wait on I/O %s of their time",
		 units__pct(pct, sizeof(pct), e->io_wait_share));
	return buf;
}

/*
 * Requests wait in the queue, yet the device is idle most of the time with
 * few in flight: the wait is not the device's (a few % busy with 0.1
 * requests in flight once read "device saturated").
 */
static bool queued_idle(const struct evidence *e, const double *th)
{
	return e->layer == LAYER_QUEUE && e->blk_util < th[TH_UTIL_IDLE] &&
	       e->blk_inflight_mean < th[TH_READERS_MANY];
}

/*
 * The device serves all it can: requests wait in the block queue, or (SATA
 * NCQ, NVMe queues) inside the device, which is then busy all the time
 * with many requests in flight.
 */
static bool saturated(const struct evidence *e, const double *th)
{
	if (e->layer == LAYER_QUEUE)
		return !queued_idle(e, th);
	return e->layer == LAYER_DEVICE && e->blk_util >= th[TH_UTIL_BUSY] &&
	       e->blk_inflight_mean >= th[TH_READERS_MANY];
}

/* Storage capped or saturated: more readers only queue longer. */
static bool capped(const struct evidence *e, const double *th)
{
	return e->layer == LAYER_ABOVE || saturated(e, th);
}

bool rules__capped(const struct evidence *e, const double *th)
{
	return e->have_block && e->layer != LAYER_NONE &&
	       !(e->have_fuse && 2 * e->fuse_read_bytes >= e->read_bytes) &&
	       !(e->have_nfs && 2 * e->nfs_read_bytes >= e->read_bytes) && capped(e, th);
}

static void bottleneck_queued(const struct evidence *e, enum severity sev, const char *wait,
			      struct finding *f)
{
	char buf[NBUF][32];

	finding_init(f, "storage_bottleneck", sev, "queued before an idle device",
		     "find what holds requests in the queue");
	say(f->summary, sizeof(f->summary),
	    "block reads wait in the queue, not in the device: await %s (%s of it "
	    "queued before the device) while the device is %s busy with %s reads in "
	    "flight: not saturated%s", units__us(B(0), e->blk_await_ms * 1e3),
	    units__pct(B(1), e->blk_queue_share), units__pct(B(2), e->blk_util),
	    units__num(B(3), e->blk_inflight_mean), wait);
	say(f->advice, sizeof(f->advice),
	    "the device has headroom; requests wait in the block layer before it: an "
	    "I/O scheduler holding reads back (bfq, mq-deadline serving writes first), "
	    "a cgroup io.weight or io.latency, or other I/O on the same device "
	    "(writeback, flushes). Check /sys/block/DEV/queue/scheduler and what else "
	    "writes to the device");
}

/*
 * The device is the limit (saturated, or slow in itself): larger requests
 * carry more per operation, unless they are large already (packed shards
 * read in 1 MiB reads): then only faster storage or memory helps.
 */
static void device_advice(const struct evidence *e, const double *th, bool saturated,
			  struct finding *f)
{
	double mean = e->blk_mean_bytes;
	char buf[NBUF][32];

	if (mean >= th[TH_LARGE_REQ]) {
		if (saturated)
			snprintf(f->fix, sizeof(f->fix), "move the data to faster storage or memory");
		say(f->advice, sizeof(f->advice),
		    "the device %s, and its read requests are already large (mean %s): "
		    "larger reads will not help; move the data to faster storage (local "
		    "NVMe, a volume with more throughput) or keep it in memory (page "
		    "cache, dataset.cache())%s", saturated ? "serves all it can" :
		    "is slow in itself", units__bytes(B(0), mean),
		    saturated ? "; more readers only lengthen the queue" : "");
	} else if (saturated) {
		say(f->advice, sizeof(f->advice),
		    "the device serves all it can: ask it for fewer, larger requests (small "
		    "files packed into shards read sequentially), move the data to faster "
		    "storage (local NVMe) or keep it in memory (page cache, dataset.cache()); "
		    "more readers only lengthen the queue");
	} else {
		say(f->advice, sizeof(f->advice),
		    "each request takes long in the device itself (HDD seeks, a network "
		    "block device, a busy cloud disk): stage the dataset to local NVMe or "
		    "RAM, or pack files into shards read sequentially so that each request "
		    "carries more data");
	}
	fig(f, "blk_mean_bytes", mean, "bytes");
}

/*
 * What a block read of the mean size may take before it is slow: the
 * layer verdict's limit (layers__slow_ns()) per request, in us.
 */
static double slow_limit_us(const struct evidence *e, const double *th)
{
	return th[TH_SLOW_REQ_US] + th[TH_SLOW_REQ_US_PER_MIB] * e->blk_mean_bytes / 1048576.0;
}

static void bottleneck_block(const struct evidence *e, const double *th, struct finding *f)
{
	enum severity sev = e->io_wait_share < 0 ? SEV_WARN :
		storage_bound(e, th) ? SEV_HIGH :
		e->io_wait_share >= th[TH_IO_WAIT_WARN] ? SEV_WARN : SEV_INFO;
	char buf[NBUF][32], wait[80];

	io_wait_words(e, wait, sizeof(wait));
	if (queued_idle(e, th)) {
		bottleneck_queued(e, sev, wait, f);
		return;
	}
	switch (saturated(e, th) ? LAYER_QUEUE : e->layer) {
	case LAYER_ABOVE:
		finding_init(f, "storage_bottleneck", sev, "throttled above the device",
			     "find and raise the I/O cap");
		say(f->summary, sizeof(f->summary),
		    "storage throttled above the device: read() mean %s but block await "
		    "%s, device %s busy%s", units__us(B(0), e->read_mean_us),
		    units__us(B(1), e->blk_await_ms * 1e3), units__pct(B(2), e->blk_util), wait);
		say(f->advice, sizeof(f->advice),
		    "read() waits beyond its block requests: a limit between the job and "
		    "the disk holds reads back (a cgroup io.max or blkio throttle, a cloud "
		    "volume's IOPS or throughput cap, a network or FUSE file system). Check "
		    "the job's cgroup io.max and the volume's provisioned IOPS; fewer, larger "
		    "reads (files packed into shards) get more bytes per capped operation; "
		    "more readers will not help");
		break;
	case LAYER_QUEUE:
		finding_init(f, "storage_bottleneck", sev, "device saturated",
			     "ask for fewer, larger reads");
		say(f->summary, sizeof(f->summary),
		    "device saturated: %s block reads in flight, await %s (%s of it queued "
		    "before the device), device %s busy%s",
		    units__num(B(0), e->blk_inflight_mean), units__us(B(1), e->blk_await_ms * 1e3),
		    units__pct(B(2), e->blk_queue_share), units__pct(B(3), e->blk_util), wait);
		device_advice(e, th, true, f);
		break;
	case LAYER_DEVICE:
		finding_init(f, "storage_bottleneck", sev, "slow device",
			     "stage the data to local NVMe");
		say(f->summary, sizeof(f->summary),
		    "slow device: block await %s for requests of %s (slow from %s at that "
		    "size; device p50 %s) at %s reads/s, device %s busy%s",
		    units__us(B(0), e->blk_await_ms * 1e3), units__bytes(B(4), e->blk_mean_bytes),
		    units__us(B(5), slow_limit_us(e, th)),
		    units__us(B(1), e->blk_device_p50_us), units__num(B(2), e->blk_reads_per_s),
		    units__pct(B(3), e->blk_util), wait);
		fig(f, "blk_slow_us", slow_limit_us(e, th), "us");
		device_advice(e, th, false, f);
		break;
	default:	/* LAYER_OK */
		if (e->blk_util >= th[TH_IOPS_BOUND] && storage_bound(e, th)) {
			/* Fast requests, but the device is never idle: IOPS-bound. */
			finding_init(f, "storage_bottleneck", sev, "device IOPS-bound",
				     "ask for fewer, larger reads");
			say(f->summary, sizeof(f->summary),
			    "device IOPS-bound: busy %s of the time at %s reads/s, each fast "
			    "(await %s)%s", units__pct(B(0), e->blk_util),
			    units__num(B(1), e->blk_reads_per_s),
			    units__us(B(2), e->blk_await_ms * 1e3), wait);
			say(f->advice, sizeof(f->advice),
			    "the device is kept busy by many small requests: fewer, larger "
			    "reads (small files packed into shards read sequentially) carry "
			    "the same bytes in far fewer operations; more readers will not "
			    "help much");
			break;
		}
		finding_init(f, "storage_bottleneck",
			     storage_bound(e, th) ? SEV_INFO : SEV_OK,
			     "storage keeps up", "");
		say(f->summary, sizeof(f->summary),
		    "storage keeps up: block await %s, device %s busy%s",
		    units__us(B(0), e->blk_await_ms * 1e3), units__pct(B(1), e->blk_util), wait);
		say(f->advice, sizeof(f->advice), "%s", storage_bound(e, th) ?
		    "each request is served quickly, yet the threads wait on I/O: reads are "
		    "issued too few at a time (see parallelism) or wait on file system "
		    "locks and metadata" : "nothing to do at the storage level");
		break;
	}
}

/*
 * Where the reads went, when not to a block device: zero block requests is
 * itself the evidence (iostorm always traces the block layer). Over FUSE a
 * few block requests (the job's code, a page of metadata) are named with
 * their count: "no block requests" is said only when there were none.
 */
static const char *no_block_words(const struct evidence *e, char *buf, size_t len)
{
	char n[32];

	if (e->blk_unmeasured)
		buf[0] = '\0';
	else if (e->have_fuse && e->blk_reads)
		snprintf(buf, len, "; only %s block requests: the reads go through FUSE to %s%s%s",
			 units__count(n, sizeof(n), e->blk_reads), e->fuse_fs,
			 e->fuse_mount[0] ? " at " : "", e->fuse_mount);
	else if (e->have_fuse)
		snprintf(buf, len, "; no block requests: the reads go through FUSE to %s%s%s",
			 e->fuse_fs, e->fuse_mount[0] ? " at " : "", e->fuse_mount);
	else if (e->have_nfs && e->blk_reads)
		snprintf(buf, len, "; only %s block requests: the reads go over the network to "
			 "NFS (%.80s at %.60s)", units__count(n, sizeof(n), e->blk_reads),
			 e->nfs_fs, e->nfs_mount);
	else if (e->have_nfs)
		snprintf(buf, len, "; no block requests: the reads go over the network to NFS "
			 "(%.80s at %.60s)", e->nfs_fs, e->nfs_mount);
	else if (e->blk_reads)
		snprintf(buf, len, "; %s block read requests by the target",
			 units__count(n, sizeof(n), e->blk_reads));
	else
		snprintf(buf, len, "; no block read requests by the target");
	return buf;
}

static void bottleneck_vfs(const struct evidence *e, const double *th, struct finding *f)
{
	char buf[NBUF][32], wait[80], where[256];
	bool slow = e->io_wait_share < 0 ? e->read_p50_us >= th[TH_SLOW_READ_US] :
		    e->io_wait_share >= th[TH_IO_WAIT_WARN];

	if (!slow && e->layer == LAYER_ABOVE) {
		/* Slow reads above any block device the threads hardly wait on: not "keeps up". */
		finding_init(f, "storage_bottleneck", SEV_INFO, "reads wait above the block layer", "");
		say(f->summary, sizeof(f->summary),
		    "reads wait above the block layer: read() mean %s%s%s",
		    units__us(B(0), e->read_mean_us), no_block_words(e, where, sizeof(where)),
		    io_wait_words(e, wait, sizeof(wait)));
		say(f->advice, sizeof(f->advice), "the reads are slow (a network file system, "
		    "a cap above the device) but the job rarely waits on them: nothing to do "
		    "while that holds; see the other findings");
		return;
	}
	if (!slow) {
		finding_init(f, "storage_bottleneck", SEV_OK, "storage keeps up", "");
		say(f->summary, sizeof(f->summary),
		    "storage keeps up: I/O threads wait on I/O %s of their time, read p50 %s",
		    e->io_wait_share < 0 ? "(unmeasured)" : units__pct(B(0), e->io_wait_share),
		    units__us(B(1), e->read_p50_us));
		say(f->advice, sizeof(f->advice), "nothing to do at the storage level");
		return;
	}
	/* Slow reads alone (no thread data) do not prove the job waits on them. */
	finding_init(f, "storage_bottleneck",
		     e->io_wait_share >= 0 && storage_bound(e, th) ? SEV_HIGH : SEV_WARN,
		     "storage-bound", "");
	say(f->summary, sizeof(f->summary),
	    "storage-bound: read p50 %s, p99 %s%s%s", units__us(B(0), e->read_p50_us),
	    units__us(B(1), e->read_p99_us), io_wait_words(e, wait, sizeof(wait)),
	    no_block_words(e, where, sizeof(where)));
	say(f->advice, sizeof(f->advice), "%s", e->have_fuse ?
	    "reads are slow enough to stall the loader: each waits on a round trip to "
	    "the FUSE daemon (see fuse_round_trips and the FUSE section for the "
	    "latency of every kind of request)" : e->have_nfs ?
	    "reads are slow enough to stall the loader: each file waits on round trips "
	    "over the network to the NFS server (see nfs_round_trips and the NFS "
	    "section for every procedure's round trip)" :
	    "reads are slow enough to stall the loader: the other findings say why "
	    "(access pattern, metadata, parallelism)");
}

int rule__bottleneck(const struct evidence *e, const double *th, struct finding *f)
{
	char buf[NBUF][32];

	if (e->reads < th[TH_MIN_READS])
		return 0;
	if (from_cache(e, th)) {
		finding_init(f, "storage_bottleneck", SEV_OK,
			     "reads served from the page cache", "");
		say(f->summary, sizeof(f->summary),
		    "storage is not the bottleneck: reads served from the page cache "
		    "(%s of the bytes read came from storage, read p50 %s)",
		    units__pct(B(0), e->miss_share), units__us(B(1), e->read_p50_us));
		say(f->advice, sizeof(f->advice),
		    "nothing to do while the data stays in memory; a cold start or a "
		    "dataset larger than memory will read from storage (see page_cache)");
	} else if (e->have_block && e->layer != LAYER_NONE && e->layer != LAYER_FUSE &&
		   e->layer != LAYER_NFS && e->layer != LAYER_NO_BLOCK) {
		bottleneck_block(e, th, f);
	} else {
		bottleneck_vfs(e, th, f);
	}
	fig(f, "io_wait_share", e->io_wait_share, "fraction");
	fig(f, "read_p50_us", e->read_p50_us, "us");
	fig(f, "read_p99_us", e->read_p99_us, "us");
	fig(f, "read_mean_us", e->read_mean_us, "us");
	fig(f, "miss_share", e->miss_share, "fraction");
	if (e->have_block) {
		fig(f, "blk_reads_per_s", e->blk_reads_per_s, "requests/s");
		fig(f, "blk_await_ms", e->blk_await_ms, "ms");
		fig(f, "blk_device_p50_us", e->blk_device_p50_us, "us");
		fig(f, "blk_queue_share", e->blk_queue_share, "fraction");
		fig(f, "blk_inflight_mean", e->blk_inflight_mean, "requests");
		fig(f, "blk_util", e->blk_util, "fraction");
	}
	return 1;
}

static void too_many(const struct evidence *e, const double *th, struct finding *f)
{
	double needed = fmax(1, ceil(e->blk_reads_per_s * e->blk_device_p50_us / 1e6));
	char buf[NBUF][32], fewer[160] = "";

	finding_init(f, "parallelism",
		     e->io_wait_share >= th[TH_IO_WAIT_WARN] ? SEV_WARN : SEV_INFO,
		     "more readers than the storage serves", "do not add readers");
	say(f->summary, sizeof(f->summary),
	    "more readers than the storage serves: %s reads in flight get %s reads/s "
	    "at %s each (Little's law: in flight = reads/s x latency)",
	    units__num(B(0), e->read_concurrency), units__num(B(1), e->reads_per_s),
	    units__us(B(2), e->read_mean_us));
	if (needed < e->read_concurrency / 2)
		say(fewer, sizeof(fewer), " About %.0f in flight would sustain the same "
		    "rate at the device's own latency (%s), with less memory and CPU.",
		    needed, units__us(B(3), e->blk_device_p50_us));
	say(f->advice, sizeof(f->advice),
	    "throughput is capped at ~%s requests/s by the %s; more readers only make "
	    "each read wait longer, so raising num_parallel_calls / num_workers / "
	    "prefetch will not help.%s To go faster, ask for fewer, larger reads "
	    "(shards) or lift the limit",
	    units__num(B(4), e->blk_reads_per_s),
	    e->layer == LAYER_ABOVE ? "cap above the device" : "saturated device", fewer);
	fig(f, "read_concurrency", e->read_concurrency, "reads");
	fig(f, "reads_per_s", e->reads_per_s, "reads/s");
	fig(f, "read_mean_us", e->read_mean_us, "us");
	fig(f, "blk_reads_per_s", e->blk_reads_per_s, "requests/s");
	fig(f, "blk_device_p50_us", e->blk_device_p50_us, "us");
	fig(f, "blk_inflight_mean", e->blk_inflight_mean, "requests");
	fig(f, "readers_needed", needed, "reads");
}

static void too_few(const struct evidence *e, const double *th, struct finding *f)
{
	double gain = th[TH_READERS_GAIN] >= 1 ? th[TH_READERS_GAIN] : 1;
	double factor = fmin(gain, 1 / fmax(e->blk_util, 1 / gain));
	double target = fmax(ceil(e->read_concurrency * factor), ceil(e->read_concurrency));
	double est = e->reads_per_s * target / e->read_concurrency;
	char buf[NBUF][32], wait[80];

	finding_init(f, "parallelism", storage_bound(e, th) ? SEV_WARN : SEV_INFO,
		     "too few readers for the latency",
		     "raise num_parallel_calls / num_workers");
	say(f->summary, sizeof(f->summary),
	    "too few readers: %s reads in flight at %s each while the device is %s "
	    "busy%s", units__num(B(5), e->read_concurrency), units__us(B(0), e->read_mean_us),
	    units__pct(B(1), e->blk_util), io_wait_words(e, wait, sizeof(wait)));
	say(f->advice, sizeof(f->advice),
	    "by Little's law reads/s = reads in flight / latency: with the device this "
	    "idle, ~%.0f reads in flight (num_parallel_calls, num_workers, prefetch) "
	    "would give ~%s reads/s instead of %s at the same latency, until the device "
	    "saturates (%%util understates the headroom of SSD and NVMe, which serve "
	    "many requests at once)", target, units__num(B(3), est), units__num(B(4), e->reads_per_s));
	fig(f, "read_concurrency", e->read_concurrency, "reads");
	fig(f, "reads_per_s", e->reads_per_s, "reads/s");
	fig(f, "read_mean_us", e->read_mean_us, "us");
	fig(f, "blk_util", e->blk_util, "fraction");
	fig(f, "io_wait_share", e->io_wait_share, "fraction");
	fig(f, "readers_suggested", target, "reads");
	fig(f, "reads_per_s_estimate", est, "reads/s");
}

int rule__parallelism(const struct evidence *e, const double *th, struct finding *f)
{
	if (!e->have_block || e->reads < th[TH_MIN_READS] || e->read_concurrency <= 0 ||
	    e->layer == LAYER_NONE || e->layer == LAYER_CACHE || e->layer == LAYER_FUSE ||
	    e->layer == LAYER_NFS ||
	    e->layer == LAYER_NO_BLOCK)
		return 0;
	if (capped(e, th) && e->read_concurrency >= th[TH_READERS_MANY]) {
		too_many(e, th, f);
		return 1;
	}
	if (!capped(e, th) && e->io_wait_share >= th[TH_IO_WAIT_WARN] &&
	    e->blk_util >= 0 && e->blk_util < th[TH_UTIL_IDLE] &&
	    e->read_concurrency < th[TH_READERS_FEW]) {
		too_few(e, th, f);
		return 1;
	}
	return 0;
}

static void cache_figures(const struct evidence *e, struct finding *f, double ws_share,
			  double reread_miss)
{
	fig(f, "miss_share", e->miss_share, "fraction");
	fig(f, "cache_bytes", e->cache_bytes, "bytes");
	fig(f, "read_bytes", e->read_bytes, "bytes");
	fig(f, "working_set_bytes", e->working_set_bytes, "bytes");
	fig(f, "reread_bytes", e->reread_bytes, "bytes");
	fig(f, "reread_miss_share", reread_miss, "fraction");
	fig(f, "mem_total_bytes", e->mem_total_bytes, "bytes");
	fig(f, "working_set_mem_share", ws_share, "fraction");
}

/*
 * Re-reads that missed: bytes brought in beyond the working set, over the
 * bytes read again; -1 without re-reads.
 */
static double reread_miss_share(const struct evidence *e)
{
	double extra = (double)e->cache_bytes - e->working_set_bytes;

	return e->reread_bytes ? fmin(1, fmax(0, extra) / e->reread_bytes) : -1;
}

int rule__page_cache(const struct evidence *e, const double *th, struct finding *f)
{
	double ws_share = evidence__ratio(e->working_set_bytes, e->mem_total_bytes);
	double rr_miss = reread_miss_share(e);
	bool fits = ws_share >= 0 && ws_share < th[TH_MEM_FIT];
	char buf[NBUF][32];

	if (e->reads < th[TH_MIN_READS] || e->miss_share < 0)
		return 0;
	if (from_cache(e, th)) {
		finding_init(f, "page_cache", SEV_OK, "reads served from the page cache", "");
		say(f->summary, sizeof(f->summary),
		    "page cache: %s of the bytes read came from storage; working set %s",
		    units__pct(B(0), e->miss_share), units__bytes(B(1), e->working_set_bytes));
		say(f->advice, sizeof(f->advice),
		    "the data is in memory: keep it there (do not drop caches or restart the "
		    "loader between epochs; leave room under the container's memory limit)");
	} else if ((fits || ws_share < 0) && rr_miss >= 0.5 &&
		   e->reread_bytes >= th[TH_CACHE_MISS] * e->read_bytes) {
		finding_init(f, "page_cache", SEV_WARN, "re-reads miss the page cache",
			     "give the page cache room for the data");
		say(f->summary, sizeof(f->summary),
		    "page cache: re-reads miss: %s read again, %s of it from storage again; "
		    "working set %s, MemTotal %s", units__bytes(B(0), e->reread_bytes),
		    units__pct(B(1), rr_miss), units__bytes(B(2), e->working_set_bytes),
		    units__bytes(B(3), e->mem_total_bytes));
		say(f->advice, sizeof(f->advice),
		    "data read before was evicted: memory pressure or the container's memory "
		    "limit (cgroup memory.max) leaves no room for it; raise the limit, use "
		    "less memory elsewhere, or cache it in the job (tf.data dataset.cache())");
	} else if (fits) {
		finding_init(f, "page_cache", SEV_INFO, "working set fits in memory",
			     "cache the dataset in memory");
		say(f->summary, sizeof(f->summary),
		    "page cache: the working set so far, %s, fits in memory (%s of %s "
		    "MemTotal); %s of the bytes read came from storage",
		    units__bytes(B(0), e->working_set_bytes), units__pct(B(1), ws_share),
		    units__bytes(B(2), e->mem_total_bytes), units__pct(B(3), e->miss_share));
		say(f->advice, sizeof(f->advice),
		    "after the first epoch reads can come from memory: cache in the job "
		    "(tf.data dataset.cache(), a RAM disk) or keep the page cache warm (do "
		    "not drop caches or restart the loader between epochs; leave room under "
		    "the container's memory limit); the first epoch still reads from storage");
	} else if (ws_share >= 0) {
		finding_init(f, "page_cache", storage_bound(e, th) ? SEV_WARN : SEV_INFO,
			     "working set larger than memory", "stage the data to local NVMe");
		say(f->summary, sizeof(f->summary),
		    "page cache: the working set so far, %s, is %s of %s MemTotal: every "
		    "epoch reads from storage (%s of the bytes read came from it)",
		    units__bytes(B(0), e->working_set_bytes), units__pct(B(1), ws_share),
		    units__bytes(B(2), e->mem_total_bytes), units__pct(B(3), e->miss_share));
		say(f->advice, sizeof(f->advice),
		    "memory cannot hold the data: pack it into shards read sequentially so "
		    "that readahead works (raise read_ahead_kb for shard streams), stage it "
		    "to local NVMe, or cache a smaller (compressed, downscaled) copy");
	} else {
		finding_init(f, "page_cache", SEV_INFO, "reads come from storage", "");
		say(f->summary, sizeof(f->summary),
		    "page cache: %s of the bytes read came from storage; working set %s",
		    units__pct(B(0), e->miss_share), units__bytes(B(1), e->working_set_bytes));
		say(f->advice, sizeof(f->advice), "MemTotal unknown: cannot say whether "
		    "the data would fit in memory");
	}
	cache_figures(e, f, ws_share, rr_miss);
	return 1;
}

int rule__cpu_bound(const struct evidence *e, const double *th, struct finding *f)
{
	bool starved = e->runq_share >= th[TH_RUNQ_HIGH];
	char buf[NBUF][32];

	if (!e->io_threads || e->cpu_share < 0 ||
	    e->cpu_share + e->runq_share < th[TH_CPU_BOUND] ||
	    e->io_wait_share >= th[TH_CPU_IO_WAIT])
		return 0;
	finding_init(f, "cpu_bound", starved ? SEV_WARN : SEV_INFO,
		     starved ? "CPU-starved" : "CPU-bound",
		     starved ? "free CPUs for the loader" : "make decoding cheaper");
	say(f->summary, sizeof(f->summary),
	    "%s: I/O threads %s on CPU, %s waiting for a CPU, only %s waiting on I/O: "
	    "storage is not the problem", starved ? "CPU-starved" : "CPU-bound",
	    units__pct(B(0), e->cpu_share), units__pct(B(1), e->runq_share),
	    units__pct(B(2), e->io_wait_share));
	say(f->advice, sizeof(f->advice), "%s", starved ?
	    "more threads are ready to run than there are CPUs for them: fewer workers or "
	    "more cores, and cheaper decoding and augmentation; faster storage will not "
	    "help" :
	    "the loader spends its time decoding and augmenting, not waiting for storage: "
	    "more workers if cores are free, cheaper decoding (GPU decode with DALI or "
	    "nvJPEG, pre-resized images) or cached decoded samples; faster storage will "
	    "not help");
	fig(f, "cpu_share", e->cpu_share, "fraction");
	fig(f, "io_wait_share", e->io_wait_share, "fraction");
	fig(f, "runq_share", e->runq_share, "fraction");
	fig(f, "sleep_share", e->sleep_share, "fraction");
	fig(f, "io_threads", e->io_threads, "threads");
	return 1;
}

/*
 * Does the training loop wait for data? The frameworks' own measures
 * (TensorFlow Profiler's input %, PyTorch's DataLoader time, DS-Analyzer's
 * data stall) are the consumer's wait for the next batch over its time:
 * so is this one, measured from outside (model/stall.h).
 */
int rule__input_bound(const struct evidence *e, const double *th, struct finding *f)
{
	enum severity sev = e->stall_share >= th[TH_STALL_HIGH] ? SEV_HIGH :
			    e->stall_share >= th[TH_STALL_WARN] ? SEV_WARN : SEV_OK;
	char buf[NBUF][32];

	if (!e->have_stall)
		return 0;
	finding_init(f, "input_bound", sev, sev == SEV_OK ? "the loader keeps up" :
		     "input-bound", sev == SEV_OK ? "" : "feed the training loop faster");
	if (e->stall_loops > 1)
		say(f->summary, sizeof(f->summary),
		    "%s: of %zu training loops (data-parallel ranks), the one that waits most "
		    "(%s, pid %u) waits for data %s of its %s (its own file I/O %s, woken by "
		    "its loader %s, waits for other ranks %s), on CPU %s; the least %s",
		    sev == SEV_OK ? "the loader keeps up" : "input-bound", e->stall_loops,
		    e->stall_comm, e->stall_pid, units__pct(B(0), e->stall_share),
		    units__us(B(1), e->stall_wall_s * 1e6), units__pct(B(2), e->stall_own_io_share),
		    units__pct(B(3), e->stall_loader_share), units__pct(B(5), e->stall_rank_share),
		    units__pct(B(4), e->stall_cpu_share), units__pct(B(6), e->stall_least_share));
	else
		say(f->summary, sizeof(f->summary),
		    "%s: the training loop (%s) waits for data %s of its %s (its own file I/O "
		    "%s, woken by the loader %s), on CPU %s",
		    sev == SEV_OK ? "the loader keeps up" : "input-bound", e->stall_comm,
		    units__pct(B(0), e->stall_share), units__us(B(1), e->stall_wall_s * 1e6),
		    units__pct(B(2), e->stall_own_io_share),
		    units__pct(B(3), e->stall_loader_share), units__pct(B(4), e->stall_cpu_share));
	say(f->advice, sizeof(f->advice), "%s", sev == SEV_OK ?
	    "the training loop rarely waits for data: storage findings below are costs "
	    "(IOPS, cache), not stalls; they would stall it with fewer workers or slower "
	    "storage" :
	    "every second the loop waits for data is training time lost: fix the cause "
	    "below (small files: pack into shards; slow storage: cache or stage the data; "
	    "a CPU-bound loader: more workers or cheaper decoding), or raise prefetching "
	    "so the loader runs ahead of the loop");
	fig(f, "stall_share", e->stall_share, "fraction");
	fig(f, "own_io_share", e->stall_own_io_share, "fraction");
	fig(f, "loader_wait_share", e->stall_loader_share, "fraction");
	fig(f, "on_cpu_share", e->stall_cpu_share, "fraction");
	fig(f, "wall_s", e->stall_wall_s, "s");
	if (e->stall_loops > 1) {
		fig(f, "loops", e->stall_loops, "loops");
		fig(f, "rank_wait_share", e->stall_rank_share, "fraction");
		fig(f, "least_stall_share", e->stall_least_share, "fraction");
	}
	return 1;
}
