/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Private to prom/, whose files together implement prom.h: the text format
 * writer (text.c), the metric families (families.c, and block.c,
 * cgroups.c and fuse.c by layer), the textfile (textfile.c), and the
 * server that keeps a snapshot between publishes and judges the live
 * findings (server.c).
 */
#ifndef PROM_INT_H
#define PROM_INT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "findings/findings.h"
#include "model/hist.h"
#include "model/trace.h"
#include "prom/prom.h"

struct label {
	const char *name;
	const char *value;
};

/* The text being written. */
struct prom {
	FILE *out;
	const char *job;	/* training_job on every sample; NULL: none */
	int err;		/* the first failed write's -errno, kept for the caller */
	size_t max_series;	/* labelled series on the page at most; 0: no bound */
	size_t series;		/* labelled series written */
	__u64 dropped;		/* labelled series left out */
	bool whole;		/* inside a histogram admitted whole */
};

enum hist_unit {
	UNIT_NS,	/* exposed in seconds */
	UNIT_BYTES,
	UNIT_COUNT,	/* a count (requests): the bytes' bounds, 0 first */
};

/* ---- the text format (text.c) ---- */

/* The HELP and TYPE lines of a family. */
void prom__family(struct prom *p, const char *name, const char *type, const char *help);
/*
 * One sample: name+suffix{training_job, labels..., le} value; a labelled
 * one past max_series is counted in dropped instead (a histogram's, all
 * of them or none).
 */
void prom__sample(struct prom *p, const char *name, const char *suffix,
		  const struct label *l, int n, const char *le, const char *value);
void prom__sample_u64(struct prom *p, const char *name, const struct label *l, int n,
		      __u64 v);
/* ns as exact decimal seconds. */
void prom__sample_secs(struct prom *p, const char *name, const struct label *l, int n,
		       __u64 ns);
/* A family with one unlabelled sample. */
void prom__metric_u64(struct prom *p, const char *name, const char *type,
		      const char *help, __u64 v);
/*
 * The samples of one histogram: cumulative buckets, +Inf (== _count, both
 * from the slots), _sum from the exact sum when known (sum != NULL).
 */
void prom__hist_samples(struct prom *p, const char *name, const struct label *l, int n,
			const struct hist *h, enum hist_unit unit, const __u64 *sum);

/* ---- the metric families by layer (block.c, cgroups.c, fuse.c) ---- */

/* The block layer's families. */
void prom__render_block(struct prom *p, const struct trace *t);
/* Per cgroup (container) families, bounded. */
void prom__render_cgroups(struct prom *p, const struct trace *t);
/* The FUSE layer's families. */
void prom__render_fuse(struct prom *p, const struct trace *t);
/* The NFS layer's families (nfs.c). */
void prom__render_nfs(struct prom *p, const struct trace *t);

#endif /* PROM_INT_H */
