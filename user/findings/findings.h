/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The verdict of one trace: the evidence from every layer (VFS, threads,
 * page cache, block), the findings judged from it, and the headline. The
 * reports and the metrics print it; they do not judge.
 */
#ifndef DIAGNOSIS_H
#define DIAGNOSIS_H

#include <stdbool.h>
#include "findings/verdict.h"

struct trace;

struct diagnosis {
	bool done;
	struct evidence e;
	struct finding findings[VERDICT_MAX_FINDINGS];
	int nr_findings;
	char headline[256];
};

int diagnosis__run(struct diagnosis *d, const struct trace *t,
		   const struct thresholds *th);
/* The block-layer part of the evidence: the target's read requests. */
void evidence__add_block(struct evidence *e, const struct trace *t);

#endif /* DIAGNOSIS_H */
