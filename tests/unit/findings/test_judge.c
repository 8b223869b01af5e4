// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The judge (judge.c): the findings' names and order, layers not measured
 * never judged.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "model/hist.h"
#include "model/trace.h"
#include "findings/rules.h"
#include "judged.h"
#include "scenes.h"
#include "unit.h"

TEST(verdict_names_and_order)
{
	struct evidence e;
	struct judged j;

	CHECK_STR(severity__name(SEV_HIGH), "HIGH");
	CHECK_STR(severity__name(SEV_OK), "OK");
	/* At most max findings, still the worst first. */
	scene__storm_cold_capped(&e);
	{
		struct thresholds t;
		struct finding two[2];
		int n;

		thresholds__defaults(&t);
		n = judge__rules(&e, &t, two, 2);
		CHECK_EQ_INT(n, 2);
		CHECK_EQ_INT(two[0].severity, SEV_HIGH);
		CHECK_EQ_INT(two[1].severity, SEV_HIGH);
	}
	/* Every finding has an id, a label, a summary, advice and figures. */
	judge(&e, NULL, &j);
	for (int i = 0; i < j.n; i++) {
		CHECK(j.f[i].id && j.f[i].label[0] && j.f[i].summary[0] && j.f[i].advice[0]);
		/* A full array may have dropped a figure: one slot stays spare. */
		CHECK(j.f[i].nr_figures > 0 && j.f[i].nr_figures < FINDING_FIGURES);
	}
	judge__headline(NULL, 0, j.headline, sizeof(j.headline));
	CHECK_STR(j.headline, "VERDICT: storage keeps up");
}

/* Layers this kernel did not give are said, whatever else was found. */
TEST(verdict_layers_not_measured)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	scene__storm_cold_capped(&e);
	judge(&e, NULL, &j);
	CHECK(!get(&j, "layers_not_measured"));
	e.nr_unmeasured = 2;
	snprintf(e.unmeasured, sizeof(e.unmeasured), "faults, fuse");
	judge(&e, NULL, &j);
	f = get(&j, "layers_not_measured");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_INFO);
	CHECK_HAS(f->summary, "not measured on this kernel: faults, fuse");
	CHECK_EQ_INT(figure(f, "layers_not_measured"), 2);
	/* The storm is still judged, from the layers that were measured. */
	CHECK_EQ_INT(get(&j, "small_file_storm")->severity, SEV_HIGH);
	/* Too little I/O to judge: still said. */
	e.reads = e.fault_reads = 0;
	judge(&e, NULL, &j);
	CHECK(get(&j, "little_io"));
	CHECK(get(&j, "layers_not_measured"));
}
