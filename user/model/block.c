// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The block layer per device, see block.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/block.h"
#include "model/hist.h"

void block__free(struct block *b)
{
	for (size_t i = 0; i < b->nr_devs; i++) {
		struct hist **h = &b->devs[i].hists[0][0][0];

		for (size_t k = 0; k < BLK__MAX * BLK_HISTS * BLK_SCOPES; k++)
			free(h[k]);
	}
	free(b->devs);
	b->devs = NULL;
	b->nr_devs = 0;
	diskstats__free(&b->ds_start);
	diskstats__free(&b->ds_end);
}

struct blk_dev *block__find(const struct block *b, __u32 dev)
{
	for (size_t i = 0; i < b->nr_devs; i++)
		if (b->devs[i].dev == dev)
			return &b->devs[i];
	return NULL;
}

const char *block__name(const struct block *b, __u32 dev)
{
	const struct diskstat *ds = diskstats__find(&b->ds_start, dev);
	const struct blk_dev *d;

	if (ds)
		return ds->name;
	d = block__find(b, dev);
	return d ? d->name : NULL;
}

struct blk_dev *block__dev(struct block *b, __u32 dev)
{
	struct blk_dev *d = block__find(b, dev), *v;

	if (d)
		return d;
	v = realloc(b->devs, (b->nr_devs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	b->devs = v;
	d = &b->devs[b->nr_devs++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	return d;
}

void block__clear_counts(struct block *b)
{
	for (size_t i = 0; i < b->nr_devs; i++) {
		struct blk_dev *d = &b->devs[i];

		memset(d->st, 0, sizeof(d->st));
		memset(d->busy_ns, 0, sizeof(d->busy_ns));
		memset(d->unfinished, 0, sizeof(d->unfinished));
		memset(d->untracked, 0, sizeof(d->untracked));
	}
}

void blk_stats__add(struct blk_stats *dst, const struct blk_stats *src)
{
	dst->reqs += src->reqs;
	dst->bytes += src->bytes;
	dst->total_ns += src->total_ns;
	dst->queue_ns += src->queue_ns;
	dst->device_ns += src->device_ns;
	dst->seq += src->seq;
	dst->small += src->small;
	dst->merged += src->merged;
}

static __u64 dev_reqs(const struct blk_dev *d, unsigned int who)
{
	struct blk_stats s;

	blk_dev__sum(d, BLK__MAX, who, &s);
	return s.reqs;
}

static int dev_cmp(const void *pa, const void *pb)
{
	const struct blk_dev *a = pa, *b = pb;
	__u64 x = dev_reqs(a, WHO_BIT(WHO_TARGET)), y = dev_reqs(b, WHO_BIT(WHO_TARGET));

	if (x == y) {
		x = dev_reqs(a, WHO_ALL);
		y = dev_reqs(b, WHO_ALL);
	}
	if (x != y)
		return x < y ? 1 : -1;
	return a->dev < b->dev ? -1 : a->dev > b->dev;
}

int block__start(struct block *b, __u64 now_ns)
{
	b->start_ns = now_ns;
	b->end_ns = 0;
	return diskstats__read(DISKSTATS_PATH, &b->ds_start);
}

int block__stop(struct block *b, __u64 now_ns)
{
	b->end_ns = now_ns;
	if (!b->ds_start.n)
		return 0;	/* no start to compare with */
	return diskstats__read(DISKSTATS_PATH, &b->ds_end);
}

double block__secs(const struct block *b)
{
	return b->end_ns > b->start_ns ? (b->end_ns - b->start_ns) / 1e9 : 0;
}

void blk_dev__sum(const struct blk_dev *d, int op, unsigned int who,
		  struct blk_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int o = 0; o < BLK__MAX; o++) {
		if (op != BLK__MAX && o != op)
			continue;
		for (int w = 0; w < WHO__MAX; w++)
			if (who & WHO_BIT(w))
				blk_stats__add(out, &d->st[o][w]);
	}
}

unsigned int blk_dev__who(int scope)
{
	return scope == BLK_SCOPE_TARGET ? WHO_BIT(WHO_TARGET) : WHO_ALL;
}

bool blk_dev__active(const struct blk_dev *d)
{
	return dev_reqs(d, WHO_ALL) > 0;
}

const struct hist *blk_dev__hist(const struct blk_dev *d, int op, int hist, int scope)
{
	if (op < 0 || op >= BLK__MAX || scope < 0 || scope >= BLK_SCOPES ||
	    hist < H_BLK_QUEUE_LAT || hist > H_BLK_INFLIGHT)
		return NULL;
	return d->hists[op][hist - H_BLK_QUEUE_LAT][scope];
}

void blk_dev__iostat_in(const struct blk_dev *d, int scope, double secs,
			struct iostat_in *in)
{
	unsigned int who = blk_dev__who(scope);
	struct blk_stats r, w, all;

	blk_dev__sum(d, BLK_READ, who, &r);
	blk_dev__sum(d, BLK_WRITE, who, &w);
	blk_dev__sum(d, BLK__MAX, who, &all);
	memset(in, 0, sizeof(*in));
	in->secs = secs;
	in->reads = r.reqs;
	in->read_bytes = r.bytes;
	in->read_ms = r.total_ns / 1e6;
	in->writes = w.reqs;
	in->write_bytes = w.bytes;
	in->write_ms = w.total_ns / 1e6;
	in->busy_ms = d->busy_ns[scope] / 1e6;
	in->queue_ms = all.total_ns / 1e6;
}

int block__diskstats(const struct block *b, const struct blk_dev *d,
		     struct diskstat *delta)
{
	const struct diskstat *s = diskstats__find(&b->ds_start, d->dev);
	const struct diskstat *e = diskstats__find(&b->ds_end, d->dev);

	if (!s || !e)
		return -ENOENT;
	diskstats__delta(s, e, delta);
	return 0;
}

void block__sum(const struct block *b, int op, unsigned int who, struct blk_stats *out)
{
	struct blk_stats s;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < b->nr_devs; i++) {
		blk_dev__sum(&b->devs[i], op, who, &s);
		blk_stats__add(out, &s);
	}
}

void block__hist(const struct block *b, int op, int hist, int scope, struct hist *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct hist *h = blk_dev__hist(&b->devs[i], op, hist, scope);

		if (h)
			hist__merge(out, h);
	}
}

const char *block__op_name(int op)
{
	static const char *const names[BLK__MAX] = {
		[BLK_READ] = "read", [BLK_WRITE] = "write", [BLK_FLUSH] = "flush",
		[BLK_DISCARD] = "discard", [BLK_OTHER] = "other",
	};

	return op >= 0 && op < BLK__MAX ? names[op] : "unknown";
}

void block__sort(struct block *b)
{
	qsort(b->devs, b->nr_devs, sizeof(*b->devs), dev_cmp);
}

int block__copy_counts(struct block *dst, const struct block *src)
{
	struct blk_dev *v = realloc(dst->devs, (src->nr_devs ? src->nr_devs : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	memcpy(v, src->devs, src->nr_devs * sizeof(*v));
	for (size_t i = 0; i < src->nr_devs; i++)
		memset(v[i].hists, 0, sizeof(v[i].hists));
	dst->devs = v;
	dst->nr_devs = src->nr_devs;
	dst->start_ns = src->start_ns;
	dst->end_ns = src->end_ns;
	return 0;
}
