/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Everything one trace measured, as the report modules read it: the store of
 * files and threads, global counters, histograms and what was lost.
 */
#ifndef TRACE_H
#define TRACE_H

#include <linux/types.h>
#include "model/block.h"
#include "iostorm.h"
#include "model/store.h"
#include "findings/findings.h"

struct trace {
	char target[256];		/* what was traced, in words */
	double duration_s;		/* traced wall time */
	__u64 counters[C__MAX];		/* enum counter */
	__u64 lost[L__MAX];		/* enum lost_reason */
	__u64 prog_misses;		/* BPF runs the kernel skipped (recursion) */
	__u64 maps_bytes;		/* kernel memory of iostorm's BPF maps */
	__u64 open_errnos[ERRNO_SLOTS];
	struct hist hists[H__MAX];	/* enum hist_id */
	struct store store;
	struct block block;		/* block layer, diskstats included */
	struct diagnosis diag;		/* findings, once the trace is over */
	const struct thresholds *thresholds;	/* --threshold's, for live judging */
	int exit_status;		/* of a launched command, else -1 */
	int stopped_by;			/* enum stop_reason */
};

enum stop_reason {
	STOP_DURATION = 0,
	STOP_SIGNAL,
	STOP_TARGET_EXIT,
};

/* Sum of lost[] and prog_misses: the events the report does not hold. */
__u64 trace__lost_total(const struct trace *t);

#endif /* TRACE_H */
