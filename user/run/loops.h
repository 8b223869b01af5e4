/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The findings judged live, while exporting: at every scheduled drain the
 * node's findings, again only when that stays under LIVE_JUDGE_SHARE of
 * the time (judging sorts every file: ~1.9 s for 1.28M files), and each
 * loop of the ledger (model/ledger.h) its cause over the window since the
 * last, by the report's rules (findings__loop_cause()) on the node's
 * evidence. The metrics server prints what it is handed (prom/prom.h).
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

/*
 * Judge the node when due, then t's loops, at now_ns. In a storm (quick)
 * the node keeps its last findings: no drain could run during a sort of
 * every file. 0 or -errno.
 */
int live__judge(struct live *lv, struct trace *t, const struct thresholds *th, __u64 now_ns,
		bool quick);
/* The node's findings last judged; none (an empty set) before the first. */
const struct findings *live__findings(const struct live *lv);
/*
 * At the end: each loop's cause over the whole run (its figures from its
 * start), by the run's findings f, for the report and the last metrics.
 */
void live__judge_run(struct trace *t, const struct findings *f, const struct thresholds *th);
void live__free(struct live *lv);

#endif /* RUN_LOOPS_H */
