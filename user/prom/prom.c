// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prometheus metrics of a trace: the final textfile for node_exporter's
 * textfile collector, and the findings the live path of server.c shows,
 * judged again only when judging is cheap enough.
 * See prom.h and docs/metrics.md.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/atomic_file.h"
#include "prom/prom_int.h"

#define PROM_JUDGE_SHARE	0.1	/* of the main thread's time, at most */

/* ---- the findings ---- */

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int prom_findings__judge(struct prom_findings *fs, const struct trace *t,
			 const struct thresholds *th)
{
	int err;

	fs->at = mono_s();
	err = findings__judge(&fs->f, t, th);
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

/* ---- the textfile ---- */

struct render_args {
	const struct trace *t;
	const struct findings *f;
	const char *job;
};

static int fill_render(FILE *out, const void *arg)
{
	const struct render_args *a = arg;

	return prom__render(out, a->t, a->f, a->job);
}

int prom__write_file(const char *path, const struct trace *t, const struct findings *f,
		     const char *job)
{
	struct render_args a = { t, f, job };

	return atomic_file__output_sync(path, false, fill_render, &a);
}
