// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prometheus metrics of a trace, the entry points that render it once:
 * prom__render() to a stream and prom__write_file() for node_exporter's
 * textfile collector; and the findings every render shows, judged afresh
 * or, on the live path of prom_server.c, only when judging is cheap enough.
 * See prom.h and docs/metrics.md.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "atomic_file.h"
#include "diagnosis.h"
#include "prom.h"
#include "prom_int.h"
#include "verdict.h"

#define PROM_JUDGE_SHARE	0.1	/* of the main thread's time, at most */

/* ---- the findings ---- */

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A finished trace has its own findings; a live one is judged now, and timed. */
int prom_findings__judge(struct prom_findings *fs, const struct trace *t)
{
	struct thresholds th;
	struct evidence e;
	int err;

	fs->at = mono_s();
	if (t->diag.done) {	/* the trace is over: its own findings */
		fs->n = t->diag.nr_findings;
		memcpy(fs->f, t->diag.findings, fs->n * sizeof(fs->f[0]));
		fs->cost = 0;
		return 0;
	}
	err = evidence__from_trace(&e, t);
	if (err)
		return err;
	evidence__add_block(&e, t);
	if (t->thresholds)
		th = *t->thresholds;
	else
		thresholds__defaults(&th);
	fs->n = verdict__judge(&e, &th, fs->f, VERDICT_MAX_FINDINGS);
	fs->cost = mono_s() - fs->at;
	return 0;
}

/*
 * Judging sorts every file (~1.9 s for 1.28M files): a live publish judges
 * again only when that keeps it under PROM_JUDGE_SHARE of the time.
 */
bool prom_findings__stale(const struct prom_findings *fs)
{
	return fs->at == 0 || mono_s() - fs->at >= fs->cost / PROM_JUDGE_SHARE;
}

/* ---- rendering once ---- */

int prom__render(FILE *out, const struct trace *t, const char *job)
{
	struct prom_findings *fs = calloc(1, sizeof(*fs));
	int err = fs ? prom_findings__judge(fs, t) : -ENOMEM;

	if (!err)
		err = prom__render_judged(out, t, job, fs);
	free(fs);
	return err;
}

/* ---- the textfile ---- */

struct render_args {
	const struct trace *t;
	const char *job;
};

static int fill_render(FILE *f, const void *arg)
{
	const struct render_args *a = arg;

	return prom__render(f, a->t, a->job);
}

int prom__write_file(const char *path, const struct trace *t, const char *job)
{
	struct render_args a = { t, job };

	return atomic_file__write(path, false, fill_render, &a);
}
