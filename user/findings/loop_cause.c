// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One loop's cause over a window, by the report's own rules: the node's
 * evidence (its storage, access pattern, CPUs) with the loop's split and
 * its loader's time in the window put in, judged as a report judges its
 * headline loop (findings.h: findings__loop_cause()).
 */
#include <stdio.h>
#include "findings/rules.h"
#include "model/stall.h"

/*
 * The storage findings a cause is named after when input_cause is not
 * judged because storage explains the wait (rules_cause.c), most severe
 * first as judge__rules() orders them.
 */
static const char *const storage_ids[] = {
	"storage_bottleneck", "small_file_storm", "fuse_round_trips", "nfs_round_trips",
	"mapped_reads", "metadata_overhead",
};

static bool storage_id(const char *id)
{
	for (size_t k = 0; k < sizeof(storage_ids) / sizeof(storage_ids[0]); k++)
		if (!strcmp(id, storage_ids[k]))
			return true;
	return false;
}

/*
 * Does the loop's side wait on I/O (its loader's working threads, or its
 * own reads)? The node's storage findings are the whole node's: they
 * explain a loop's wait only where its own side waits on I/O (a warm pod
 * beside a cold one is not storage-bound because the node storms).
 */
static bool waits_on_io(const struct evidence *e, const double *th)
{
	return e->ld_io_share >= th[TH_IO_WAIT_WARN] ||
	       (e->stall_share > 0 && e->stall_own_io_share >= th[TH_OWN_IO] * e->stall_share);
}

const char *findings__loop_cause(const struct evidence *node, const struct stall *win,
				 double win_s, const struct thresholds *th)
{
	struct finding fs[FINDINGS_MAX], rest[FINDINGS_MAX], f;
	struct evidence e = *node;
	int n, nr = 0;

	e.duration_s = win_s;
	e.stall_loops = 1;
	e.ld_cpu_share = e.ld_runq_share = e.ld_io_share = e.ld_sleep_share = -1;
	e.ld_busiest_share = -1;
	e.ld_workers = e.ld_procs = 0;
	evidence__set_loop(&e, win);
	if (!e.have_stall)
		return NULL;
	e.stall_least_share = e.stall_share;
	if (e.stall_share < th->v[TH_STALL_WARN])
		return "none";
	n = judge__rules(&e, th, fs, FINDINGS_MAX);
	for (int i = 0; i < n; i++)
		if (!strcmp(fs[i].id, "input_cause"))
			return rules__cause_name(&fs[i]);
	for (int i = 0; i < n; i++) {
		if (fs[i].severity >= SEV_WARN && storage_id(fs[i].id) && waits_on_io(&e, th->v))
			return fs[i].id;
		if (!storage_id(fs[i].id))
			rest[nr++] = fs[i];
	}
	/* Storage is not this loop's: its loader's own cause. */
	if (rule__input_cause(&e, th->v, rest, nr, &f))
		return rules__cause_name(&f);
	return "unclear";
}
