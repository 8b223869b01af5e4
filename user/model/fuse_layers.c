// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Latency by layer for FUSE, see fuse_layers.h. */
#include <stdio.h>
#include <string.h>
#include "model/fuse_layers.h"
#include "model/hist.h"
#include "model/trace.h"

static void lat_of(const struct fuse_conn *c, const __u16 *ops, int n, struct layer_lat *l)
{
	struct fuse_stats s, sum = {};
	struct hist h = {};

	for (int i = 0; i < n; i++) {
		const struct fuse_op *op = fuse_conn__find(c, ops[i]);
		const struct hist *oh = fuse_op__hist(op, FUSE_H_LAT, FUSE_SCOPE_TARGET);

		fuse_op__sum(op, FUSE_WHO_TARGET_BIT, &s);
		fuse_stats__add(&sum, &s);
		if (oh)
			hist__merge(&h, oh);
	}
	l->count = sum.reqs;
	l->p50 = hist__quantile(&h, 0.5);
	l->p99 = hist__quantile(&h, 0.99);
	l->mean = sum.reqs ? (double)sum.total_ns / sum.reqs : 0;
}

void fuse_layers__measure(const struct trace *t, const struct fuse_conn *c,
			  struct fuse_layers *fl)
{
	static const __u16 rd[] = { FUSE_OP_READ }, lk[] = { FUSE_OP_LOOKUP },
		ga[] = { FUSE_OP_GETATTR, FUSE_OP_STATX }, op[] = { FUSE_OP_OPEN };
	const struct fuse_op *read_op = fuse_conn__find(c, FUSE_OP_READ);
	struct fuse_stats mine, all, rs;

	memset(fl, 0, sizeof(*fl));
	fl->conn = c->conn;
	fl->mount = mounts__find(&t->mounts, c->conn);
	layers__mount_syscalls(t, c->conn, &fl->sys);
	fuse_conn__sum(c, FUSE_WHO_TARGET_BIT, &mine);
	fuse_conn__sum(c, FUSE_WHO_ALL, &all);
	fuse_op__sum(read_op, FUSE_WHO_TARGET_BIT, &rs);
	fl->reqs = mine.reqs;
	fl->read_reqs = rs.reqs;
	fl->read_bytes_fuse = rs.out_bytes;
	fl->rtt_mean_ns = mine.reqs ? (double)mine.total_ns / mine.reqs : 0;
	fl->round_trips = fl->sys.files_opened ? (double)mine.reqs / fl->sys.files_opened : -1;
	fl->read_inflight = rs.reqs ? (double)rs.inflight_sum / rs.reqs : 0;
	fl->unattributed = all.reqs - mine.reqs;
	fl->inflight_end = fuse_conn__inflight_end(c, FUSE_WHO_TARGET_BIT);
	lat_of(c, rd, 1, &fl->read);
	lat_of(c, lk, 1, &fl->lookup);
	lat_of(c, ga, 2, &fl->getattr);
	lat_of(c, op, 1, &fl->open);
}

const char *fuse_layers__fs(const struct fuse_layers *fl, char *buf, size_t len)
{
	if (fl->mount)
		snprintf(buf, len, "%s", fl->mount->fstype);
	else
		snprintf(buf, len, "fuse (%u:%u)", fl->conn >> 20, fl->conn & 0xfffff);
	return buf;
}
