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
		d = block__dev(b, key.dev);
		if (!d) {
			err = -ENOMEM;
			break;
		}
		memset(&d->st[key.op][key.who], 0, sizeof(struct blk_stats));
		for (int c = 0; c < ncpus; c++) {
			cpu = (struct blk_stats *)((char *)buf + c * stride);
			blk_stats__add(&d->st[key.op][key.who], cpu);
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
		d = block__dev(b, key);
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
		d = block__dev(b, key.dev);
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
		d = block__dev(b, r.dev);
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
		d = block__dev(b, key.dev);
		if (!d)
			return -ENOMEM;
		if (key.who == MISS_START)
			d->untracked[key.op] = n;
		else if (key.who == MISS_DONE)
			d->unfinished[key.op] += n;
	}
	return err == -ENOENT ? 0 : err;
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
