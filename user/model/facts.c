// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The measured facts of a trace, see facts.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/facts.h"

int facts__measure(struct facts *fa, const struct trace *t)
{
	memset(fa, 0, sizeof(*fa));
	/* Room for one at least: calloc(0) may return NULL. */
	fa->fuse = calloc(t->fuse.nr_conns ? t->fuse.nr_conns : 1, sizeof(*fa->fuse));
	fa->nfs = calloc(t->nfs.nr_rpcs ? t->nfs.nr_rpcs : 1, sizeof(*fa->nfs));
	if (!fa->fuse || !fa->nfs) {
		facts__free(fa);
		return -ENOMEM;
	}
	trace__file_totals(&t->store, &fa->tot);
	layers__measure(t, &fa->layers);
	for (size_t i = 0; i < t->fuse.nr_conns; i++)
		fuse_layers__measure(t, &t->fuse.conns[i], &fa->fuse[i]);
	for (size_t i = 0; i < t->nfs.nr_rpcs; i++)
		nfs_layers__measure(t, &t->nfs.rpcs[i], &fa->nfs[i]);
	return 0;
}

void facts__free(struct facts *fa)
{
	free(fa->fuse);
	free(fa->nfs);
	fa->fuse = NULL;
	fa->nfs = NULL;
}
