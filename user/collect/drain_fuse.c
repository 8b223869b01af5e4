// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's FUSE maps read into the trace's per-connection records
 * (model/fuse.h): counts per (connection, opcode, requester), histograms,
 * and the requests still in flight at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iostorm.skel.h"
#include "collect/collect_int.h"

static struct fuse_op *op_of(struct fuse_layer *l, __u32 conn, __u16 opcode)
{
	struct fuse_conn *c = fuse_layer__conn(l, conn);

	return c ? fuse_conn__op(c, opcode) : NULL;
}

struct stats_walk {
	struct fuse_layer *l;
	int ncpus;
};

static int add_stats(const void *key, void *values, void *ctx)
{
	const struct fuse_key *k = key;
	struct stats_walk *w = ctx;
	struct fuse_op *op;

	if (k->who >= FUSE_WHO__MAX)
		return 0;
	op = op_of(w->l, k->conn, k->opcode);
	if (!op)
		return -ENOMEM;
	memset(&op->st[k->who], 0, sizeof(op->st[k->who]));
	for (int c = 0; c < w->ncpus; c++)
		fuse_stats__add(&op->st[k->who],
				percpu_value(values, sizeof(struct fuse_stats), c));
	return 0;
}

/* fuse_stats: one per-CPU value per (conn, opcode, who), summed over CPUs. */
static int read_stats(struct fuse_layer *l, int fd, int ncpus)
{
	struct stats_walk w = { l, ncpus };
	struct fuse_key key;

	return map_each_percpu(fd, &key, sizeof(key), sizeof(struct fuse_stats), ncpus,
			       add_stats, &w);
}

static int add_hist(const void *key, void *value, void *l)
{
	const struct fuse_hist_key *k = key;
	struct fuse_op *op;

	if (k->hist >= FUSE_H__MAX || k->scope >= FUSE_SCOPE__MAX)
		return 0;
	op = op_of(l, k->conn, k->opcode);
	if (!op)
		return -ENOMEM;
	return hist__store(&op->hists[k->hist][k->scope], value);
}

static int read_hists(struct fuse_layer *l, int fd)
{
	struct fuse_hist_key key;
	struct hist h;

	return map_each(fd, &key, sizeof(key), &h, 0, add_hist, l);
}

static int add_req(const void *key, void *value, void *l)
{
	const struct fuse_req_rec *r = value;
	struct fuse_op *op;

	if (r->who >= FUSE_WHO__MAX)
		return 0;
	op = op_of(l, r->conn, r->opcode);
	if (!op)
		return -ENOMEM;
	op->inflight_end[r->who]++;
	return 0;
}

/* fuse_reqs: requests sent and not ended, read after the detach. */
static int read_reqs(struct fuse_layer *l, int fd)
{
	struct fuse_req_key key;
	struct fuse_req_rec r;

	return map_each(fd, &key, sizeof(key), &r, 0, add_req, l);
}

int drain__fuse(struct drain *d, struct iostorm_bpf *skel, struct fuse_layer *l,
		unsigned int flags)
{
	int err;

	fuse_layer__clear_counts(l);
	err = read_stats(l, bpf_map__fd(skel->maps.fuse_stats), d->ncpus);
	if (!err && flags & DRAIN_BLOCK_HISTS)
		err = read_hists(l, bpf_map__fd(skel->maps.fuse_hists));
	if (!err && flags & DRAIN_BLOCK_UNFINISHED)
		err = read_reqs(l, bpf_map__fd(skel->maps.fuse_reqs));
	if (!err)
		fuse_layer__sort(l);
	return err;
}
