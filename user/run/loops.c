// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The node's loops judged live: see loops.h. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "model/facts.h"
#include "run/loops.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The node's findings, judged again (on facts measured anew: the trace
 * grew) when that keeps under LIVE_JUDGE_SHARE.
 */
static int judge_node(struct live *lv, const struct trace *t, const struct thresholds *th)
{
	double now = mono_s();
	struct facts fa;
	int err;

	if (lv->node && now - lv->at < lv->cost / LIVE_JUDGE_SHARE)
		return 0;
	if (!lv->node)
		lv->node = calloc(1, sizeof(*lv->node));
	if (!lv->node)
		return -ENOMEM;
	err = facts__measure(&fa, t);
	if (!err)
		err = findings__judge(lv->node, t, &fa, th);
	facts__free(&fa);
	lv->at = now;
	lv->cost = mono_s() - now;
	return err;
}

int live__judge(struct live *lv, struct trace *t, const struct thresholds *th, __u64 now_ns,
		bool quick)
{
	struct stall w;
	int err;

	err = quick ? 0 : judge_node(lv, t, th);
	if (err || !lv->node)
		return err;
	for (size_t i = 0; i < t->ledger.nr; i++) {
		struct ledger_entry *e = &t->ledger.v[i];
		double win_s;

		if (!e->found)
			continue;	/* no figures since: its last cause stays */
		ledger__window(e, &w);
		win_s = e->judged_ns ? (now_ns - e->judged_ns) / 1e9 : t->duration_s;
		ledger__judge(e, findings__loop_cause(&lv->node->e, &w, win_s, th) ?: e->cause,
			      now_ns);
	}
	return 0;
}

const struct findings *live__findings(const struct live *lv)
{
	static const struct findings none;

	return lv->node ? lv->node : &none;
}

void live__judge_run(struct trace *t, const struct findings *f, const struct thresholds *th)
{
	for (size_t i = 0; i < t->nr_loops; i++)
		t->loops[i].cause = findings__loop_cause(&f->e, &t->loops[i], t->duration_s, th);
	for (size_t i = 0; i < t->ledger.nr; i++) {
		struct ledger_entry *e = &t->ledger.v[i];
		const char *c = findings__loop_cause(&f->e, &e->st, t->duration_s, th);

		ledger__judge(e, c ?: e->cause, e->judged_ns);
	}
}

void live__free(struct live *lv)
{
	free(lv->node);
	lv->node = NULL;
}
