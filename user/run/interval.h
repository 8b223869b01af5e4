/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * -i SECONDS: one line per interval while tracing, for the target, from
 * the difference of two snapshots of the trace (report__interval_line()).
 * The trace must be refreshed before each tick; this only reads it.
 */
#ifndef RUN_INTERVAL_H
#define RUN_INTERVAL_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "model/trace.h"

#define INTERVAL_HEADER_EVERY	20	/* rows between two header lines */

struct interval {
	FILE *out;
	double period;			/* seconds; 0: no interval lines */
	__u64 next_ns;			/* when the next line is due */
	int rows;			/* lines since the last header */
	struct trace_snap *snap[2];	/* [cur]: the latest */
	int cur;
};

/* Nothing is printed when period is 0; else take the first snapshot of t. */
int interval__start(struct interval *iv, FILE *out, double period,
		    const struct trace *t, __u64 now_ns);
bool interval__due(const struct interval *iv, __u64 now_ns);
/* Snapshot t, then print the line since the previous snapshot. */
int interval__tick(struct interval *iv, const struct trace *t, __u64 now_ns);
void interval__free(struct interval *iv);

#endif /* RUN_INTERVAL_H */
