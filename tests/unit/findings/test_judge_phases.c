// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Phases judged from their own points: the fixture's cold third, then warm. */
#include <math.h>
#include <stdlib.h>
#include "unit.h"
#include "facts_test.h"
#include "fixture.h"
#include "findings/findings.h"

/* The points of the phase starting at start_s, summed. */
static void phase_sum(const struct timeline *tl, const struct phase *ph, struct tl_point *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < tl->nr; i++) {
		double t = tl->points[i].t_ns / 1e9;

		if (t >= ph->start_s && t < ph->end_s)
			tl_point__merge(sum, &tl->points[i]);
	}
}

/*
 * The share from storage is the phase's own: its block bytes against its
 * reads (the larger of them and the pages cached), not its requests times
 * the whole run's mean size, which a warm phase's page-sized rereads
 * would inflate. The warm points' cache adds are taken out, so the block
 * bytes decide.
 */
TEST(phase_miss_share_own_bytes)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct findings *f = calloc(1, sizeof(*f));
	struct thresholds th;
	struct tl_point sum;

	REQUIRE(t && f && !fixture__trace(t));
	for (size_t i = 0; i < t->timeline.nr; i++)
		if (t->timeline.points[i].t_ns >= 20 * 1000000000ULL)
			t->timeline.points[i].n[TL_CACHE_PAGES] = 0;
	thresholds__defaults(&th);
	REQUIRE(trace_judged(f, t, &th) == 0);
	CHECK_EQ_U64(f->nr_phases, 2);
	for (int i = 0; i < f->nr_phases; i++) {
		const struct phase *ph = &f->phases[i];
		double blk, cached, want;

		phase_sum(&t->timeline, ph, &sum);
		REQUIRE(sum.n[TL_READ_BYTES] > 0);
		blk = sum.n[TL_BLK_READ_BYTES];
		cached = (double)sum.n[TL_CACHE_PAGES] * t->page_size;
		want = fmax(blk, cached) / sum.n[TL_READ_BYTES];
		CHECK(fabs(ph->miss_share - want) < 1e-9);
		printf("phase %d: %.1f-%.1f s, from storage %.4f (block %.0f, cached %.0f bytes)\n",
		       i, ph->start_s, ph->end_s, ph->miss_share, blk, cached);
	}
	CHECK(f->phases[1].miss_share < f->phases[0].miss_share / 4);
	fixture__free(t);
	free(t);
	free(f);
}

/*
 * A phase's files_per_s is its opens of regular files per second, in a run
 * of one phase as in one of several (docs/json.md), never the run's
 * distinct files over its duration.
 */
TEST(phase_files_per_s_are_opens)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct findings *f = calloc(1, sizeof(*f));
	struct thresholds th;
	struct tl_point sum;

	REQUIRE(t && f && !fixture__trace(t));
	thresholds__defaults(&th);
	REQUIRE(trace_judged(f, t, &th) == 0);
	REQUIRE(f->nr_phases == 2);
	for (int i = 0; i < f->nr_phases; i++) {
		const struct phase *ph = &f->phases[i];

		phase_sum(&t->timeline, ph, &sum);
		REQUIRE(sum.dur_ns > 0);
		CHECK(fabs(ph->files_per_s - sum.n[TL_FILES] / (sum.dur_ns / 1e9)) < 1e-9);
	}
	/* One phase, the cold third's counts made warm: the points summed whole. */
	for (size_t i = 0; i < 20 && i + 20 < t->timeline.nr; i++) {
		struct tl_point *p = &t->timeline.points[i];

		memcpy(p->n, t->timeline.points[i + 20].n, sizeof(p->n));
		memcpy(p->lat, t->timeline.points[i + 20].lat, sizeof(p->lat));
	}
	REQUIRE(trace_judged(f, t, &th) == 0);
	REQUIRE(f->nr_phases == 1);
	timeline__sum(&t->timeline, &sum);
	CHECK(fabs(f->phases[0].files_per_s - sum.n[TL_FILES] / (sum.dur_ns / 1e9)) < 1e-9);
	CHECK(f->phases[0].files_per_s > 2 * f->e.files_per_s);
	fixture__free(t);
	free(t);
	free(f);
}
