// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's NFS maps read into the trace's per-RPC-client records
 * (model/nfs.h): what each RPC client is, counts per (client, procedure,
 * requester), the procedures' names, histograms, and the calls still in
 * flight at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iostorm.skel.h"
#include "collect/collect_int.h"

static struct nfs_op *op_of(struct nfs_layer *l, __u32 clid, __u16 proc)
{
	struct nfs_rpc *r = nfs_layer__rpc(l, clid);

	return r ? nfs_rpc__op(r, proc) : NULL;
}

static int add_clnt(const void *key, void *value, void *l)
{
	struct nfs_rpc *r = nfs_layer__rpc(l, *(const __u32 *)key);

	if (!r)
		return -ENOMEM;
	r->info = *(const struct nfs_clnt *)value;
	r->known = true;
	return 0;
}

/* nfs_clnts: what each RPC client is; read first, so ops can be named. */
static int read_clnts(struct nfs_layer *l, int fd)
{
	struct nfs_clnt c;
	__u32 key;

	return map_each(fd, &key, sizeof(key), &c, 0, add_clnt, l);
}

struct stats_walk {
	struct nfs_layer *l;
	int ncpus;
};

static int add_stats(const void *key, void *values, void *ctx)
{
	const struct nfs_key *k = key;
	struct stats_walk *w = ctx;
	struct nfs_op *op;

	if (k->who >= NFS_WHO__MAX)
		return 0;
	op = op_of(w->l, k->clid, k->proc);
	if (!op)
		return -ENOMEM;
	memset(&op->st[k->who], 0, sizeof(op->st[k->who]));
	for (int c = 0; c < w->ncpus; c++)
		nfs_stats__add(&op->st[k->who], percpu_value(values, sizeof(struct nfs_stats), c));
	return 0;
}

/* nfs_stats: one per-CPU value per (clid, proc, who), summed over CPUs. */
static int read_stats(struct nfs_layer *l, int fd, int ncpus)
{
	struct stats_walk w = { l, ncpus };
	struct nfs_key key;

	return map_each_percpu(fd, &key, sizeof(key), sizeof(struct nfs_stats), ncpus,
			       add_stats, &w);
}

/* Each op its procedure's name, by its client's version (nfs_procs). */
static void name_ops(struct nfs_layer *l, int fd)
{
	for (size_t i = 0; i < l->nr_rpcs; i++) {
		struct nfs_rpc *r = &l->rpcs[i];

		for (size_t k = 0; r->known && k < r->nr_ops; k++) {
			struct nfs_proc_key key = { .vers = r->info.vers, .proc = r->ops[k].proc };
			struct nfs_proc_name n;

			if (r->ops[k].name[0] || bpf_map_lookup_elem(fd, &key, &n))
				continue;
			n.name[sizeof(n.name) - 1] = '\0';
			memcpy(r->ops[k].name, n.name, sizeof(n.name));
		}
	}
}

static int add_hist(const void *key, void *value, void *l)
{
	const struct nfs_hist_key *k = key;
	struct nfs_op *op;

	if (k->hist >= NFS_H__MAX || k->scope >= NFS_SCOPE__MAX)
		return 0;
	op = op_of(l, k->clid, k->proc);
	if (!op)
		return -ENOMEM;
	return hist__store(&op->hists[k->hist][k->scope], value);
}

static int read_hists(struct nfs_layer *l, int fd)
{
	struct nfs_hist_key key;
	struct hist h;

	return map_each(fd, &key, sizeof(key), &h, 0, add_hist, l);
}

static int add_call(const void *key, void *value, void *l)
{
	const struct nfs_call *c = value;
	struct nfs_op *op;

	if (!c->running || c->who >= NFS_WHO__MAX)
		return 0;
	op = op_of(l, c->clid, c->proc);
	if (!op)
		return -ENOMEM;
	op->inflight_end[c->who]++;
	return 0;
}

/* nfs_calls: calls begun and not ended, read after the detach. */
static int read_calls(struct nfs_layer *l, int fd)
{
	struct nfs_call c;
	__u64 key;

	return map_each(fd, &key, sizeof(key), &c, 0, add_call, l);
}

int drain__nfs(struct drain *d, struct iostorm_bpf *skel, struct nfs_layer *l,
	       unsigned int flags)
{
	int err;

	nfs_layer__clear_counts(l);
	err = read_clnts(l, bpf_map__fd(skel->maps.nfs_clnts));
	if (!err)
		err = read_stats(l, bpf_map__fd(skel->maps.nfs_stats), d->ncpus);
	if (!err && flags & DRAIN_BLOCK_HISTS)
		err = read_hists(l, bpf_map__fd(skel->maps.nfs_hists));
	if (!err && flags & DRAIN_BLOCK_UNFINISHED)
		err = read_calls(l, bpf_map__fd(skel->maps.nfs_calls));
	if (!err) {
		name_ops(l, bpf_map__fd(skel->maps.nfs_procs));
		nfs_layer__sort(l);
	}
	return err;
}
