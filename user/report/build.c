// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report of a trace, built once (report.h): what the sections print,
 * derived from the trace a single time whatever outputs are asked for, as
 * sysstat computes its figures once and hands them to either printer. The
 * measured facts (model/facts.h) are the caller's: the findings were
 * judged on the same ones.
 */
#include <errno.h>
#include <stdlib.h>
#include "report/report_int.h"

int report__build(struct report **out, const struct trace *t, const struct facts *fa,
		  const struct findings *f)
{
	struct report *r = calloc(1, sizeof(*r));
	int n;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->t = t;
	r->fa = fa;
	r->f = f;
	if (report__lists(&t->store, &r->lists))
		goto out_free_report;
	n = trace__mount_sums(t, &r->mounts);
	if (n < 0)
		goto out_free_report;
	r->nr_mounts = n;
	trace__file_sizes(&t->store, &r->file_sizes);
	if (report__groups(&t->store, &r->groups, &r->nr_groups))
		goto out_free_report;
	r->cgroups = cgroups__sorted(&t->cgroups, &r->nr_cgroups);
	if (!r->cgroups)
		goto out_free_report;
	n = report__workloads(t, &r->workloads, &r->work_of);
	if (n < 0)
		goto out_free_report;
	r->nr_workloads = n;
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
	free(r->groups);
	free(r->cgroups);
	free(r->workloads);
	free(r->work_of);
	free(r->mounts);
	report__lists_free(&r->lists);
	free(r);
}
