// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Phases: where a run's behaviour changes (model/phases.h), on synthetic points. */
#include <string.h>
#include "model/phases.h"
#include "unit.h"

#define SEC	1000000000ULL

/* One 1 s point: stall share, share of bytes from storage, busy share, reads/s. */
static void point(struct tl_point *p, size_t i, double stall, double miss, double util,
		  __u64 reads)
{
	memset(p, 0, sizeof(*p));
	p->t_ns = i * SEC;
	p->dur_ns = SEC;
	p->intervals = 1;
	p->n[TL_READS] = reads;
	p->n[TL_READ_BYTES] = reads * 81920;
	p->n[TL_CACHE_PAGES] = miss * reads * 20;	/* 20 pages a read */
	p->n[TL_BUSY_NS] = util * SEC;
	p->n[TL_STALL_WALL_NS] = SEC;
	p->n[TL_STALL_DATA_NS] = stall * SEC;
}

TEST(phases_steady_is_one)
{
	struct tl_point p[30];
	struct phase_span s[PHASES_MAX];

	/* Noise of +-10 points of stall, +-30% of rate: no phase. */
	for (size_t i = 0; i < 30; i++)
		point(&p[i], i, 0.5 + (i % 3 - 1) * 0.1, 1, 0.9, 300 + (i % 2) * 90);
	CHECK_EQ_INT(phases__split(p, 30, 4096, s), 1);
	CHECK_EQ_U64(s[0].first, 0);
	CHECK_EQ_U64(s[0].end, 30);
	CHECK(!s[0].unsplit);
	CHECK_EQ_INT(phases__split(p, 0, 4096, s), 0);
}

/* A cold epoch behind a cap (22 s), then a warm one (6 s): two phases, cut at 22. */
TEST(phases_cold_then_warm)
{
	struct tl_point p[28], sum;
	struct phase_span s[PHASES_MAX];

	for (size_t i = 0; i < 22; i++)
		point(&p[i], i, 0.85, 1, 0.95, 300);
	for (size_t i = 22; i < 28; i++)
		point(&p[i], i, 0.03, 0, 0, 2000);
	REQUIRE(phases__split(p, 28, 4096, s) == 2);
	CHECK_EQ_U64(s[0].end, 22);
	CHECK_EQ_U64(s[1].first, 22);
	CHECK_EQ_U64(s[1].end, 28);
	phases__sum(p, &s[1], &sum);
	CHECK_EQ_U64(sum.n[TL_READS], 6 * 2000);
	CHECK_EQ_U64(sum.dur_ns, 6 * SEC);
	/* The change inside one interval: the cut lands on one of its edges. */
	point(&p[22], 22, 0.45, 0.5, 0.5, 1000);
	REQUIRE(phases__split(p, 28, 4096, s) == 2);
	CHECK(s[0].end == 22 || s[0].end == 23);
}

/* Each signal alone splits; a lone outlier does not. */
TEST(phases_each_signal)
{
	struct tl_point p[20];
	struct phase_span s[PHASES_MAX];
	const double base[4] = { 0.3, 0.5, 0.5, 400 };
	const double step[4] = { 0.25, 0.55, 0.45, 1300 };

	for (int sig = 0; sig < 4; sig++) {
		for (size_t i = 0; i < 20; i++) {
			double v[4] = { base[0], base[1], base[2], base[3] };

			if (i >= 10)
				v[sig] += step[sig];
			point(&p[i], i, v[0], v[1], v[2], v[3]);
		}
		CHECK_EQ_INT(phases__split(p, 20, 4096, s), 2);
		CHECK_EQ_U64(s[0].end, 10);
	}
	/* Just under each step: one phase. */
	for (int sig = 0; sig < 4; sig++) {
		for (size_t i = 0; i < 20; i++) {
			double v[4] = { base[0], base[1], base[2], base[3] };

			if (i >= 10)
				v[sig] += sig == 3 ? 700 : step[sig] * 0.7;
			point(&p[i], i, v[0], v[1], v[2], v[3]);
		}
		CHECK_EQ_INT(phases__split(p, 20, 4096, s), 1);
	}
	/* The last point differs (a partial interval at the end): no phase. */
	for (size_t i = 0; i < 20; i++)
		point(&p[i], i, i < 19 ? 0.8 : 0.0, 1, 0.9, 300);
	CHECK_EQ_INT(phases__split(p, 20, 4096, s), 1);
}

/*
 * A run that alternates (evaluation every 10 intervals): each side's mean
 * lies between the two behaviours, yet every boundary is a step next to
 * it; the phases follow the blocks, PHASES_MAX at most.
 */
TEST(phases_alternating)
{
	struct tl_point p[90];
	struct phase_span s[PHASES_MAX];
	int n, unsplit = 0;

	for (size_t i = 0; i < 90; i++)
		point(&p[i], i, i / 10 % 2 ? 0.8 : 0.1, 1, 0.5, 300);
	n = phases__split(p, 90, 4096, s);
	CHECK_EQ_INT(n, PHASES_MAX);
	for (int k = 0; k < n; k++) {
		CHECK_EQ_U64(s[k].first % 10, 0);
		CHECK(k == 0 || s[k].first == s[k - 1].end);
		unsplit += s[k].unsplit;
		/* A span of two blocks or more still holds a boundary: said, not dropped. */
		CHECK_EQ_INT(s[k].unsplit, s[k].end - s[k].first >= 20);
	}
	CHECK_EQ_U64(s[n - 1].end, 90);
	CHECK_EQ_INT(unsplit, 1);	/* 9 blocks in 8 phases: one holds two */
}
