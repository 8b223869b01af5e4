// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NFS layer's families: calls per RPC client (an NFS mount's, or the
 * NFS client's own to a server), procedure and requester; their
 * retransmissions, timeouts, errors and bytes, as /proc/self/mountstats
 * counts them; the target's round trip and call latency per procedure. An
 * RPC client is labelled by its mount point, server, NFS version and role:
 * one series set per NFS mount, never per file or process.
 */
#include <stddef.h>
#include <stdio.h>
#include "model/nfs_layers.h"
#include "prom/prom_int.h"

static const char *const nfs_who_names[NFS_WHO__MAX] = {
	[NFS_WHO_TARGET] = "target",
	[NFS_WHO_CLIENT] = "client",
	[NFS_WHO_OTHER] = "other",
	[NFS_WHO_UNTRACKED] = "untracked",
};

struct rpc_labels {
	struct label l[6];
	char server[48], version[8], name[24];
};

/* mount, server, version, role, procedure: the labels every NFS series has. */
static void rpc_labels(const struct trace *t, const struct nfs_rpc *r, const struct nfs_op *op,
		       struct rpc_labels *rl)
{
	const struct mount_rec *m = nfs_layers__mount(t, r);

	rl->l[0] = (struct label){ "mount", m ? m->point : "" };
	rl->l[1] = (struct label){ "server", nfs_rpc__server(r, rl->server, sizeof(rl->server)) };
	rl->l[2] = (struct label){ "version", nfs_rpc__version(r, rl->version,
							       sizeof(rl->version)) };
	rl->l[3] = (struct label){ "role", nfs__role_name(r->known ? r->info.role :
							  NFS_ROLE_UNKNOWN) };
	rl->l[4] = (struct label){ "procedure", nfs_op__name(op, rl->name, sizeof(rl->name)) };
}

static void nfs_calls(struct prom *p, const struct trace *t)
{
	const char *name = "iostorm_nfs_calls_total";
	struct rpc_labels rl;

	prom__family(p, name, "counter",
		     "NFS calls ended, per RPC client (mount), procedure and requester: target, "
		     "client (the NFS client's own threads), other processes, untracked "
		     "(begun before the attach); mountstats' ops.");
	for (size_t i = 0; i < t->nfs.nr_rpcs; i++) {
		const struct nfs_rpc *r = &t->nfs.rpcs[i];

		for (size_t k = 0; k < r->nr_ops; k++) {
			rpc_labels(t, r, &r->ops[k], &rl);
			for (int w = 0; w < NFS_WHO__MAX; w++) {
				if (!r->ops[k].st[w].calls && w != NFS_WHO_TARGET)
					continue;
				rl.l[5] = (struct label){ "requester", nfs_who_names[w] };
				prom__sample_u64(p, name, rl.l, 6, r->ops[k].st[w].calls);
			}
		}
	}
}

/* Retransmissions, the one sum not a field of struct nfs_stats. */
#define RETRANS		((size_t)-1)

/*
 * A counter of every requester's calls: the field at off of struct
 * nfs_stats, or RETRANS.
 */
static void nfs_sums(struct prom *p, const struct trace *t, const char *name, const char *help,
		     size_t off)
{
	struct rpc_labels rl;

	prom__family(p, name, "counter", help);
	for (size_t i = 0; i < t->nfs.nr_rpcs; i++) {
		const struct nfs_rpc *r = &t->nfs.rpcs[i];

		for (size_t k = 0; k < r->nr_ops; k++) {
			struct nfs_stats s;
			__u64 v;

			nfs_op__sum(&r->ops[k], NFS_WHO_ALL, &s);
			if (!s.calls)
				continue;
			if (off == RETRANS)
				v = s.trans > s.calls ? s.trans - s.calls : 0;
			else
				v = *(const __u64 *)((const char *)&s + off);
			rpc_labels(t, r, &r->ops[k], &rl);
			prom__sample_u64(p, name, rl.l, 5, v);
		}
	}
}

/* The target's histogram id of every procedure, with its exact sum at off. */
static void nfs_hists(struct prom *p, const struct trace *t, const char *name, const char *help,
		      int id, size_t off)
{
	static const struct hist empty;
	struct rpc_labels rl;

	prom__family(p, name, "histogram", help);
	for (size_t i = 0; i < t->nfs.nr_rpcs; i++) {
		const struct nfs_rpc *r = &t->nfs.rpcs[i];

		for (size_t k = 0; k < r->nr_ops; k++) {
			const struct nfs_op *op = &r->ops[k];
			const struct hist *h = nfs_op__hist(op, id, NFS_SCOPE_TARGET);

			if (!op->st[NFS_WHO_TARGET].calls)
				continue;
			rpc_labels(t, r, op, &rl);
			prom__hist_samples(p, name, rl.l, 5, h ? h : &empty, UNIT_NS,
					   (const __u64 *)((const char *)&op->st[NFS_WHO_TARGET] +
							   off));
		}
	}
}

void prom__render_nfs(struct prom *p, const struct trace *t)
{
	nfs_calls(p, t);
	nfs_sums(p, t, "iostorm_nfs_retransmissions_total",
		 "NFS calls' transmissions beyond the first, per procedure, every requester.",
		 RETRANS);
	nfs_sums(p, t, "iostorm_nfs_timeouts_total",
		 "NFS calls' major timeouts, per procedure, every requester.",
		 offsetof(struct nfs_stats, timeouts));
	nfs_sums(p, t, "iostorm_nfs_errors_total",
		 "NFS calls that ended with an error, per procedure, every requester.",
		 offsetof(struct nfs_stats, errors));
	nfs_sums(p, t, "iostorm_nfs_sent_bytes_total",
		 "NFS calls' request bytes sent (RPC header included), per procedure.",
		 offsetof(struct nfs_stats, bytes_sent));
	nfs_sums(p, t, "iostorm_nfs_received_bytes_total",
		 "NFS calls' reply bytes received (RPC header included; READ: the data "
		 "read), per procedure.", offsetof(struct nfs_stats, bytes_recv));
	nfs_hists(p, t, "iostorm_nfs_rtt_seconds",
		  "Round trip of the target's NFS calls (transmission to reply), per "
		  "procedure, seconds.", NFS_H_RTT, offsetof(struct nfs_stats, rtt_ns));
	nfs_hists(p, t, "iostorm_nfs_call_seconds",
		  "The target's NFS calls, begin to end (queue and round trip), per "
		  "procedure, seconds.", NFS_H_TOTAL, offsetof(struct nfs_stats, total_ns));
}
