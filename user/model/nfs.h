/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The NFS layer as the trace saw it, per RPC client (one per NFS mount,
 * one per server for NFSv4's lease and session calls: enum nfs_role) and
 * procedure: ended calls per requester (enum nfs_who) with the figures of
 * /proc/self/mountstats, calls still in flight at the end, queue, round
 * trip, total and in-flight histograms per scope. collect/ fills it from
 * the kernel's NFS maps, which are cumulative: each read replaces the last.
 */
#ifndef MODEL_NFS_H
#define MODEL_NFS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"
#include "model/hist.h"

struct nfs_op {
	__u16 proc;				/* p_statidx: its line in mountstats */
	char name[NFS_PROC_NAME];		/* "READ"; "" until named */
	struct nfs_stats st[NFS_WHO__MAX];	/* ended calls */
	__u64 inflight_end[NFS_WHO__MAX];	/* in flight at the end */
	struct hist *hists[NFS_H__MAX][NFS_SCOPE__MAX];	/* NULL: empty */
};

struct nfs_rpc {
	__u32 clid;		/* the RPC client's id (rpc_clnt.cl_clid) */
	bool known;		/* info holds what the kernel said of it */
	struct nfs_clnt info;	/* role, mount (dev), parent, version, server */
	struct nfs_op *ops;	/* by procedure */
	size_t nr_ops;
};

struct nfs_layer {
	struct nfs_rpc *rpcs;	/* mounts first, busiest for the target first */
	size_t nr_rpcs;
};

/* Bits of enum nfs_who to sum over. */
#define NFS_WHO_BIT(w)		(1U << (w))
#define NFS_WHO_ALL		(NFS_WHO_BIT(NFS_WHO__MAX) - 1)
#define NFS_WHO_TARGET_BIT	NFS_WHO_BIT(NFS_WHO_TARGET)

void nfs_layer__free(struct nfs_layer *l);
/* clid's record, added empty when new; NULL when out of memory. */
struct nfs_rpc *nfs_layer__rpc(struct nfs_layer *l, __u32 clid);
struct nfs_rpc *nfs_layer__find(const struct nfs_layer *l, __u32 clid);
/* proc's record in r, added zeroed when new; NULL when out of memory. */
struct nfs_op *nfs_rpc__op(struct nfs_rpc *r, __u16 proc);
const struct nfs_op *nfs_rpc__find(const struct nfs_rpc *r, __u16 proc);
/* The first op of r named name ("READ"), NULL when none. */
const struct nfs_op *nfs_rpc__named(const struct nfs_rpc *r, const char *name);
/* Zero every count, keeping records and histograms: the maps are cumulative. */
void nfs_layer__clear_counts(struct nfs_layer *l);
/* Mounts first, then by the target's calls, all calls, clid; ops by procedure. */
void nfs_layer__sort(struct nfs_layer *l);
void nfs_stats__add(struct nfs_stats *dst, const struct nfs_stats *src);
/* Sum one procedure's (or, op NULL, nothing's) counts over requesters. */
void nfs_op__sum(const struct nfs_op *op, unsigned int who, struct nfs_stats *out);
void nfs_rpc__sum(const struct nfs_rpc *r, unsigned int who, struct nfs_stats *out);
/* Calls of r (every procedure) in flight at the end, of who. */
__u64 nfs_rpc__inflight_end(const struct nfs_rpc *r, unsigned int who);
/* A histogram of op, NULL when empty. */
const struct hist *nfs_op__hist(const struct nfs_op *op, int id, int scope);
/* Did the layer see any call? */
bool nfs_layer__active(const struct nfs_layer *l);
/* The op's name, or "PROC_12" when the kernel's was not read (buf). */
const char *nfs_op__name(const struct nfs_op *op, char *buf, size_t len);
/* "mount", "client", "unknown". */
const char *nfs__role_name(__u8 role);
/* The server's address in r's info ("10.0.0.5", "fd00::5"); "?" when unknown. */
const char *nfs_rpc__server(const struct nfs_rpc *r, char *buf, size_t len);
/* "4.2", "3"; "?" when unknown (minor: 0 when the kernel did not say). */
const char *nfs_rpc__version(const struct nfs_rpc *r, char *buf, size_t len);

#endif /* MODEL_NFS_H */
