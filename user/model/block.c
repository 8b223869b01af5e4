// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The block layer's maps read into per-device records, see block.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
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

/* d's record, added zeroed when new; NULL when out of memory. */
static struct blk_dev *dev_get(struct block *b, __u32 dev)
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

/* Counts are replaced, not added to: the maps are cumulative. */
static void devs_clear(struct block *b)
{
	for (size_t i = 0; i < b->nr_devs; i++) {
		struct blk_dev *d = &b->devs[i];

		memset(d->st, 0, sizeof(d->st));
		memset(d->busy_ns, 0, sizeof(d->busy_ns));
		memset(d->unfinished, 0, sizeof(d->unfinished));
		memset(d->untracked, 0, sizeof(d->untracked));
	}
}

static void stats_add(struct blk_stats *dst, const struct blk_stats *src)
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

/* blk_stats: one per-CPU value per (dev, op, who), summed over CPUs. */
static int read_stats(struct block *b, int fd, int ncpus)
{
	size_t stride = (sizeof(struct blk_stats) + 7) & ~7UL;
	struct blk_key key, next;
	struct blk_stats *cpu;
	void *buf;
	int err;

	buf = calloc(ncpus, stride);
	if (!buf)
		return -ENOMEM;
	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		struct blk_dev *d;

		key = next;
		if (key.op >= BLK__MAX || key.who >= WHO__MAX)
			continue;
		if (bpf_map_lookup_elem(fd, &key, buf))
			continue;	/* gone: this map never deletes */
		d = dev_get(b, key.dev);
		if (!d) {
			err = -ENOMEM;
			break;
		}
		memset(&d->st[key.op][key.who], 0, sizeof(struct blk_stats));
		for (int c = 0; c < ncpus; c++) {
			cpu = (struct blk_stats *)((char *)buf + c * stride);
			stats_add(&d->st[key.op][key.who], cpu);
		}
	}
	free(buf);
	return err == -ENOENT ? 0 : err;
}

/* blk_devs: names and busy time, read under the value's spin lock. */
static int read_devs(struct block *b, int fd, __u64 now_ns)
{
	struct blk_dev_info info;
	__u32 key, next;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		struct blk_dev *d;

		key = next;
		if (bpf_map_lookup_elem_flags(fd, &key, &info, BPF_F_LOCK))
			continue;
		d = dev_get(b, key);
		if (!d)
			return -ENOMEM;
		memcpy(d->name, info.name, sizeof(d->name));
		d->name[sizeof(d->name) - 1] = '\0';
		for (int s = 0; s < BLK_SCOPES; s++) {
			d->busy_ns[s] = info.busy_ns[s];
			if (info.inflight[s] && now_ns > info.since[s])
				d->busy_ns[s] += now_ns - info.since[s];
		}
	}
	return err == -ENOENT ? 0 : err;
}

static int read_hists(struct block *b, int fd)
{
	struct blk_hist_key key, next;
	struct hist h, **slot;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		struct blk_dev *d;

		key = next;
		if (key.op >= BLK__MAX || key.scope >= BLK_SCOPES ||
		    key.hist < H_BLK_QUEUE_LAT || key.hist > H_BLK_INFLIGHT)
			continue;
		if (bpf_map_lookup_elem(fd, &key, &h))
			continue;
		d = dev_get(b, key.dev);
		if (!d)
			return -ENOMEM;
		slot = &d->hists[key.op][key.hist - H_BLK_QUEUE_LAT][key.scope];
		if (!*slot)
			*slot = malloc(sizeof(**slot));
		if (!*slot)
			return -ENOMEM;
		**slot = h;
	}
	return err == -ENOENT ? 0 : err;
}

/* blk_reqs: requests started and not (yet) seen completing. */
static int read_reqs(struct block *b, int fd)
{
	struct blk_req r;
	__u64 key, next;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		struct blk_dev *d;

		key = next;
		if (bpf_map_lookup_elem(fd, &key, &r) || r.op >= BLK__MAX)
			continue;
		d = dev_get(b, r.dev);
		if (!d)
			return -ENOMEM;
		d->unfinished[r.op]++;
	}
	return err == -ENOENT ? 0 : err;
}

/*
 * blk_missed: requests one of whose events the programs did not see, per
 * (dev, op, enum blk_miss): start (untracked) or completion (unfinished).
 */
static int read_missed(struct block *b, int fd)
{
	struct blk_key key, next;
	__u64 n;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		struct blk_dev *d;

		key = next;
		if (key.op >= BLK__MAX || bpf_map_lookup_elem(fd, &key, &n))
			continue;
		d = dev_get(b, key.dev);
		if (!d)
			return -ENOMEM;
		if (key.who == MISS_START)
			d->untracked[key.op] = n;
		else if (key.who == MISS_DONE)
			d->unfinished[key.op] += n;
	}
	return err == -ENOENT ? 0 : err;
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

int block__read(struct block *b, const struct block_maps *m, int ncpus, __u64 now_ns)
{
	int err;

	devs_clear(b);
	err = read_stats(b, m->stats_fd, ncpus);
	if (!err)
		err = read_devs(b, m->devs_fd, now_ns);
	if (!err && m->hists_fd >= 0)
		err = read_hists(b, m->hists_fd);
	if (!err && m->reqs_fd >= 0)
		err = read_reqs(b, m->reqs_fd);
	if (!err && m->missed_fd >= 0)
		err = read_missed(b, m->missed_fd);
	if (!err)
		qsort(b->devs, b->nr_devs, sizeof(*b->devs), dev_cmp);
	return err;
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
				stats_add(out, &d->st[o][w]);
	}
}

unsigned int blk_dev__who(int scope)
{
	return scope == SCOPE_TARGET ? WHO_BIT(WHO_TARGET) : WHO_ALL;
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
		stats_add(out, &s);
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
