// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The node's training loops by workload (report_int.h): each loop's pod,
 * Slurm job, cgroup or process, and what that workload's cgroups read.
 * Derived once per report (build.c), printed by stall.c in every format.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/counters.h"
#include "report/report_int.h"

const char *const work_kind_names[] = {
	[WORK_POD] = "pod", [WORK_SLURM] = "slurm_job", [WORK_CGROUP] = "cgroup",
	[WORK_PROCESS] = "process",
};

const char *report__loop_workload(const struct trace *t, const struct stall *s,
				  struct cgroup_name *n)
{
	const struct ledger_entry *e = ledger__find(&t->ledger, s->tgid);
	const struct cgroup_rec *r = s->cgid ? cgroups__find(&t->cgroups, s->cgid) : NULL;

	if (e && e->cgroup[0]) {
		*n = e->name;
		return e->cgroup;
	}
	if (!r || !r->path)
		return NULL;
	cgroup__parse(r->path, n);
	return r->path;
}

static bool same_workload(const struct workload *w, enum work_kind kind, const char *path,
			  const struct cgroup_name *n, const struct stall *s)
{
	if (w->kind != kind)
		return false;
	switch (kind) {
	case WORK_POD: return !strcmp(w->name.pod_uid, n->pod_uid);
	case WORK_SLURM: return !strcmp(w->name.slurm_job, n->slurm_job);
	case WORK_CGROUP: return !strcmp(w->path, path);
	default: return w->first->tgid == s->tgid;
	}
}

/* Does cgroup record r belong to workload w? */
static bool owns(const struct workload *w, const struct cgroup_rec *r)
{
	if (r->cgid == CGROUP_OTHER || !r->path)
		return false;
	switch (w->kind) {
	case WORK_POD: return !strcmp(r->name.pod_uid, w->name.pod_uid);
	case WORK_SLURM:
		/* A v1 Slurm job: its loop's own v2 cgroup at least. */
		return !strcmp(r->name.slurm_job, w->name.slurm_job) || !strcmp(r->path, w->path);
	case WORK_CGROUP: return !strcmp(r->path, w->path);
	default: return false;
	}
}

int report__workloads(const struct trace *t, struct workload **out, size_t **work_of_out)
{
	size_t *work_of = calloc(t->nr_loops ? t->nr_loops : 1, sizeof(*work_of));
	struct workload *v = calloc(t->nr_loops ? t->nr_loops : 1, sizeof(*v));
	const struct cgroups *c = &t->cgroups;
	size_t nr = 0;

	if (!v || !work_of) {
		free(v);
		free(work_of);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nr_loops; i++) {
		const struct stall *s = &t->loops[i];
		struct cgroup_name n = {};	/* a process's: no names */
		const char *path = report__loop_workload(t, s, &n);
		enum work_kind kind = !path ? WORK_PROCESS : n.pod_uid[0] ? WORK_POD :
				      n.slurm_job[0] ? WORK_SLURM : WORK_CGROUP;
		size_t k;

		for (k = 0; k < nr && !same_workload(&v[k], kind, path, &n, s); k++)
			;
		if (k == nr) {
			v[nr++] = (struct workload){ .kind = kind, .first = s, .path = path,
						     .name = n };
		}
		v[k].nr_loops++;
		work_of[i] = k;
	}
	for (size_t k = 0; k < nr; k++)
		for (size_t i = 0; i < c->nr; i++)
			if (owns(&v[k], &c->recs[i])) {
				io_counters__add(&v[k].io, &c->recs[i].io);
				v[k].cgroups++;
			}
	*out = v;
	*work_of_out = work_of;
	return nr;
}
