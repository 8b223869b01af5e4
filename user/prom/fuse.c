// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The FUSE layer's families: requests per connection, opcode and
 * requester, the target's reply bytes and latency per opcode. A connection
 * is labelled by its device and, when known, its mount point and type: one
 * series set per FUSE mount, never per file or process.
 */
#include <stdio.h>
#include "lib/units.h"
#include "prom/prom_int.h"

static const char *const fuse_who_names[FUSE_WHO__MAX] = {
	[FUSE_WHO_TARGET] = "target",
	[FUSE_WHO_BACKGROUND] = "background",
	[FUSE_WHO_OTHER] = "other",
	[FUSE_WHO_UNTRACKED] = "untracked",
};

/* connection, mount, fstype, opcode: the labels every FUSE series has. */
static void conn_labels(const struct trace *t, const struct fuse_conn *c,
			const struct fuse_op *op, struct label l[4], char dev[24], char opn[24])
{
	const struct mount_rec *m = mounts__find(&t->mounts, c->conn);

	l[0] = (struct label){ "connection", units__dev(dev, 24, c->conn) };
	l[1] = (struct label){ "mount", m ? m->point : "" };
	l[2] = (struct label){ "fstype", m ? m->fstype : "" };
	l[3] = (struct label){ "opcode", fuse__op_name(op->opcode, opn, 24) };
}

static void fuse_requests(struct prom *p, const struct trace *t)
{
	const char *name = "iostorm_fuse_requests_total";
	char dev[24], opn[24];
	struct label l[5];

	prom__family(p, name, "counter",
		     "FUSE requests ended, per connection, opcode and requester: target, "
		     "background (kernel threads, background requests of others), other "
		     "processes, untracked (sent before the attach).");
	for (size_t i = 0; i < t->fuse.nr_conns; i++) {
		const struct fuse_conn *c = &t->fuse.conns[i];

		for (size_t k = 0; k < c->nr_ops; k++) {
			conn_labels(t, c, &c->ops[k], l, dev, opn);
			for (int w = 0; w < FUSE_WHO__MAX; w++) {
				if (!c->ops[k].st[w].reqs && w != FUSE_WHO_TARGET)
					continue;
				l[4] = (struct label){ "requester", fuse_who_names[w] };
				prom__sample_u64(p, name, l, 5, c->ops[k].st[w].reqs);
			}
		}
	}
}

static void fuse_target(struct prom *p, const struct trace *t)
{
	const char *bytes = "iostorm_fuse_reply_bytes_total";
	const char *lat = "iostorm_fuse_request_latency_seconds";
	char dev[24], opn[24];
	struct label l[4];

	prom__family(p, bytes, "counter",
		     "Reply payload of the target's FUSE requests, bytes (for READ: the bytes read).");
	for (size_t i = 0; i < t->fuse.nr_conns; i++)
		for (size_t k = 0; k < t->fuse.conns[i].nr_ops; k++) {
			const struct fuse_op *op = &t->fuse.conns[i].ops[k];

			conn_labels(t, &t->fuse.conns[i], op, l, dev, opn);
			prom__sample_u64(p, bytes, l, 4, op->st[FUSE_WHO_TARGET].out_bytes);
		}
	prom__family(p, lat, "histogram",
		     "Latency of the target's FUSE requests (send to end), per opcode, seconds.");
	for (size_t i = 0; i < t->fuse.nr_conns; i++)
		for (size_t k = 0; k < t->fuse.conns[i].nr_ops; k++) {
			const struct fuse_op *op = &t->fuse.conns[i].ops[k];
			const struct hist *h = fuse_op__hist(op, FUSE_H_LAT, FUSE_SCOPE_TARGET);
			static const struct hist empty;

			if (!op->st[FUSE_WHO_TARGET].reqs)
				continue;
			conn_labels(t, &t->fuse.conns[i], op, l, dev, opn);
			prom__hist_samples(p, lat, l, 4, h ? h : &empty, UNIT_NS,
					   &op->st[FUSE_WHO_TARGET].total_ns);
		}
}

void prom__render_fuse(struct prom *p, const struct trace *t)
{
	fuse_requests(p, t);
	fuse_target(p, t);
}
