// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* From a trace to its findings: evidence from every layer, then the rules. */
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include "findings/rules.h"
#include "model/block.h"
#include "model/trace.h"

void evidence__add_block(struct evidence *e, const struct trace *t)
{
	const struct block *b = &t->block;
	double secs = t->duration_s > 0 ? t->duration_s : 1;
	struct blk_stats st;
	struct layers l;
	__u64 busy = 0;

	layers__compute(t, &l);
	e->layer = l.verdict;
	block__sum(b, BLK_READ, WHO_BIT(WHO_TARGET), &st);
	if (!st.reqs)
		return;
	e->have_block = true;
	e->blk_reads = st.reqs;
	e->blk_mean_bytes = (double)st.bytes / st.reqs;
	e->blk_reads_per_s = st.reqs / secs;
	e->blk_random_share = 1.0 - (double)st.seq / st.reqs;
	e->blk_small_share = (double)st.small / st.reqs;
	e->blk_await_ms = st.total_ns / 1e6 / st.reqs;
	e->blk_queue_share = st.total_ns ? (double)st.queue_ns / st.total_ns : 0;
	e->blk_device_p50_us = l.device.p50 / 1e3;
	e->blk_inflight_mean = st.total_ns / 1e9 / secs;
	/* The busiest device the target read from: its whole busy time. */
	for (size_t i = 0; i < b->nr_devs; i++) {
		struct blk_stats s;

		blk_dev__sum(&b->devs[i], BLK_READ, WHO_BIT(WHO_TARGET), &s);
		if (s.reqs && b->devs[i].busy_ns[BLK_SCOPE_DEVICE] > busy)
			busy = b->devs[i].busy_ns[BLK_SCOPE_DEVICE];
	}
	e->blk_util = busy / 1e9 / secs;
	if (e->blk_util > 1)
		e->blk_util = 1;
}

void evidence__add_fuse(struct evidence *e, const struct trace *t)
{
	const struct fuse_layer *l = &t->fuse;
	struct fuse_layers fl, best = {};

	for (size_t i = 0; i < l->nr_conns; i++) {
		fuse_layers__compute(t, &l->conns[i], &fl);
		e->fuse_read_bytes += fl.read_bytes_fuse;
		if (fl.reqs > best.reqs)
			best = fl;
	}
	if (!best.reqs)
		return;
	e->have_fuse = true;
	fuse_layers__fs(&best, e->fuse_fs, sizeof(e->fuse_fs));
	snprintf(e->fuse_mount, sizeof(e->fuse_mount), "%s",
		 best.mount ? best.mount->point : "");
	e->fuse_reqs = best.reqs;
	e->fuse_reqs_per_s = t->duration_s > 0 ? best.reqs / t->duration_s : 0;
	e->fuse_round_trips = best.round_trips;
	e->fuse_rtt_us = best.rtt_mean_ns / 1e3;
	e->fuse_lookup_p50_us = best.lookup.p50 / 1e3;
	e->fuse_getattr_p50_us = best.getattr.p50 / 1e3;
	e->fuse_open_p50_us = best.open.p50 / 1e3;
	e->fuse_read_p50_us = best.read.p50 / 1e3;
	e->fuse_read_inflight = best.read_inflight;
}

/* The layers this kernel did not give: no rule judges their zeros. */
static void evidence__add_kernel(struct evidence *e, const struct trace *t)
{
	size_t len = 0;

	for (int l = 0; l < KL__MAX; l++) {
		if (kernel__measured(&t->kernel, l))
			continue;
		len += snprintf(e->unmeasured + len, len < sizeof(e->unmeasured) ?
				sizeof(e->unmeasured) - len : 0, "%s%s",
				e->nr_unmeasured ? ", " : "", kernel__layer_name(l));
		e->nr_unmeasured++;
	}
}

int findings__judge(struct findings *d, const struct trace *t,
		    const struct thresholds *th)
{
	int err;

	memset(d, 0, sizeof(*d));
	err = evidence__from_trace(&d->e, t);
	if (err)
		return err;
	evidence__add_block(&d->e, t);
	evidence__add_fuse(&d->e, t);
	evidence__add_kernel(&d->e, t);
	d->nr_findings = verdict__judge(&d->e, th, d->findings, FINDINGS_MAX);
	if (d->nr_findings < 0)
		return d->nr_findings;
	verdict__headline(d->findings, d->nr_findings, d->headline, sizeof(d->headline));
	d->done = true;
	return 0;
}
