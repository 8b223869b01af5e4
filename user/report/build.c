// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report of a trace, built once (report.h): what the sections print,
 * derived from the trace a single time whatever outputs are asked for, as
 * sysstat computes its figures once and hands them to either printer.
 */
#include <errno.h>
#include <stdlib.h>
#include "report/report_int.h"

int report__build(struct report **out, const struct trace *t, const struct findings *f)
{
	struct report *r = calloc(1, sizeof(*r));
	int n;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->t = t;
	r->f = f;
	trace__file_totals(&t->store, &r->tot);
	layers__measure(t, &r->layers);
	if (report__lists(&t->store, &r->lists))
		goto out_free_report;
	n = trace__mount_sums(t, &r->mounts);
	if (n < 0)
		goto out_free_report;
	r->nr_mounts = n;
	r->fuse = calloc(t->fuse.nr_conns ? t->fuse.nr_conns : 1, sizeof(*r->fuse));
	if (!r->fuse)
		goto out_free_report;
	for (size_t i = 0; i < t->fuse.nr_conns; i++)
		fuse_layers__measure(t, &t->fuse.conns[i], &r->fuse[i]);
	r->nfs = calloc(t->nfs.nr_rpcs ? t->nfs.nr_rpcs : 1, sizeof(*r->nfs));
	if (!r->nfs)
		goto out_free_report;
	for (size_t i = 0; i < t->nfs.nr_rpcs; i++)
		nfs_layers__measure(t, &t->nfs.rpcs[i], &r->nfs[i]);
	trace__file_sizes(&t->store, &r->file_sizes);
	if (report__groups(&t->store, &r->groups, &r->nr_groups))
		goto out_free_report;
	r->cgroups = cgroups__sorted(&t->cgroups, &r->nr_cgroups);
	if (!r->cgroups)
		goto out_free_report;
	*out = r;
	return 0;
out_free_report:
	report__free(r);
	return -ENOMEM;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	free(r->fuse);
	free(r->nfs);
	free(r->groups);
	free(r->cgroups);
	free(r->mounts);
	report__lists_free(&r->lists);
	free(r);
}
