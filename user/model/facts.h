/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The measured facts of a trace that both its judgement (findings/) and
 * its report (report/) read: the file totals, the latency by layer and
 * the FUSE and NFS layers of every connection and RPC client. Measured
 * once (facts__measure()) by whoever judges and reports, and handed to
 * both, so neither measures again and the two tell the same story.
 */
#ifndef MODEL_FACTS_H
#define MODEL_FACTS_H

#include "model/fuse_layers.h"
#include "model/layers.h"
#include "model/nfs_layers.h"
#include "model/trace.h"	/* struct file_totals */

struct facts {
	struct file_totals tot;		/* trace__file_totals() */
	struct layers layers;		/* layers__measure() */
	struct fuse_layers *fuse;	/* one per t->fuse.conns[], in its order */
	struct nfs_layers *nfs;		/* one per t->nfs.rpcs[], in its order */
};

/*
 * Measure the facts of t into fa. They point into t, which must outlive
 * them. 0 or -ENOMEM (then fa holds nothing). Free with facts__free().
 */
int facts__measure(struct facts *fa, const struct trace *t);
void facts__free(struct facts *fa);

#endif /* MODEL_FACTS_H */
