// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The ledger of loops: one identity for a loop's life, labels, the bound, exits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/ledger.h"
#include "model/trace.h"
#include "unit.h"

#define UID	"8f2c1d4e-97ab-4c1e-b7a2-5d3e9f0a1b2c"

/* The processes of a fake node: pid -> start (0: gone) and cgroup path. */
struct node {
	__u32 pid[8];
	__u64 start[8];
	const char *cgroup[8];
	const char *v1[8];
};

static int node_proc(__u32 pid, struct loop_proc *out, void *ctx)
{
	const struct node *n = ctx;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 8; i++) {
		if (n->pid[i] != pid || !n->start[i])
			continue;
		out->start = n->start[i];
		snprintf(out->cgroup, sizeof(out->cgroup), "%s", n->cgroup[i] ?: "");
		snprintf(out->slurm, sizeof(out->slurm), "%s", n->v1[i] ?: "");
		return 0;
	}
	return -ENOENT;
}

/* t's loops: pids[] with data waits[] (ranked as stall__measure() ranks, most first). */
static void set_loops(struct trace *t, const __u32 *pids, const __u64 *wait, size_t n)
{
	free(t->loops);
	t->loops = calloc(n ? n : 1, sizeof(*t->loops));
	t->nr_loops = n;
	for (size_t i = 0; i < n; i++) {
		t->loops[i].how = CONSUMER_FED;
		t->loops[i].tid = t->loops[i].tgid = pids[i];
		snprintf(t->loops[i].comm, COMM_LEN, "python%u", pids[i]);
		t->loops[i].data_wait_ns = wait[i];
		t->loops[i].wall_ns = 100;
	}
}

TEST(ledger_identity_labels_exit)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct node n = {
		.pid = { 100, 200 }, .start = { 5000, 6000 },
		.cgroup = { "/kubepods/burstable/pod" UID "/abc",
			    "/system.slice/slurmstepd.scope/job_77/step_0/user/task_0" },
	};
	const struct ledger_entry *a, *b;

	REQUIRE(t);
	/* Drain 1: pod A's loop waits most. */
	set_loops(t, (__u32[]){ 100, 200 }, (__u64[]){ 60, 10 }, 2);
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	REQUIRE(t->ledger.nr == 2);
	a = &t->ledger.v[0];
	b = &t->ledger.v[1];
	CHECK_EQ_INT(a->pid, 100);
	CHECK_STR(a->name.pod_uid, UID);
	CHECK_STR(a->name.slurm_job, "");
	CHECK_STR(b->cgroup, "/system.slice/slurmstepd.scope/job_77/step_0/user/task_0");
	CHECK_STR(b->name.slurm_job, "77");
	CHECK_STR(b->comm, "python200");
	/* Drain 2: the ranking turns: each entry keeps its loop and its figures. */
	set_loops(t, (__u32[]){ 200, 100 }, (__u64[]){ 70, 65 }, 2);
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	CHECK_EQ_INT(t->ledger.v[0].pid, 100);
	CHECK_EQ_U64(t->ledger.v[0].st.data_wait_ns, 65);
	CHECK_EQ_INT(t->ledger.v[1].pid, 200);
	CHECK_EQ_U64(t->ledger.v[1].st.data_wait_ns, 70);
	/* Drain 3: 200 is no loop now but alive: its last figures stay. */
	set_loops(t, (__u32[]){ 100 }, (__u64[]){ 66 }, 1);
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	REQUIRE(t->ledger.nr == 2);
	CHECK(!t->ledger.v[1].found);
	CHECK_EQ_U64(t->ledger.v[1].st.data_wait_ns, 70);
	/* Drain 4: 100 exited, though the store still makes it a loop; 200 too. */
	n.start[0] = n.start[1] = 0;
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	CHECK_EQ_INT(t->ledger.nr, 0);
	CHECK_EQ_U64(t->ledger.gone, 2);
	CHECK_EQ_U64(t->ledger.over, 0);
	/* Drain 5: pid 100 reused by a new process: a new loop, figures its own. */
	n.start[0] = 9000;
	set_loops(t, (__u32[]){ 100 }, (__u64[]){ 3 }, 1);
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	REQUIRE(t->ledger.nr == 1);
	CHECK_EQ_U64(t->ledger.v[0].start, 9000);
	CHECK_EQ_U64(t->ledger.v[0].st.data_wait_ns, 3);
	ledger__free(&t->ledger);
	free(t->loops);
	free(t);
}

TEST(ledger_bound)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct node n = { .pid = { 1, 2, 3, 4 }, .start = { 1, 1, 1, 1 } };

	REQUIRE(t);
	t->ledger.max = 2;
	set_loops(t, (__u32[]){ 1, 2, 3, 4 }, (__u64[]){ 9, 8, 7, 6 }, 4);
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	CHECK_EQ_INT(t->ledger.nr, 2);
	CHECK_EQ_U64(t->ledger.over, 2);
	/* 1 exits: its place goes to the next loop found. */
	n.start[0] = 0;
	set_loops(t, (__u32[]){ 2, 3, 4 }, (__u64[]){ 8, 7, 6 }, 3);
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	CHECK_EQ_INT(t->ledger.nr, 2);
	CHECK_EQ_INT(t->ledger.v[0].pid, 2);
	CHECK_EQ_INT(t->ledger.v[1].pid, 3);
	CHECK_EQ_U64(t->ledger.over, 1);
	ledger__free(&t->ledger);
	free(t->loops);
	free(t);
}

TEST(ledger_slurm_v1)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct node n = {
		.pid = { 10 }, .start = { 1 }, .cgroup = { "/user.slice" },
		.v1 = { "/slurm/uid_1000/job_4242/step_batch/task_0" },
	};

	REQUIRE(t);
	set_loops(t, (__u32[]){ 10 }, (__u64[]){ 1 }, 1);
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	REQUIRE(t->ledger.nr == 1);
	CHECK_STR(t->ledger.v[0].cgroup, "/user.slice");
	CHECK_STR(t->ledger.v[0].name.slurm_job, "4242");
	CHECK_STR(t->ledger.v[0].name.slurm_step, "batch");
	ledger__free(&t->ledger);
	free(t->loops);
	free(t);
}

TEST(ledger_parse_proc)
{
	struct loop_proc p;
	__u64 start = 0;

	CHECK_EQ_INT(ledger__parse_stat("42 (py (th) r) S 1 42 42 0 -1 4194560 100 0 0 0 "
					"5 3 0 0 20 0 4 0 123456 1000 10", &start), 0);
	CHECK_EQ_U64(start, 123456);
	CHECK_EQ_INT(ledger__parse_stat("42 (py) Z 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0",
					&start), -ESRCH);
	CHECK_EQ_INT(ledger__parse_stat("garbage", &start), -EINVAL);
	ledger__parse_cgroup("0::/kubepods/pod" UID "/abc\n", &p);
	CHECK_STR(p.cgroup, "/kubepods/pod" UID "/abc");
	CHECK_STR(p.slurm, "");
	ledger__parse_cgroup("12:freezer:/slurm/uid_0/job_5/step_0\n"
			     "1:name=systemd:/user.slice\n0::/user.slice\n", &p);
	CHECK_STR(p.cgroup, "/user.slice");
	CHECK_STR(p.slurm, "/slurm/uid_0/job_5/step_0");
}

/* The sides settle: other wait becomes data wait; neither counter goes down. */
TEST(ledger_counters_never_go_down)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct node n = { .pid = { 100 }, .start = { 1 } };

	REQUIRE(t);
	set_loops(t, (__u32[]){ 100 }, (__u64[]){ 10 }, 1);
	t->loops[0].other_wait_ns = 40;
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	set_loops(t, (__u32[]){ 100 }, (__u64[]){ 55 }, 1);
	t->loops[0].other_wait_ns = 5;
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	REQUIRE(t->ledger.nr == 1);
	CHECK_EQ_U64(t->ledger.v[0].counted[LOOP_DATA_WAIT], 55);
	CHECK_EQ_U64(t->ledger.v[0].counted[LOOP_OTHER_WAIT], 40);
	CHECK_EQ_U64(t->ledger.v[0].st.other_wait_ns, 5);	/* the split itself is the latest */
	CHECK_STR(loop_state__name(LOOP_RUNNABLE), "runnable");
	ledger__free(&t->ledger);
	free(t->loops);
	free(t);
}

/* The trace is over (proc NULL): an exited loop keeps its entry and figures. */
TEST(ledger_final_keeps_exited)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct node n = { .pid = { 100, 200 }, .start = { 1, 1 } };

	REQUIRE(t);
	set_loops(t, (__u32[]){ 100 }, (__u64[]){ 10 }, 1);
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	n.start[0] = 0;		/* 100 exited before the last drain */
	set_loops(t, (__u32[]){ 100, 200 }, (__u64[]){ 12, 3 }, 2);
	CHECK_EQ_INT(ledger__update(&t->ledger, t, NULL, NULL), 0);
	REQUIRE(t->ledger.nr == 2);
	CHECK_EQ_INT(t->ledger.v[0].pid, 100);
	CHECK_EQ_U64(t->ledger.v[0].start, 1);
	CHECK_EQ_U64(t->ledger.v[0].counted[LOOP_DATA_WAIT], 12);
	CHECK_EQ_INT(t->ledger.v[1].pid, 200);
	CHECK_EQ_U64(t->ledger.gone, 0);
	ledger__free(&t->ledger);
	free(t->loops);
	free(t);
}

/*
 * A job moved into its pod's cgroup just before its exec: the kernel's id
 * of its first drain is the cgroup it came from ("/"); /proc's path now is
 * its pod's, and labels it. From another cgroup namespace ("/../..") /proc's
 * path is not the families' form: the kernel's id's path labels it.
 */
TEST(ledger_label_from_proc)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct thread_stats cg = { .cgid = 1 };
	struct node n = {
		.pid = { 100, 200 }, .start = { 1, 1 },
		.cgroup = { "/kubepods/burstable/pod" UID "/abc", "/../../kubepods/x" },
	};

	REQUIRE(t);
	CHECK(!cgroups__add(&t->cgroups, &cg) &&
	      !cgroup__set_path(cgroups__find(&t->cgroups, 1), "/"));
	set_loops(t, (__u32[]){ 100, 200 }, (__u64[]){ 5, 5 }, 2);
	t->loops[0].cgid = t->loops[1].cgid = 1;
	CHECK_EQ_INT(ledger__update(&t->ledger, t, node_proc, &n), 0);
	REQUIRE(t->ledger.nr == 2);
	CHECK_STR(t->ledger.v[0].cgroup, "/kubepods/burstable/pod" UID "/abc");
	CHECK_STR(t->ledger.v[0].name.pod_uid, UID);
	CHECK_STR(t->ledger.v[1].cgroup, "/");
	ledger__free(&t->ledger);
	cgroups__free(&t->cgroups);
	free(t->loops);
	free(t);
}
