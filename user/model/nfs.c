// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The NFS layer per RPC client and procedure, see nfs.h. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "model/nfs.h"

static void op_free(struct nfs_op *op)
{
	for (int h = 0; h < NFS_H__MAX; h++)
		for (int s = 0; s < NFS_SCOPE__MAX; s++)
			free(op->hists[h][s]);
}

void nfs_layer__free(struct nfs_layer *l)
{
	for (size_t i = 0; i < l->nr_rpcs; i++) {
		for (size_t k = 0; k < l->rpcs[i].nr_ops; k++)
			op_free(&l->rpcs[i].ops[k]);
		free(l->rpcs[i].ops);
	}
	free(l->rpcs);
	l->rpcs = NULL;
	l->nr_rpcs = 0;
}

struct nfs_rpc *nfs_layer__find(const struct nfs_layer *l, __u32 clid)
{
	for (size_t i = 0; i < l->nr_rpcs; i++)
		if (l->rpcs[i].clid == clid)
			return &l->rpcs[i];
	return NULL;
}

struct nfs_rpc *nfs_layer__rpc(struct nfs_layer *l, __u32 clid)
{
	struct nfs_rpc *r = nfs_layer__find(l, clid), *v;

	if (r)
		return r;
	v = realloc(l->rpcs, (l->nr_rpcs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	l->rpcs = v;
	r = &l->rpcs[l->nr_rpcs++];
	memset(r, 0, sizeof(*r));
	r->clid = clid;
	return r;
}

const struct nfs_op *nfs_rpc__find(const struct nfs_rpc *r, __u16 proc)
{
	for (size_t i = 0; i < r->nr_ops; i++)
		if (r->ops[i].proc == proc)
			return &r->ops[i];
	return NULL;
}

const struct nfs_op *nfs_rpc__named(const struct nfs_rpc *r, const char *name)
{
	for (size_t i = 0; r && i < r->nr_ops; i++)
		if (!strcmp(r->ops[i].name, name))
			return &r->ops[i];
	return NULL;
}

struct nfs_op *nfs_rpc__op(struct nfs_rpc *r, __u16 proc)
{
	struct nfs_op *op = (struct nfs_op *)nfs_rpc__find(r, proc), *v;

	if (op)
		return op;
	v = realloc(r->ops, (r->nr_ops + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->ops = v;
	op = &r->ops[r->nr_ops++];
	memset(op, 0, sizeof(*op));
	op->proc = proc;
	return op;
}

void nfs_layer__clear_counts(struct nfs_layer *l)
{
	for (size_t i = 0; i < l->nr_rpcs; i++)
		for (size_t k = 0; k < l->rpcs[i].nr_ops; k++) {
			struct nfs_op *op = &l->rpcs[i].ops[k];

			memset(op->st, 0, sizeof(op->st));
			memset(op->inflight_end, 0, sizeof(op->inflight_end));
		}
}

void nfs_stats__add(struct nfs_stats *dst, const struct nfs_stats *src)
{
	dst->calls += src->calls;
	dst->trans += src->trans;
	dst->timeouts += src->timeouts;
	dst->bytes_sent += src->bytes_sent;
	dst->bytes_recv += src->bytes_recv;
	dst->queue_ns += src->queue_ns;
	dst->rtt_ns += src->rtt_ns;
	dst->total_ns += src->total_ns;
	dst->errors += src->errors;
	dst->async += src->async;
	dst->inflight_sum += src->inflight_sum;
}

void nfs_op__sum(const struct nfs_op *op, unsigned int who, struct nfs_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!op)
		return;
	for (int w = 0; w < NFS_WHO__MAX; w++)
		if (who & NFS_WHO_BIT(w))
			nfs_stats__add(out, &op->st[w]);
}

void nfs_rpc__sum(const struct nfs_rpc *r, unsigned int who, struct nfs_stats *out)
{
	struct nfs_stats s;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < r->nr_ops; i++) {
		nfs_op__sum(&r->ops[i], who, &s);
		nfs_stats__add(out, &s);
	}
}

__u64 nfs_rpc__inflight_end(const struct nfs_rpc *r, unsigned int who)
{
	__u64 n = 0;

	for (size_t i = 0; i < r->nr_ops; i++)
		for (int w = 0; w < NFS_WHO__MAX; w++)
			if (who & NFS_WHO_BIT(w))
				n += r->ops[i].inflight_end[w];
	return n;
}

const struct hist *nfs_op__hist(const struct nfs_op *op, int id, int scope)
{
	if (!op || id < 0 || id >= NFS_H__MAX || scope < 0 || scope >= NFS_SCOPE__MAX)
		return NULL;
	return op->hists[id][scope];
}

bool nfs_layer__active(const struct nfs_layer *l)
{
	for (size_t i = 0; i < l->nr_rpcs; i++) {
		struct nfs_stats s;

		nfs_rpc__sum(&l->rpcs[i], NFS_WHO_ALL, &s);
		if (s.calls || nfs_rpc__inflight_end(&l->rpcs[i], NFS_WHO_ALL))
			return true;
	}
	return false;
}

static __u64 rpc_calls(const struct nfs_rpc *r, unsigned int who)
{
	struct nfs_stats s;

	nfs_rpc__sum(r, who, &s);
	return s.calls;
}

static int rpc_cmp(const void *pa, const void *pb)
{
	const struct nfs_rpc *a = pa, *b = pb;
	int ma = a->info.role == NFS_ROLE_MOUNT, mb = b->info.role == NFS_ROLE_MOUNT;
	__u64 ta = rpc_calls(a, NFS_WHO_TARGET_BIT), tb = rpc_calls(b, NFS_WHO_TARGET_BIT);
	__u64 aa = rpc_calls(a, NFS_WHO_ALL), ab = rpc_calls(b, NFS_WHO_ALL);

	if (ma != mb)
		return mb - ma;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	if (aa != ab)
		return aa > ab ? -1 : 1;
	return a->clid < b->clid ? -1 : a->clid > b->clid;
}

static int op_cmp(const void *pa, const void *pb)
{
	const struct nfs_op *a = pa, *b = pb;

	return (int)a->proc - (int)b->proc;
}

void nfs_layer__sort(struct nfs_layer *l)
{
	for (size_t i = 0; i < l->nr_rpcs; i++)
		if (l->rpcs[i].nr_ops > 1)
			qsort(l->rpcs[i].ops, l->rpcs[i].nr_ops, sizeof(struct nfs_op), op_cmp);
	if (l->nr_rpcs > 1)
		qsort(l->rpcs, l->nr_rpcs, sizeof(*l->rpcs), rpc_cmp);
}

const char *nfs_op__name(const struct nfs_op *op, char *buf, size_t len)
{
	if (op->name[0])
		return op->name;
	snprintf(buf, len, "PROC_%u", op->proc);
	return buf;
}

const char *nfs__role_name(__u8 role)
{
	switch (role) {
	case NFS_ROLE_MOUNT:
		return "mount";
	case NFS_ROLE_CLIENT:
		return "client";
	default:
		return "unknown";
	}
}

const char *nfs_rpc__server(const struct nfs_rpc *r, char *buf, size_t len)
{
	const struct nfs_clnt *c = &r->info;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	sa_family_t family;

	snprintf(buf, len, "?");
	if (!r->known || c->addrlen < sizeof(family))
		return buf;
	memcpy(&family, c->addr, sizeof(family));
	if (family == AF_INET && c->addrlen >= sizeof(in)) {
		memcpy(&in, c->addr, sizeof(in));
		inet_ntop(AF_INET, &in.sin_addr, buf, len);
	} else if (family == AF_INET6 && c->addrlen >= sizeof(in6)) {
		memcpy(&in6, c->addr, sizeof(in6));
		inet_ntop(AF_INET6, &in6.sin6_addr, buf, len);
	}
	return buf;
}

const char *nfs_rpc__version(const struct nfs_rpc *r, char *buf, size_t len)
{
	if (!r->known || !r->info.vers)
		snprintf(buf, len, "?");
	else if (r->info.vers == 4 && r->info.role != NFS_ROLE_UNKNOWN)
		snprintf(buf, len, "4.%u", r->info.minor);
	else
		snprintf(buf, len, "%u", r->info.vers);
	return buf;
}
