// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Latency by layer, see layers.h. */
#include <string.h>
#include "model/hist.h"
#include "model/layers.h"
#include "model/trace.h"

static void lat_fill(struct layer_lat *l, const struct hist *h, __u64 sum)
{
	l->count = hist__count(h);
	l->p50 = hist__quantile(h, 0.5);
	l->p99 = hist__quantile(h, 0.99);
	l->mean = l->count ? (double)sum / l->count : 0;
}

void layers__measure(const struct trace *t, struct layers *l)
{
	struct blk_stats mine;
	struct hist h;

	memset(l, 0, sizeof(*l));
	block__sum(&t->block, BLK_READ, WHO_BIT(WHO_TARGET), &mine);
	l->sums = (struct layer_sums){
		.reads = t->counters[C_READS],
		.read_bytes = t->counters[C_READ_BYTES],
		.read_ns = t->counters[C_READ_NS],
		.faults = t->counters[C_FAULT_READS],
		.fault_bytes = t->counters[C_FAULT_PAGES] * (t->page_size ? t->page_size : 4096),
		.fault_ns = t->counters[C_FAULT_NS],
		.blk_reqs = mine.reqs,
		.blk_bytes = mine.bytes,
		.blk_ns = mine.total_ns,
		.queue_ns = mine.queue_ns,
		.device_ns = mine.device_ns,
		.cache_bytes = t->counters[C_CACHE_PAGES] * (t->page_size ? t->page_size : 4096),
	};
	lat_fill(&l->read, &t->hists[H_READ_LAT], l->sums.read_ns);
	l->fault.count = l->sums.faults;
	l->fault.mean = l->sums.faults ? (double)l->sums.fault_ns / l->sums.faults : 0;
	block__hist(&t->block, BLK_READ, H_BLK_TOTAL_LAT, BLK_SCOPE_TARGET, &h);
	lat_fill(&l->total, &h, mine.total_ns);
	block__hist(&t->block, BLK_READ, H_BLK_QUEUE_LAT, BLK_SCOPE_TARGET, &h);
	lat_fill(&l->queue, &h, mine.queue_ns);
	block__hist(&t->block, BLK_READ, H_BLK_DEV_LAT, BLK_SCOPE_TARGET, &h);
	lat_fill(&l->device, &h, mine.device_ns);
}

void layers__mount_syscalls(const struct trace *t, __u32 dev, struct mount_syscalls *m)
{
	const struct store *s = &t->store;
	__u64 read_ns = 0, meta_ns = 0;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];

		if (!f || f->dev != dev)
			continue;
		m->files_opened += f->c.opens && f->flags & FILE_F_REG;
		m->opens += f->c.opens;
		m->stats += f->c.stats;
		m->reads += f->c.reads;
		m->read_bytes += f->c.read_bytes;
		read_ns += f->c.read_ns;
		meta_ns += f->c.meta_ns;
	}
	m->read_mean_ns = m->reads ? (double)read_ns / m->reads : 0;
	m->meta_mean_ns = m->opens + m->stats ? (double)meta_ns / (m->opens + m->stats) : 0;
}
