// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Cgroup paths parsed into containers and pods; the bounded cgroup table. */
#include <stdlib.h>
#include <string.h>
#include "model/cgroup.h"
#include "unit.h"

#define ID64	"3f9a8c7e6d5b4a392817f6e5d4c3b2a19f8e7d6c5b4a39281706f5e4d3c2b1a0"
#define UID	"8f2c1d4e-97ab-4c1e-b7a2-5d3e9f0a1b2c"
#define UID_SD	"8f2c1d4e_97ab_4c1e_b7a2_5d3e9f0a1b2c"

static void check_parse(const char *path, const char *runtime, const char *id,
			const char *pod, const char *qos)
{
	struct cgroup_name n;

	cgroup__parse(path, &n);
	CHECK_STR(n.runtime, runtime);
	CHECK_STR(n.container_id, id);
	CHECK_STR(n.pod_uid, pod);
	CHECK_STR(n.qos, qos);
}

TEST(cgroup_parse_kubernetes)
{
	/* cgroupfs driver: no runtime in the path. */
	check_parse("/kubepods/burstable/pod" UID "/" ID64, "", ID64, UID, "burstable");
	check_parse("/kubepods/besteffort/pod" UID "/" ID64, "", ID64, UID, "besteffort");
	/* Guaranteed pods sit right under kubepods. */
	check_parse("/kubepods/pod" UID "/" ID64, "", ID64, UID, "guaranteed");
	/* The pod itself (its pause-less slice), no container. */
	check_parse("/kubepods/burstable/pod" UID, "", "", UID, "burstable");
	/* systemd driver: dashes of the uid escaped as '_'. */
	check_parse("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_SD
		    ".slice/cri-containerd-" ID64 ".scope", "containerd", ID64, UID, "burstable");
	check_parse("/kubepods.slice/kubepods-pod" UID_SD ".slice/crio-" ID64 ".scope",
		    "crio", ID64, UID, "guaranteed");
	check_parse("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_SD
		    ".slice/docker-" ID64 ".scope", "docker", ID64, UID, "besteffort");
	/* CRI-O's conmon is not the container. */
	check_parse("/kubepods.slice/kubepods-pod" UID_SD ".slice/crio-conmon-" ID64 ".scope",
		    "", "", UID, "guaranteed");
}

TEST(cgroup_parse_other)
{
	check_parse("/system.slice/docker-" ID64 ".scope", "docker", ID64, "", "");
	check_parse("/docker/" ID64, "docker", ID64, "", "");
	check_parse("/machine.slice/libpod-" ID64 ".scope", "podman", ID64, "", "");
	/* Not containers. */
	check_parse("/", "", "", "", "");
	check_parse("/user.slice/user-0.slice/session-3.scope", "", "", "", "");
	check_parse("/system.slice/cron.service", "", "", "", "");
	check_parse("/iostorm-test/pod-a", "", "", "", "");
	/* A hex name outside docker and kubepods is no container id. */
	check_parse("/jobs/" ID64, "", "", "", "");
	/* Too short to be an id. */
	check_parse("/system.slice/docker-abc.scope", "", "", "", "");
}

static void add(struct cgroups *c, __u64 cgid, __u64 reads)
{
	struct thread_stats ts = { .cgid = cgid, .reads = reads, .opens = 1 };

	CHECK_EQ_INT(cgroups__add(c, &ts), 0);
}

static __u64 sum_reads(const struct cgroups *c)
{
	__u64 n = 0;

	for (size_t i = 0; i < c->nr; i++)
		n += c->recs[i].io.reads;
	return n;
}

/* At most max records of their own; the rest summed, totals exact. */
TEST(cgroups_bounded)
{
	struct cgroups c = { .max = 2 };
	struct cgroup_rec *r;

	add(&c, 10, 1);
	add(&c, 11, 2);
	add(&c, 10, 4);
	/* Full, both busy in this interval: 12 is summed into the other record. */
	add(&c, 12, 8);
	add(&c, 12, 16);
	CHECK_EQ_U64(c.nr, 3);
	CHECK_EQ_U64(c.folded, 1);
	r = cgroups__find(&c, CGROUP_OTHER);
	REQUIRE(r);
	CHECK_EQ_U64(r->io.reads, 24);
	CHECK_EQ_U64(cgroups__find(&c, 10)->io.reads, 5);
	/* Next interval: 11 stays idle, so 13 takes its record and 11's sums go to other. */
	cgroups__tick(&c);
	add(&c, 10, 32);
	add(&c, 13, 64);
	CHECK_EQ_U64(c.nr, 3);
	CHECK(!cgroups__find(&c, 11));
	CHECK_EQ_U64(cgroups__find(&c, 13)->io.reads, 64);
	CHECK_EQ_U64(cgroups__find(&c, CGROUP_OTHER)->io.reads, 26);
	CHECK_EQ_U64(c.folded, 2);
	CHECK_EQ_U64(sum_reads(&c), 1 + 2 + 4 + 8 + 16 + 32 + 64);
	/* Memory stays flat: thousands of short-lived cgroups, max + 1 records. */
	for (__u64 id = 100; id < 5100; id++) {
		cgroups__tick(&c);
		add(&c, id, 1);
	}
	CHECK_EQ_U64(c.nr, 3);
	CHECK_EQ_U64(sum_reads(&c), 127 + 5000);
	cgroups__free(&c);
}

TEST(cgroups_sorted)
{
	struct cgroups c = {};
	struct thread_stats a = { .cgid = 1, .reads = 1, .read_ns = 10 };
	struct thread_stats b = { .cgid = 2, .reads = 1, .read_ns = 20 };
	struct thread_stats idle = { .cgid = 3, .cpu_ns = 99 };
	struct cgroup_rec **v;
	size_t n;

	CHECK_EQ_INT(cgroups__add(&c, &a) ?: cgroups__add(&c, &b) ?: cgroups__add(&c, &idle), 0);
	CHECK_EQ_INT(cgroup__set_path(&c.recs[1], "/docker/" ID64), 0);
	v = cgroups__sorted(&c, &n);
	REQUIRE(v);
	CHECK_EQ_U64(n, 2);	/* the idle one did no I/O */
	CHECK_EQ_U64(v[0]->cgid, 2);
	CHECK_STR(v[0]->name.container_id, ID64);
	free(v);
	cgroups__free(&c);
}

static void check_slurm(const char *path, const char *job, const char *step)
{
	struct cgroup_name n;

	cgroup__parse(path, &n);
	CHECK_STR(n.slurm_job, job);
	CHECK_STR(n.slurm_step, step);
	CHECK_STR(n.pod_uid, "");
	CHECK_STR(n.container_id, "");
}

TEST(cgroup_parse_slurm)
{
	/* cgroup v1 (the freezer, cpuset hierarchies): uid, job, step, task. */
	check_slurm("/slurm/uid_1000/job_4242/step_0", "4242", "0");
	check_slurm("/slurm/uid_1000/job_4242/step_batch/task_0", "4242", "batch");
	/* cgroup v2: under slurmstepd's scope, the step's user and task cgroups. */
	check_slurm("/system.slice/slurmstepd.scope/job_77/step_3/user/task_1", "77", "3");
	check_slurm("/system.slice/slurmstepd.scope/job_77/step_extern/slurm", "77", "extern");
	check_slurm("/system.slice/slurmstepd.scope/job_77", "77", "");
	/* Not Slurm: job_ without a number, a step that is no step, no job. */
	check_slurm("/jobs/job_abc/step_0", "", "");
	check_slurm("/x/job_12/notastep", "", "");
	check_slurm("/system.slice/slurmstepd.scope/system", "", "");
	check_slurm("/iostorm-test/pod-a", "", "");
}
