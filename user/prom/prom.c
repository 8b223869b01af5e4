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
#include "lib/atomic_file.h"
#include "findings/findings.h"
#include "prom/prom.h"
#include "prom/prom_int.h"
#include "findings/verdict.h"

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
	const struct thresholds *th = t->thresholds;
	struct thresholds defaults;
	int err;

	fs->at = mono_s();
	if (t->diag.done) {	/* the trace is over: its own findings */
		fs->d = t->diag;
		fs->cost = 0;
		return 0;
	}
	if (!th) {
		thresholds__defaults(&defaults);
		th = &defaults;
	}
	err = diagnosis__run(&fs->d, t, th);
	fs->cost = mono_s() - fs->at;
	return err;
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
