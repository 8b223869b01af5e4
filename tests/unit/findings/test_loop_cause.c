// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A loop's cause over a window (findings__loop_cause()): the report's own
 * rules, on the node's evidence with the loop's window put in.
 */
#include <stdlib.h>
#include <string.h>
#include "findings/rules.h"
#include "model/ledger.h"
#include "model/trace.h"
#include "facts_test.h"
#include "fixture.h"
#include "scenes.h"
#include "unit.h"

#define MS	1000000ULL

/* A loop of 10 s whose loader's 4 threads spend the given shares of their time. */
static struct stall loop_of(__u64 data_ms, double cpu, double runq, double io)
{
	struct stall s = { .how = CONSUMER_FED, .tgid = 7, .comm = "python3" };
	__u64 t = 40000 * MS;

	s.data_wait_ns = s.loader_wait_ns = data_ms * MS;
	s.on_cpu_ns = 10000 * MS - s.data_wait_ns;
	s.wall_ns = 10000 * MS;
	s.loader_workers = 4;
	s.loader_procs = 4;
	s.loader_cpu_ns = cpu * t;
	s.loader_runq_ns = runq * t;
	s.loader_io_ns = io * t;
	s.loader_sleep_ns = t - s.loader_cpu_ns - s.loader_runq_ns - s.loader_io_ns;
	return s;
}

TEST(loop_cause_by_the_rules)
{
	struct thresholds th;
	struct evidence node = {};
	struct stall s;

	thresholds__defaults(&th);
	node.nr_cpus = 2;
	/* Below stall_warn (5%): no cause. */
	s = loop_of(400, 0.9, 0, 0);
	CHECK_STR(findings__loop_cause(&node, &s, 10, &th), "none");
	/* Input-bound, its loader on CPU 90%: CPU-bound. */
	s = loop_of(6000, 0.9, 0.05, 0);
	CHECK_STR(findings__loop_cause(&node, &s, 10, &th), "loader_cpu_bound");
	/* Its loader waiting for a CPU 40%: CPU-starved. */
	s = loop_of(6000, 0.5, 0.4, 0);
	CHECK_STR(findings__loop_cause(&node, &s, 10, &th), "loader_cpu_starved");
	/* Its loader asleep 80%: prefetch too short. */
	s = loop_of(6000, 0.1, 0, 0.1);
	CHECK_STR(findings__loop_cause(&node, &s, 10, &th), "prefetch_short");
	/* The loop reads its own data, no worker: own I/O. */
	s = loop_of(6000, 0, 0, 0);
	s.loader_wait_ns = 0;
	s.own_io_ns = s.data_wait_ns;
	s.loader_workers = s.loader_procs = 0;
	CHECK_STR(findings__loop_cause(&node, &s, 10, &th), "own_io");
	/* No time in the window: none judged. */
	memset(&s, 0, sizeof(s));
	s.how = CONSUMER_FED;
	CHECK(!findings__loop_cause(&node, &s, 10, &th));
}

/*
 * On the storm scene (a cold small-file storm behind a capped device),
 * storage explains an input-bound loop's wait when its loader waits on
 * I/O: the cause names it; not another loop's, whose loader computes.
 */
TEST(loop_cause_storage_explains)
{
	struct thresholds th;
	struct evidence node;
	struct stall s = loop_of(6000, 0.1, 0, 0.8);
	const char *c;

	thresholds__defaults(&th);
	scene__storm_cold_capped(&node);
	c = findings__loop_cause(&node, &s, 10, &th);
	REQUIRE(c);
	CHECK(!strcmp(c, "storage_bottleneck") || !strcmp(c, "small_file_storm"));
	/* A warm pod's loop on the same node: its loader computes, never waits on I/O. */
	s = loop_of(6000, 0.9, 0.05, 0);
	CHECK_STR(findings__loop_cause(&node, &s, 10, &th), "loader_cpu_bound");
}

/*
 * The fixture's loop over its whole run: the cause its report's verdict
 * names ("input-bound, HIGH: metadata overhead (WARN)": no input_cause, the
 * metadata finding explains the wait).
 */
TEST(loop_cause_fixture_as_the_report)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct findings *fs = calloc(1, sizeof(*fs));
	struct thresholds th;
	struct stall w;
	bool cause = false;

	if (!t || !fs || fixture__trace(t)) {
		free(fs);
		free(t);
		REQUIRE(!"the fixture trace");
	}
	thresholds__defaults(&th);
	CHECK_EQ_INT(trace_judged(fs, t, &th), 0);
	for (int i = 0; i < fs->nr_findings; i++)
		cause |= !strcmp(fs->findings[i].id, "input_cause");
	CHECK(!cause);
	CHECK_HAS(fs->headline, "metadata overhead (WARN)");
	REQUIRE(t->ledger.nr == 1);
	ledger__window(&t->ledger.v[0], &w);
	CHECK_STR(findings__loop_cause(&fs->e, &w, t->duration_s, &th), "metadata_overhead");
	fixture__free(t);
	free(fs);
	free(t);
}
