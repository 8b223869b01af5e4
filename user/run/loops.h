/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The node's loops judged live: at every scheduled drain, each loop of the
 * ledger (model/ledger.h) gets its cause over the window since the last,
 * by the report's rules (findings__loop_cause()) on the node's evidence.
 * The node's findings are judged again only when that stays under
 * LIVE_JUDGE_SHARE of the time (judging sorts every file); the metrics
 * server is handed them rather than judging its own.
 */
#ifndef RUN_LOOPS_H
#define RUN_LOOPS_H

#include <stdbool.h>
#include <linux/types.h>
#include "findings/findings.h"
#include "model/trace.h"

#define LIVE_JUDGE_SHARE	0.1	/* of the main thread's time, at most */

struct live {
	struct findings *node;	/* NULL until first judged */
	double at;		/* when judged, seconds (CLOCK_MONOTONIC) */
	double cost;		/* what that took, seconds */
};

/* Judge t's loops at now_ns (and the node when due). 0 or -errno. */
int live__judge(struct live *lv, struct trace *t, const struct thresholds *th, __u64 now_ns);
/*
 * At the end: each loop's cause over the whole run (its figures from its
 * start), by the run's findings f, for the report and the last metrics.
 */
void live__judge_run(struct trace *t, const struct findings *f, const struct thresholds *th);
void live__free(struct live *lv);

#endif /* RUN_LOOPS_H */
