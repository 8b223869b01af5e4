// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per container: the cgroups that did I/O, labelled by their path under the
 * cgroup2 mount and, parsed from it, container_id, pod_uid and slurm_job
 * (empty where the path has none), as ebpf_exporter's users join them with
 * kube-state-metrics, and as a loop's workload is named
 * (iostorm_loop_cause): a pod's or a Slurm job's storage figures sum by
 * that label beside its loops' causes. Bounded by the cgroup table (model/cgroup.h): at most
 * its max series per family plus one, cgroup="other", that sums the rest;
 * iostorm_cgroups_folded_total counts the cgroups summed there.
 */
#include <stdio.h>
#include <stdlib.h>
#include "prom/prom_int.h"

enum { F_OPENS, F_STATS, F_READS, F_READ_BYTES, F_READ_S, F_META_S, F__MAX };

static const struct {
	const char *name, *help;
} fams[F__MAX] = {
	[F_OPENS] = { "iostorm_cgroup_opens_total", "Opens by the cgroup's threads." },
	[F_STATS] = { "iostorm_cgroup_stats_total", "Stat calls by the cgroup's threads." },
	[F_READS] = { "iostorm_cgroup_reads_total",
		      "Read calls on regular files by the cgroup's threads." },
	[F_READ_BYTES] = { "iostorm_cgroup_read_bytes_total",
			   "Bytes read from regular files by the cgroup's threads." },
	[F_READ_S] = { "iostorm_cgroup_read_seconds_total",
		       "Time in read calls on regular files, summed over the cgroup's threads, "
		       "seconds: its rate is the average number of threads waiting on reads." },
	[F_META_S] = { "iostorm_cgroup_meta_seconds_total",
		       "Time in open, stat, close and getdents, summed over the cgroup's "
		       "threads, seconds." },
};

static __u64 value_of(const struct cgroup_rec *r, int f)
{
	switch (f) {
	case F_OPENS: return r->io.opens;
	case F_STATS: return r->io.stats;
	case F_READS: return r->io.reads;
	case F_READ_BYTES: return r->io.read_bytes;
	case F_READ_S: return r->io.read_ns;
	default: return r->io.meta_ns;
	}
}

static void sample(struct prom *p, int f, const struct cgroup_rec *r)
{
	char id[32];
	struct label l[4] = {
		{ "cgroup", r->path },
		{ "container_id", r->name.container_id },
		{ "pod_uid", r->name.pod_uid },
		{ "slurm_job", r->name.slurm_job },
	};

	if (r->cgid == CGROUP_OTHER) {
		l[0].value = "other";
	} else if (!r->path) {
		snprintf(id, sizeof(id), "id:%llu", (unsigned long long)r->cgid);
		l[0].value = id;
	}
	if (f == F_READ_S || f == F_META_S)
		prom__sample_secs(p, fams[f].name, l, 4, value_of(r, f));
	else
		prom__sample_u64(p, fams[f].name, l, 4, value_of(r, f));
}

void prom__render_cgroups(struct prom *p, const struct trace *t)
{
	size_t n = 0;
	struct cgroup_rec **v = cgroups__sorted(&t->cgroups, &n);

	for (int f = 0; f < F__MAX; f++) {
		prom__family(p, fams[f].name, "counter", fams[f].help);
		for (size_t i = 0; v && i < n; i++)
			sample(p, f, v[i]);
	}
	free(v);
	prom__metric_u64(p, "iostorm_cgroups_folded_total", "counter",
			 "Cgroups whose I/O was summed into the cgroup=\"other\" series: "
			 "more cgroups than iostorm keeps series for.", t->cgroups.folded);
}
