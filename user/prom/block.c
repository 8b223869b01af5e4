// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The block layer's metric families: requests and bytes by device,
 * operation and submitter, busy time, and the target's latency and size
 * histograms. Devices and operations with nothing to say have no series,
 * see docs/metrics.md.
 */
#include <stdbool.h>
#include <stdio.h>
#include "lib/units.h"
#include "model/block.h"
#include "prom/prom_int.h"

static const char *const who_names[WHO__MAX] = {
	[WHO_TARGET] = "target",
	[WHO_KTHREAD] = "kthread",
	[WHO_OTHER] = "other",
};

static const char *dev_label(char *buf, size_t len, const struct blk_dev *d)
{
	if (d->name[0])
		snprintf(buf, len, "%.*s", (int)sizeof(d->name), d->name);
	else
		units__dev(buf, len, d->dev);
	return buf;
}

/* Read and write always, so their series exist; other operations once seen. */
static bool op_shown(const struct blk_dev *d, int op)
{
	struct blk_stats all;

	if (op == BLK_READ || op == BLK_WRITE)
		return true;
	blk_dev__sum(d, op, WHO_ALL, &all);
	return all.reqs || all.merged;
}

/* Requests (or their bytes) per (device, op, who). */
static void block_counts(struct prom *p, const struct block *b, const char *name,
			 const char *help, bool bytes)
{
	char dev[40];

	prom__family(p, name, "counter", help);
	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i];

		if (!blk_dev__active(d))
			continue;
		for (int op = 0; op < BLK__MAX; op++) {
			if (!op_shown(d, op))
				continue;
			for (int w = 0; w < WHO__MAX; w++) {
				struct label l[] = {
					{ "device", dev_label(dev, sizeof(dev), d) },
					{ "op", block__op_name(op) },
					{ "who", who_names[w] },
				};
				const struct blk_stats *st = &d->st[op][w];

				prom__sample_u64(p, name, l, 3, bytes ? st->bytes : st->reqs);
			}
		}
	}
}

static void block_busy(struct prom *p, const struct block *b)
{
	static const char *const scopes[BLK_SCOPES] = {
		[BLK_SCOPE_DEVICE] = "all",
		[BLK_SCOPE_TARGET] = "target",
	};
	const char *name = "iostorm_block_busy_seconds_total";
	char dev[40];

	prom__family(p, name, "counter",
		     "Time with at least one request in flight on the device, seconds (iostat's "
		     "%util is its rate): scope all (every request) or target (the target's).");
	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i];

		if (!blk_dev__active(d))
			continue;
		for (int sc = 0; sc < BLK_SCOPES; sc++) {
			struct label l[] = {
				{ "device", dev_label(dev, sizeof(dev), d) },
				{ "scope", scopes[sc] },
			};

			prom__sample_secs(p, name, l, 2, d->busy_ns[sc]);
		}
	}
}

static const struct hist empty_hist;

static const struct hist *target_hist(const struct blk_dev *d, int op, int id)
{
	const struct hist *h = blk_dev__hist(d, op, id, BLK_SCOPE_TARGET);

	return h ? h : &empty_hist;
}

/*
 * Histograms of the target's reads and writes, once it did one: 119 series
 * per device and operation, too many for flushes, discards and the rest.
 */
static bool target_did(const struct blk_dev *d, int op)
{
	if (op != BLK_READ && op != BLK_WRITE)
		return false;
	for (int id = H_BLK_QUEUE_LAT; id <= H_BLK_SIZE; id++)
		if (blk_dev__hist(d, op, id, BLK_SCOPE_TARGET))
			return true;
	return d->st[op][WHO_TARGET].reqs > 0;
}

static void block_latency(struct prom *p, const struct block *b)
{
	static const struct {
		const char *layer;
		int hist;
	} layers[] = {
		{ "queue", H_BLK_QUEUE_LAT },
		{ "device", H_BLK_DEV_LAT },
		{ "total", H_BLK_TOTAL_LAT },
	};
	const char *name = "iostorm_block_latency_seconds";
	char dev[40];

	prom__family(p, name, "histogram",
		     "Latency of the target's block requests by layer, seconds: queue (start to "
		     "issue), device (issue to done), total (start to done).");
	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i];

		for (int op = 0; op < BLK__MAX; op++) {
			if (!target_did(d, op))
				continue;
			for (size_t k = 0; k < sizeof(layers) / sizeof(layers[0]); k++) {
				struct label l[] = {
					{ "device", dev_label(dev, sizeof(dev), d) },
					{ "op", block__op_name(op) },
					{ "layer", layers[k].layer },
				};
				const struct blk_stats *st = &d->st[op][WHO_TARGET];
				int id = layers[k].hist;
				__u64 sum = id == H_BLK_QUEUE_LAT ? st->queue_ns :
					    id == H_BLK_DEV_LAT ? st->device_ns : st->total_ns;

				prom__hist_samples(p, name, l, 3, target_hist(d, op, id), UNIT_NS,
						   &sum);
			}
		}
	}
}

static void block_sizes(struct prom *p, const struct block *b)
{
	const char *name = "iostorm_block_request_size_bytes";
	char dev[40];

	prom__family(p, name, "histogram", "Bytes per block request of the target.");
	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i];

		for (int op = 0; op < BLK__MAX; op++) {
			struct label l[] = {
				{ "device", dev_label(dev, sizeof(dev), d) },
				{ "op", block__op_name(op) },
			};

			if (!target_did(d, op))
				continue;
			prom__hist_samples(p, name, l, 2, target_hist(d, op, H_BLK_SIZE),
					   UNIT_BYTES, &d->st[op][WHO_TARGET].bytes);
		}
	}
}

/* Each family of the block layer, for prom__render_judged(). */
void prom__render_block(struct prom *p, const struct trace *t)
{
	const struct block *b = &t->block;

	block_counts(p, b, "iostorm_block_requests_total",
		     "Completed block requests, as /proc/diskstats counts them, by submitter: "
		     "target, kthread (writeback, kworkers, loop) or other processes.",
		     false);
	block_counts(p, b, "iostorm_block_bytes_total",
		     "Bytes of completed block requests, by submitter.",
		     true);
	block_busy(p, b);
	block_latency(p, b);
	block_sizes(p, b);
}
