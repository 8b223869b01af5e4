// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The process tree's times as the drains bring them: a process's fork,
 * last exec and exit, merged over drains, and a tgid reused by a new
 * process.
 */
#include "model/procs.h"
#include "unit.h"

static void note(struct procs *p, __u32 tgid, __u32 ptgid, __u64 fork_ns, __u64 exec_ns,
		 __u64 exit_ns)
{
	struct proc_life ev = { ptgid, 0, fork_ns, exec_ns, exit_ns };

	CHECK_EQ_INT(procs__note(p, tgid, &ev), 0);
}

/* env execs bash, which execs the interpreter: one drain each. */
TEST(procs_last_exec_begins)
{
	struct procs p = {};

	note(&p, 100, 90, 1000, 1001, 0);
	note(&p, 100, 90, 1000, 1030, 0);
	note(&p, 100, 90, 1000, 1020, 0);	/* an older word, drained late: kept out */
	CHECK_EQ_U64(procs__began(&p, 100), 1030);
	CHECK_EQ_U64(procs__exited(&p, 100), 0);
	CHECK_EQ_INT(procs__parent(&p, 100), 90);
	note(&p, 100, 90, 1000, 0, 5000);
	CHECK_EQ_U64(procs__began(&p, 100), 1030);
	CHECK_EQ_U64(procs__exited(&p, 100), 5000);
	/* Never exec'd: its program began at its fork. */
	note(&p, 101, 100, 1100, 0, 0);
	CHECK_EQ_U64(procs__began(&p, 101), 1100);
	CHECK_EQ_U64(procs__began(&p, 102), 0);		/* not seen */
	procs__free(&p);
}

/* A tgid reused: the new process's times replace the old one's exit. */
TEST(procs_tgid_reused)
{
	struct procs p = {};

	note(&p, 200, 100, 1000, 0, 1004);
	CHECK_EQ_U64(procs__exited(&p, 200), 1004);
	note(&p, 200, 150, 9000, 0, 0);
	CHECK_EQ_U64(procs__exited(&p, 200), 0);
	CHECK_EQ_U64(procs__began(&p, 200), 9000);
	CHECK_EQ_INT(procs__parent(&p, 200), 150);
	note(&p, 200, 100, 1000, 0, 1004);		/* the old one's, late */
	CHECK_EQ_U64(procs__exited(&p, 200), 0);
	/* A parent from /proc first, then the programs' word. */
	CHECK_EQ_INT(procs__set(&p, 300, 1), 0);
	note(&p, 300, 1, 500, 600, 0);
	CHECK_EQ_U64(procs__began(&p, 300), 600);
	CHECK_EQ_INT(procs__parent(&p, 300), 1);
	procs__free(&p);
}
