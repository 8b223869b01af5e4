// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's block maps read into the trace's per-device records
 * (model/block.h): counts, busy time, histograms, and the requests whose
 * start or completion the programs missed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iostorm.skel.h"
#include "collect/collect_int.h"
#include "model/hist.h"

struct stats_walk {
	struct block *b;
	int ncpus;
};

static int add_stats(const void *key, void *values, void *ctx)
{
	const struct blk_key *k = key;
	struct stats_walk *w = ctx;
	struct blk_dev *d;

	if (k->op >= BLK__MAX || k->who >= WHO__MAX)
		return 0;
	d = block__dev(w->b, k->dev);
	if (!d)
		return -ENOMEM;
	memset(&d->st[k->op][k->who], 0, sizeof(struct blk_stats));
	for (int c = 0; c < w->ncpus; c++)
		blk_stats__add(&d->st[k->op][k->who],
			       percpu_value(values, sizeof(struct blk_stats), c));
	return 0;
}

/* blk_stats: one per-CPU value per (dev, op, who), summed over CPUs. */
static int read_stats(struct block *b, int fd, int ncpus)
{
	struct stats_walk w = { b, ncpus };
	struct blk_key key;

	return map_each_percpu(fd, &key, sizeof(key), sizeof(struct blk_stats), ncpus,
			       add_stats, &w);
}

struct devs_walk {
	struct block *b;
	__u64 now_ns;
};

static int add_dev(const void *key, void *value, void *ctx)
{
	const struct blk_dev_info *info = value;
	struct devs_walk *w = ctx;
	struct blk_dev *d = block__dev(w->b, *(const __u32 *)key);

	if (!d)
		return -ENOMEM;
	memcpy(d->name, info->name, sizeof(d->name));
	d->name[sizeof(d->name) - 1] = '\0';
	for (int s = 0; s < BLK_SCOPES; s++) {
		d->busy_ns[s] = info->busy_ns[s];
		if (info->inflight[s] && w->now_ns > info->since[s])
			d->busy_ns[s] += w->now_ns - info->since[s];
	}
	return 0;
}

/* blk_devs: names and busy time, read under the value's spin lock. */
static int read_devs(struct block *b, int fd, __u64 now_ns)
{
	struct devs_walk w = { b, now_ns };
	struct blk_dev_info info;
	__u32 key;

	return map_each(fd, &key, sizeof(key), &info, BPF_F_LOCK, add_dev, &w);
}

static int add_hist(const void *key, void *value, void *b)
{
	const struct blk_hist_key *k = key;
	struct blk_dev *d;

	if (k->op >= BLK__MAX || k->scope >= BLK_SCOPES ||
	    k->hist < H_BLK_QUEUE_LAT || k->hist > H_BLK_INFLIGHT)
		return 0;
	d = block__dev(b, k->dev);
	if (!d)
		return -ENOMEM;
	return hist__store(&d->hists[k->op][k->hist - H_BLK_QUEUE_LAT][k->scope], value);
}

static int read_hists(struct block *b, int fd)
{
	struct blk_hist_key key;
	struct hist h;

	return map_each(fd, &key, sizeof(key), &h, 0, add_hist, b);
}

static int add_req(const void *key, void *value, void *b)
{
	const struct blk_req *r = value;
	struct blk_dev *d;

	if (r->op >= BLK__MAX)
		return 0;
	d = block__dev(b, r->dev);
	if (!d)
		return -ENOMEM;
	d->unfinished[r->op]++;
	return 0;
}

/* blk_reqs: requests started and not (yet) seen completing. */
static int read_reqs(struct block *b, int fd)
{
	struct blk_req r;
	__u64 key;

	return map_each(fd, &key, sizeof(key), &r, 0, add_req, b);
}

static int add_missed(const void *key, void *value, void *b)
{
	const struct blk_key *k = key;
	__u64 n = *(const __u64 *)value;
	struct blk_dev *d;

	if (k->op >= BLK__MAX)
		return 0;
	d = block__dev(b, k->dev);
	if (!d)
		return -ENOMEM;
	if (k->who == MISS_START)
		d->untracked[k->op] = n;
	else if (k->who == MISS_DONE)
		d->unfinished[k->op] += n;
	return 0;
}

/*
 * blk_missed: requests one of whose events the programs did not see, per
 * (dev, op, enum blk_miss): start (untracked) or completion (unfinished).
 */
static int read_missed(struct block *b, int fd)
{
	struct blk_key key;
	__u64 n;

	return map_each(fd, &key, sizeof(key), &n, 0, add_missed, b);
}


static int read_maps(struct block *b, const struct block_maps *m, int ncpus, __u64 now_ns)
{
	int err;

	block__clear_counts(b);
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
		block__sort(b);
	return err;
}


int drain__block(struct drain *d, struct iostorm_bpf *skel, struct block *b,
		 unsigned int flags, __u64 now_ns)
{
	struct block_maps m = {
		.stats_fd = bpf_map__fd(skel->maps.blk_stats),
		.devs_fd = bpf_map__fd(skel->maps.blk_devs),
		.hists_fd = flags & DRAIN_BLOCK_HISTS ? bpf_map__fd(skel->maps.blk_hists) : -1,
		.reqs_fd = flags & DRAIN_BLOCK_UNFINISHED ?
			   bpf_map__fd(skel->maps.blk_reqs) : -1,
		.missed_fd = bpf_map__fd(skel->maps.blk_missed),
	};

	return read_maps(b, &m, d->ncpus, now_ns);
}
