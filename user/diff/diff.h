/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * iostorm diff BASE.json NEW.json: compare two reports of the same
 * workload (before and after a data-loader change), print the figures
 * that matter side by side, and exit 1 when NEW regresses past a limit,
 * so a CI job can gate on it. No BPF: pure code over jansson, unit-tested.
 * Metrics, limits and exit codes are described in docs/diff.md.
 */
#ifndef DIFF_H
#define DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "lib/schema.h"	/* IOSTORM_REPORT_SCHEMA: the only schema compared */

#define DIFF_OUT_SCHEMA		"iostorm.diff/1"	/* what --json prints */
#define DIFF_MIN_SAMPLES	100	/* fewer calls: a percentile is not checked */
#define DIFF_MAX_FINDINGS	32
#define DIFF_MAX_LIMITS		64

/* Exit codes of iostorm diff, also in --help and docs/diff.md. */
enum diff_exit {
	DIFF_EXIT_OK = 0,		/* no regression */
	DIFF_EXIT_REGRESSED = 1,	/* NEW regresses past a limit */
	DIFF_EXIT_USAGE = 2,		/* bad command line or limit */
	DIFF_EXIT_UNUSABLE = 3,		/* a report missing, not JSON, or not comparable */
	DIFF_EXIT_WRITE = 4,		/* the comparison could not be written */
};

/* Metrics, in table order; docs/diff.md lists them (keep in sync). */
enum diff_metric {
	DM_FILES,
	DM_OPENS,
	DM_READS,
	DM_READ_BYTES,
	DM_STATS,
	DM_OPENS_PER_FILE,
	DM_READS_PER_FILE,
	DM_STATS_PER_FILE,
	DM_BYTES_PER_READ,
	DM_SMALL_READ_SHARE,
	DM_RANDOM_SHARE,
	DM_FAULT_READS_PER_FILE,
	DM_FAULT_RANDOM_SHARE,
	DM_META_SHARE,
	DM_READ_P50,
	DM_READ_P99,
	DM_OPEN_P99,
	DM_BLK_READS,
	DM_BLK_RANDOM_SHARE,
	DM_BLK_P50,
	DM_BLK_P99,
	DM_IO_WAIT_SHARE,
	DM_STALL_SHARE,
	DM_WRITE_SHARE,
	DM_WRITES,
	DM_WRITE_BYTES,
	DM_LOOP_TIME,
	DM_FUSE_REQS_PER_FILE,
	DM_FUSE_RTT,
	DM_NFS_CALLS_PER_FILE,
	DM_NFS_RTT,
	DM_DURATION,
	DM__MAX,
};

enum diff_kind {
	DK_COUNT,	/* exact counts */
	DK_BYTES,
	DK_RATIO,	/* a count per file or per read */
	DK_SHARE,	/* 0..1 */
	DK_TIME,	/* ns */
};

/* The figures of one report; have[m] false when the report lacks them. */
struct diff_figures {
	double v[DM__MAX];
	bool have[DM__MAX];
	double samples[DM__MAX];	/* calls behind a percentile; else 0 */
	struct {
		char id[48];
		int sev;		/* DIFF_SEV_* */
	} findings[DIFF_MAX_FINDINGS];
	int nr_findings;
	char target[1024];		/* "command python train.py"; "" if absent */
};

/* Finding severities; a finding a report lacks is DIFF_SEV_NONE. */
enum { DIFF_SEV_NONE = -1, DIFF_SEV_OK, DIFF_SEV_INFO, DIFF_SEV_WARN, DIFF_SEV_HIGH };

/*
 * One --fail-on LIMIT. A metric limit fails when, in NEW:
 *   delta && relative:   (new - base) / base  op  value   (value a fraction)
 *   delta && !relative:  new - base           op  value
 *   !delta:              new                  op  value
 * with op '>' (an increase or ceiling) or '<' (a decrease or floor); from a
 * base of 0 a relative increase is infinite. A finding limit fails when
 * NEW has the finding (any, for "*") at min_sev or worse, and BASE had it
 * at a lower severity or not at all.
 */
struct diff_limit {
	int metric;		/* enum diff_metric; -1 for a finding limit */
	char op;		/* '>' or '<' */
	bool delta;		/* a change from BASE (signed), not a bound on NEW */
	bool relative;		/* value is a fraction of BASE ('%' with a sign) */
	double value;		/* in the metric's unit: ns, bytes, 0..1 for shares */
	char finding[48];	/* finding limits: an id or "*" */
	int min_sev;		/* finding limits: DIFF_SEV_* */
	bool is_default;
	char text[96];		/* the limit as written, for messages */
};

enum diff_status {
	DIFF_PASS,		/* checked, within the limit */
	DIFF_FAIL,		/* regressed */
	DIFF_UNCHECKED,		/* a figure is missing or from too few samples */
};

/* "iostorm diff ..." with argv[0] == "diff"; returns an enum diff_exit. */
int diff__main(int argc, char **argv);

/*
 * Parse LIMIT into l. Returns 0, or -EINVAL after writing why into err
 * ("unknown metric 'x'; one of: files, opens, ...").
 */
int diff__parse_limit(const char *s, struct diff_limit *l, char *err, size_t errlen);
/* The default limits (docs/diff.md); returns how many, at most max. */
int diff__default_limits(struct diff_limit *out, int max);

/*
 * Load a report (a JSON object of schema IOSTORM_REPORT_SCHEMA), skipping the
 * per-file "files" and "dirs" lists unparsed to save memory. Returns 0, or
 * DIFF_EXIT_UNUSABLE after saying why on stderr.
 */
int diff__load(const char *path, json_t **root);
/* The figures of a loaded report (absent keys leave have[] false). */
void diff__figures(const json_t *report, struct diff_figures *f);
/* Check one limit; why (may be NULL) says what was found, in words. */
enum diff_status diff__check(const struct diff_limit *l, const struct diff_figures *base,
			     const struct diff_figures *new, char *why, size_t len);
/*
 * Whether two reports trace different workloads: their files differ by
 * more than 50% and their targets' program names differ. Writes the
 * evidence into why.
 */
bool diff__other_workload(const struct diff_figures *base, const struct diff_figures *new,
			  char *why, size_t len);

const char *diff__metric_name(int m);
int diff__finding_sev(const struct diff_figures *f, const char *id);

#endif /* DIFF_H */
