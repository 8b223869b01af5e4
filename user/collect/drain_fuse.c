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

/* fuse_stats: one per-CPU value per (conn, opcode, who), summed over CPUs. */
static int read_stats(struct fuse_layer *l, int fd, int ncpus)
{
	size_t stride = (sizeof(struct fuse_stats) + 7) & ~7UL;
	struct fuse_key key, next;
	void *buf;
	int err;

	buf = calloc(ncpus, stride);
	if (!buf)
		return -ENOMEM;
	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		struct fuse_op *op;

		key = next;
		if (key.who >= FUSE_WHO__MAX || bpf_map_lookup_elem(fd, &key, buf))
			continue;	/* gone: this map never deletes */
		op = op_of(l, key.conn, key.opcode);
		if (!op) {
			err = -ENOMEM;
			break;
		}
		memset(&op->st[key.who], 0, sizeof(op->st[key.who]));
		for (int c = 0; c < ncpus; c++)
			fuse_stats__add(&op->st[key.who],
					(struct fuse_stats *)((char *)buf + c * stride));
	}
	free(buf);
	return err == -ENOENT ? 0 : err;
}

static int read_hists(struct fuse_layer *l, int fd)
{
	struct fuse_hist_key key, next;
	struct hist h, **slot;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		struct fuse_op *op;

		key = next;
		if (key.hist >= FUSE_H__MAX || key.scope >= FUSE_SCOPE__MAX ||
		    bpf_map_lookup_elem(fd, &key, &h))
			continue;
		op = op_of(l, key.conn, key.opcode);
		if (!op)
			return -ENOMEM;
		slot = &op->hists[key.hist][key.scope];
		if (!*slot)
			*slot = malloc(sizeof(**slot));
		if (!*slot)
			return -ENOMEM;
		**slot = h;
	}
	return err == -ENOENT ? 0 : err;
}

/* fuse_reqs: requests sent and not ended, read after the detach. */
static int read_reqs(struct fuse_layer *l, int fd)
{
	struct fuse_req_key key, next;
	struct fuse_req_rec r;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		struct fuse_op *op;

		key = next;
		if (bpf_map_lookup_elem(fd, &key, &r) || r.who >= FUSE_WHO__MAX)
			continue;
		op = op_of(l, r.conn, r.opcode);
		if (!op)
			return -ENOMEM;
		op->inflight_end[r.who]++;
	}
	return err == -ENOENT ? 0 : err;
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
