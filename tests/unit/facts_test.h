/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A trace judged as run.c judges it: its facts measured (model/facts.h),
 * the findings, or the evidence alone, taken from them, the facts freed.
 * For tests that judge and print apart.
 */
#ifndef TESTS_UNIT_FACTS_TEST_H
#define TESTS_UNIT_FACTS_TEST_H

#include "findings/findings.h"
#include "model/facts.h"

/* findings__judge() of t on its facts; 0 or -errno. */
static inline int trace_judged(struct findings *f, const struct trace *t,
			       const struct thresholds *th)
{
	struct facts fa;
	int err = facts__measure(&fa, t);

	if (!err)
		err = findings__judge(f, t, &fa, th);
	facts__free(&fa);
	return err;
}

/* evidence__from_trace() of t on its facts; 0 or -errno. */
static inline int trace_evidence(struct evidence *e, const struct trace *t)
{
	struct facts fa;
	int err = facts__measure(&fa, t);

	if (!err)
		err = evidence__from_trace(e, t, &fa);
	facts__free(&fa);
	return err;
}

#endif /* TESTS_UNIT_FACTS_TEST_H */
