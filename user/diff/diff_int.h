/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the diff_*.c files share and nothing else sees: the metric table,
 * severity names, value formatting, and one run of "iostorm diff" as the
 * command line builds it and the printers read it. The public API is in
 * diff.h.
 */
#ifndef DIFF_INT_H
#define DIFF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "diff/diff.h"

/* Findings no --fail-on names are gated on this: a new HIGH fails. */
#define DIFF_DEFAULT_FINDING_LIMIT	"finding:*>=HIGH"

/* One row of the metric table, indexed by enum diff_metric. */
struct diff_metric_info {
	const char *name;
	enum diff_kind kind;
	const char *limit;	/* the default limit, or NULL */
	const char *samples;	/* percentiles: what one sample is */
	const char *what;	/* --help: what it is, and from which key */
};

extern const struct diff_metric_info diff_metrics[DM__MAX];

/* "OK" .. "HIGH", or "-" for DIFF_SEV_NONE. */
const char *diff__sev_name(int sev);
/* The DIFF_SEV_* of a name (any case), or DIFF_SEV_NONE. */
int diff__sev_parse(const char *s);
/* Value v of metric m in its unit ("1.50ms", "12.0 MiB", "35.0%"). */
const char *diff__fmt_value(char *buf, size_t len, int m, double v);
/* The change from b to n: relative, or in points for shares. */
const char *diff__fmt_change(char *buf, size_t len, int m, double b, double n);

/* One run: options, reports, results. */
struct diff_run {
	const char *path[2];		/* BASE, NEW */
	json_t *root[2];
	struct diff_figures fig[2];
	struct diff_limit limits[DIFF_MAX_LIMITS];
	enum diff_status status[DIFF_MAX_LIMITS];
	char why[DIFF_MAX_LIMITS][192];
	int nr_limits;
	int failed, unchecked;
	bool json, force, no_defaults;
};

/* Phase against phase, when both runs changed (phases.c): text, and the JSON array. */
void diff__print_phases_text(FILE *out, const struct diff_run *r);
json_t *diff__phases_json(const struct diff_run *r);
/* The comparison as a table, then the verdict. */
void diff__print_text(FILE *out, const struct diff_run *r);
/* The comparison as JSON (DIFF_OUT_SCHEMA); 0, -ENOMEM or -EIO. */
int diff__print_json(FILE *out, const struct diff_run *r);

#endif /* DIFF_INT_H */
