/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Latency by layer for NFS: per RPC client of a mount, the target's
 * syscalls on the mount's files (read(), open/stat) next to the NFS calls
 * they caused (READ and READ_PLUS; LOOKUP, OPEN, GETATTR, ACCESS), and
 * the round trips each file opened costs, by procedure. Measured, not
 * judged: sums, means and percentiles.
 */
#ifndef MODEL_NFS_LAYERS_H
#define MODEL_NFS_LAYERS_H

#include <stdbool.h>
#include <linux/types.h>
#include <stddef.h>
#include "iostorm.h"		/* NFS_PROC_NAME */
#include "model/layers.h"	/* struct layer_lat, struct mount_syscalls */

struct trace;
struct nfs_rpc;
struct mount_rec;

#define NFS_PER_FILE	6	/* procedures listed per file, most first */

/* One procedure's calls per file opened. */
struct nfs_per_file {
	char name[NFS_PROC_NAME];
	double calls;
};

struct nfs_layers {
	__u32 clid;
	const struct mount_rec *mount;	/* NULL when not in mountinfo */
	char server[48];		/* "10.0.0.5"; "?" */
	char version[8];		/* "4.2", "3"; "?" */
	__u32 nconnect;			/* connections; 0 when unknown */
	__u64 rsize;			/* bytes per READ at most (mount option); 0 unknown */
	bool nocto;			/* mounted nocto: no GETATTR at open */
	bool actimeo;			/* attribute cache times set (actimeo, acregmin...) */
	struct mount_syscalls sys;	/* the target's syscalls on the mount's files */
	/* the target's NFS calls on the mount's RPC client */
	__u64 calls;
	__u64 read_calls;	/* READ and READ_PLUS */
	__u64 read_call_bytes;	/* their reply bytes, RPC headers included */
	__u64 retrans;		/* transmissions beyond the first */
	__u64 timeouts;
	__u64 errors;
	double rtt_mean_ns;	/* every call: transmission -> reply */
	double total_mean_ns;	/* every call: begin -> end (queue and client included) */
	double queue_mean_ns;	/* every call: begin -> transmission */
	double round_trips;	/* calls per file opened; -1 without opens */
	double read_inflight;	/* READ calls in flight at begin, mean */
	struct nfs_per_file per_file[NFS_PER_FILE];	/* by procedure, most first */
	int nr_per_file;
	struct layer_lat read;		/* READ, READ_PLUS: begin -> end */
	struct layer_lat lookup;
	struct layer_lat getattr;
	struct layer_lat access;
	struct layer_lat open;		/* OPEN (NFSv4) */
	__u64 unattributed;	/* the client's threads, other processes, untracked */
	__u64 inflight_end;	/* the target's, still in flight at the end */
	__u64 client_calls;	/* the NFS client's own calls to this server
				 * (its parent RPC client: NFSv4 leases, sessions) */
};

/* The NFS layers of RPC client r in t. */
void nfs_layers__measure(const struct trace *t, const struct nfs_rpc *r,
			 struct nfs_layers *nl);
/* "nfs4 10.0.0.5:/data", else "nfs 10.0.0.5 (v4.2)" when the mount is unknown. */
const char *nfs_layers__fs(const struct nfs_layers *nl, char *buf, size_t len);
/* The mount of RPC client r: by its device, else the one NFS mount of its server. */
const struct mount_rec *nfs_layers__mount(const struct trace *t, const struct nfs_rpc *r);

#endif /* MODEL_NFS_LAYERS_H */
