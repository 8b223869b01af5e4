/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The diagnosis: from the figures of one trace (struct evidence, see
 * evidence.h) and the thresholds (thresholds.h) to findings with a
 * severity, the numbers behind them and advice, and one verdict line.
 * Pure code: no BPF, unit-tested. Rules, thresholds and advice are
 * described in docs/findings.md; the rules are in verdict_access.c and
 * verdict_bound.c, their order and the verdict line in verdict.c.
 */
#ifndef VERDICT_H
#define VERDICT_H

#include <stddef.h>
#include "findings/evidence.h"
#include "findings/layers.h"	/* enum layer_verdict: where a read's time goes */
#include "findings/thresholds.h"

enum severity {
	SEV_OK = 0,
	SEV_INFO,
	SEV_WARN,
	SEV_HIGH,
};

#define FINDING_FIGURES	16

struct figure {
	const char *name;		/* JSON key, e.g. "files_per_s" */
	double value;
	const char *unit;		/* "files/s", "bytes", "fraction" (0..1), ... */
};

struct finding {
	const char *id;			/* stable: small_file_storm, ... */
	enum severity severity;
	char label[64];			/* what was found, a few words for the verdict line */
	char fix[64];			/* the first thing to do, imperative; may be empty */
	char summary[256];		/* one line, with its numbers */
	char advice[512];
	struct figure figures[FINDING_FIGURES];
	int nr_figures;
};

/* Room for every finding verdict__judge() can return. */
#define VERDICT_MAX_FINDINGS	16

/* Fill out[] (at most max) ordered by severity; returns how many. */
int verdict__judge(const struct evidence *e, const struct thresholds *t,
		   struct finding *out, int max);
/* One line: the worst finding in words, or that storage is fine. */
void verdict__headline(const struct finding *f, int n, char *buf, size_t len);
/* A figure of f by name; NULL when f does not cite it. */
const struct figure *finding__figure(const struct finding *f, const char *name);
const char *severity__name(enum severity s);
/* Same as layers__key(): kept for the report code. */
const char *layer__name(enum layer_verdict l);

#endif /* VERDICT_H */
