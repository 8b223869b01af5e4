// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Latency by layer for NFS, see nfs_layers.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/nfs_layers.h"
#include "model/hist.h"
#include "model/trace.h"

/* Does mount m name server addr and NFS version vers ("4", "3") in its options? */
static bool mount_serves(const struct mount_rec *m, const char *addr, __u32 vers)
{
	char a[64], v[16];

	if (!mount__is_nfs(m) || !mount__option(m, "addr", a, sizeof(a)) || strcmp(a, addr))
		return false;
	if (!mount__option(m, "vers", v, sizeof(v)))
		return true;
	return (__u32)atoi(v) == vers;
}

const struct mount_rec *nfs_layers__mount(const struct trace *t, const struct nfs_rpc *r)
{
	const struct mount_rec *found = NULL;
	char addr[48];

	if (!r->known || r->info.role == NFS_ROLE_CLIENT)
		return NULL;
	if (r->info.role == NFS_ROLE_MOUNT)
		return mounts__find(&t->mounts, r->info.dev);
	/* Not named by a mount's event: its server's one NFS mount, if one. */
	nfs_rpc__server(r, addr, sizeof(addr));
	for (size_t i = 0; i < t->mounts.nr; i++) {
		if (!mount_serves(&t->mounts.recs[i], addr, r->info.vers))
			continue;
		if (found)
			return NULL;
		found = &t->mounts.recs[i];
	}
	return found;
}

/* The target's calls of the named procedures: count, percentiles and mean of their total. */
static void lat_of(const struct nfs_rpc *r, const char *const *names, int n,
		   struct layer_lat *l)
{
	struct nfs_stats s, sum = {};
	struct hist h = {};

	for (size_t i = 0; i < r->nr_ops; i++) {
		const struct nfs_op *op = &r->ops[i];
		const struct hist *oh = nfs_op__hist(op, NFS_H_TOTAL, NFS_SCOPE_TARGET);
		int k;

		for (k = 0; k < n && strcmp(op->name, names[k]); k++)
			;
		if (k == n)
			continue;
		nfs_op__sum(op, NFS_WHO_TARGET_BIT, &s);
		nfs_stats__add(&sum, &s);
		if (oh)
			hist__merge(&h, oh);
	}
	l->count = sum.calls;
	l->p50 = hist__quantile(&h, 0.5);
	l->p99 = hist__quantile(&h, 0.99);
	l->mean = sum.calls ? (double)sum.total_ns / sum.calls : 0;
}

static int per_file_cmp(const void *pa, const void *pb)
{
	const struct nfs_per_file *a = pa, *b = pb;

	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The target's calls per file opened, by procedure, most first. */
static void per_file_of(const struct nfs_rpc *r, struct nfs_layers *nl)
{
	struct nfs_per_file all[NFS_PROCS] = {};
	int n = 0;
	char buf[16];

	if (!nl->sys.files_opened)
		return;
	for (size_t i = 0; i < r->nr_ops && n < NFS_PROCS; i++) {
		struct nfs_stats s;

		nfs_op__sum(&r->ops[i], NFS_WHO_TARGET_BIT, &s);
		if (!s.calls)
			continue;
		snprintf(all[n].name, sizeof(all[n].name), "%s",
			 nfs_op__name(&r->ops[i], buf, sizeof(buf)));
		all[n++].calls = (double)s.calls / nl->sys.files_opened;
	}
	qsort(all, n, sizeof(all[0]), per_file_cmp);
	nl->nr_per_file = n < NFS_PER_FILE ? n : NFS_PER_FILE;
	memcpy(nl->per_file, all, nl->nr_per_file * sizeof(all[0]));
}

/* What the mount's options say: nconnect, rsize, nocto, attribute cache times. */
static void options_of(struct nfs_layers *nl)
{
	char v[32];

	if (mount__option(nl->mount, "vers", v, sizeof(v)))
		snprintf(nl->version, sizeof(nl->version), "%.7s", v);
	if (mount__option(nl->mount, "nconnect", v, sizeof(v)))
		nl->nconnect = atoi(v);
	else if (nl->mount && !nl->nconnect)
		nl->nconnect = 1;	/* the kernel lists nconnect only above 1 */
	if (mount__option(nl->mount, "rsize", v, sizeof(v)))
		nl->rsize = strtoull(v, NULL, 10);
	nl->nocto = mount__option(nl->mount, "nocto", v, sizeof(v)) != NULL;
	nl->actimeo = mount__option(nl->mount, "actimeo", v, sizeof(v)) ||
		      mount__option(nl->mount, "noac", v, sizeof(v));
}

static void calls_of(const struct trace *t, const struct nfs_rpc *r, struct nfs_layers *nl)
{
	const struct nfs_rpc *parent = r->known && r->info.parent != r->clid ?
				       nfs_layer__find(&t->nfs, r->info.parent) : NULL;
	const char *const reads[] = { "READ", "READ_PLUS" };
	struct nfs_stats mine, all, rs = {}, s;

	nfs_rpc__sum(r, NFS_WHO_TARGET_BIT, &mine);
	nfs_rpc__sum(r, NFS_WHO_ALL, &all);
	for (int k = 0; k < 2; k++) {
		nfs_op__sum(nfs_rpc__named(r, reads[k]), NFS_WHO_TARGET_BIT, &s);
		nfs_stats__add(&rs, &s);
	}
	nl->calls = mine.calls;
	nl->read_calls = rs.calls;
	nl->read_call_bytes = rs.bytes_recv;
	nl->retrans = mine.trans > mine.calls ? mine.trans - mine.calls : 0;
	nl->timeouts = mine.timeouts;
	nl->errors = mine.errors;
	nl->rtt_mean_ns = mine.calls ? (double)mine.rtt_ns / mine.calls : 0;
	nl->total_mean_ns = mine.calls ? (double)mine.total_ns / mine.calls : 0;
	nl->queue_mean_ns = mine.calls ? (double)mine.queue_ns / mine.calls : 0;
	nl->round_trips = nl->sys.files_opened ? (double)mine.calls / nl->sys.files_opened : -1;
	nl->read_inflight = rs.calls ? (double)rs.inflight_sum / rs.calls : 0;
	nl->unattributed = all.calls - mine.calls;
	nl->inflight_end = nfs_rpc__inflight_end(r, NFS_WHO_TARGET_BIT);
	if (parent && parent != r) {
		nfs_rpc__sum(parent, NFS_WHO_ALL, &s);
		nl->client_calls = s.calls;
	}
}

void nfs_layers__measure(const struct trace *t, const struct nfs_rpc *r,
			 struct nfs_layers *nl)
{
	static const char *const rd[] = { "READ", "READ_PLUS" }, *const lk[] = { "LOOKUP" },
		*const ga[] = { "GETATTR" }, *const ac[] = { "ACCESS" }, *const op[] = { "OPEN" };

	memset(nl, 0, sizeof(*nl));
	nl->clid = r->clid;
	nl->mount = nfs_layers__mount(t, r);
	nfs_rpc__server(r, nl->server, sizeof(nl->server));
	nfs_rpc__version(r, nl->version, sizeof(nl->version));
	nl->nconnect = r->known ? r->info.nconnect : 0;
	options_of(nl);
	if (nl->mount)
		layers__mount_syscalls(t, nl->mount->dev, &nl->sys);
	calls_of(t, r, nl);
	per_file_of(r, nl);
	lat_of(r, rd, 2, &nl->read);
	lat_of(r, lk, 1, &nl->lookup);
	lat_of(r, ga, 1, &nl->getattr);
	lat_of(r, ac, 1, &nl->access);
	lat_of(r, op, 1, &nl->open);
}

const char *nfs_layers__fs(const struct nfs_layers *nl, char *buf, size_t len)
{
	if (nl->mount)
		snprintf(buf, len, "%s %s", nl->mount->fstype, nl->mount->source);
	else
		snprintf(buf, len, "nfs %s (v%s)", nl->server, nl->version);
	return buf;
}
