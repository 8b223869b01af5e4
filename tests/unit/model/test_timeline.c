// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The timeline: merging keeps every total exact and the run covered, at
 * most TL_MAX_POINTS points, at 10, 3,600 and 100,000 intervals; points
 * taken from a trace add up to the trace's totals.
 */
#include <stdlib.h>
#include "model/hist.h"
#include "model/timeline.h"
#include "model/trace.h"
#include "unit.h"

#define SEC	1000000000ULL

/* A deterministic, uneven interval i: counts that differ point to point. */
static void interval(struct tl_point *p, __u64 i)
{
	memset(p, 0, sizeof(*p));
	p->t_ns = i * SEC;
	p->dur_ns = SEC;
	p->intervals = 1;
	for (int k = 0; k < TL__MAX; k++)
		p->n[k] = (i * 2654435761ULL + k * 40503ULL) % 100003;
	tl_point__add_lat(p, 1000 + (i % 977) * 1013, 1 + i % 7);
	tl_point__add_lat(p, 10, 1);			/* below the first slot */
	tl_point__add_lat(p, 100ULL * SEC, i % 3);	/* beyond the last */
}

static void check_run(__u64 n)
{
	struct timeline tl;
	struct tl_point want, got, p;
	__u64 per;

	REQUIRE(!timeline__init(&tl, 0, SEC));
	memset(&want, 0, sizeof(want));
	for (__u64 i = 0; i < n; i++) {
		interval(&p, i);
		tl_point__merge(&want, &p);
		REQUIRE(!timeline__add(&tl, &p));
		if (tl.nr > TL_MAX_POINTS)
			unit__fail(__FILE__, __LINE__, "%zu points after %llu", tl.nr, i);
	}
	REQUIRE(!timeline__finish(&tl));
	CHECK(tl.nr <= TL_MAX_POINTS);
	timeline__sum(&tl, &got);
	CHECK(!memcmp(&got, &want, sizeof(got)));	/* every count, every slot */
	CHECK_EQ_U64(got.intervals, n);
	/* The step is the smallest power of two that fits the run. */
	for (per = 1; (n + per - 1) / per > TL_MAX_POINTS; per *= 2)
		;
	CHECK_EQ_U64(tl.per_point, per);
	/* Contiguous, from 0 to the end, each point per_point intervals but the last. */
	CHECK_EQ_U64(tl.points[0].t_ns, 0);
	for (size_t i = 0; i < tl.nr; i++) {
		if (i + 1 < tl.nr && tl.points[i].t_ns + tl.points[i].dur_ns != tl.points[i + 1].t_ns)
			unit__fail(__FILE__, __LINE__, "gap after point %zu", i);
		if (i + 1 < tl.nr && tl.points[i].intervals != tl.per_point)
			unit__fail(__FILE__, __LINE__, "point %zu: %llu intervals", i,
				   tl.points[i].intervals);
	}
	CHECK_EQ_U64(tl.points[tl.nr - 1].t_ns + tl.points[tl.nr - 1].dur_ns, n * SEC);
	CHECK(tl.points[tl.nr - 1].intervals <= tl.per_point);
	timeline__free(&tl);
}

TEST(timeline_merge_10)
{
	check_run(10);
}

TEST(timeline_merge_3600)
{
	check_run(3600);
	check_run(3601);
}

TEST(timeline_merge_100000)
{
	check_run(100000);
}

TEST(timeline_quantile_as_hist)
{
	struct tl_point p = {};
	struct hist h = {};

	for (__u64 v = 300; v < 5 * SEC; v = v * 3 / 2 + 7) {
		tl_point__add_lat(&p, v, v % 5 + 1);
		hist__add(&h, v, v % 5 + 1);
	}
	/* In range, a point's percentiles are the report's bucket bounds. */
	CHECK_EQ_U64(tl_point__quantile(&p, 0.5), hist__quantile(&h, 0.5));
	CHECK_EQ_U64(tl_point__quantile(&p, 0.99), hist__quantile(&h, 0.99));
	CHECK_EQ_U64(tl_point__quantile(&(struct tl_point){}, 0.5), 0);
}

/* Two drains of a trace: the points sum to what the trace counted. */
TEST(timeline_take_sums_to_trace)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct thread_stats ts = { .tgid = 7, .comm = "loader", .reads = 10,
				   .cpu_ns = 100, .io_wait_ns = 300 };
	struct tl_point sum;
	struct blk_dev *d, *other;

	REQUIRE(t && !store__init(&t->store));
	REQUIRE(!timeline__init(&t->timeline, 5 * SEC, SEC));
	t->counters[C_READS] = 10;
	t->counters[C_READ_BYTES] = 4096;
	hist__add(&t->hists[H_READ_LAT], 5000, 10);
	REQUIRE(!threads__merge(&t->store.threads, 8, &ts));
	REQUIRE((d = block__dev(&t->block, 1 << 20)));
	d->st[BLK_READ][WHO_TARGET].reqs = 3;
	d->st[BLK_READ][WHO_TARGET].bytes = 3 * 65536;
	d->busy_ns[BLK_SCOPE_TARGET] = SEC / 5;
	d->busy_ns[BLK_SCOPE_DEVICE] = SEC / 4;
	/* A page of a program from a device busy with another job: not the one judged. */
	REQUIRE((other = block__dev(&t->block, 2 << 20)));
	REQUIRE((d = block__dev(&t->block, 1 << 20)));	/* the array may have moved */
	other->st[BLK_READ][WHO_TARGET].reqs = 1;
	other->st[BLK_READ][WHO_TARGET].bytes = 4096;
	other->busy_ns[BLK_SCOPE_DEVICE] = SEC;
	REQUIRE(!timeline__take(&t->timeline, t, 6 * SEC));
	t->counters[C_READS] = 25;
	hist__add(&t->hists[H_READ_LAT], 9 * SEC / 1000, 15);
	REQUIRE(!threads__merge(&t->store.threads, 8, &ts));
	d->st[BLK_READ][WHO_TARGET].bytes = 4 * 65536;
	d->busy_ns[BLK_SCOPE_DEVICE] = SEC / 2;
	other->busy_ns[BLK_SCOPE_DEVICE] = 2 * SEC;
	REQUIRE(!timeline__take(&t->timeline, t, 7 * SEC));
	REQUIRE(!timeline__finish(&t->timeline));
	CHECK_EQ_U64(t->timeline.nr, 2);
	timeline__sum(&t->timeline, &sum);
	CHECK_EQ_U64(sum.n[TL_READS], 25);
	CHECK_EQ_U64(sum.n[TL_READ_BYTES], 4096);
	CHECK_EQ_U64(sum.n[TL_BLK_READS], 4);
	CHECK_EQ_U64(sum.n[TL_BLK_READ_BYTES], 4 * 65536 + 4096);
	CHECK_EQ_U64(sum.n[TL_BUSY_NS], SEC / 2);	/* the dataset's device, all of it */
	CHECK_EQ_U64(sum.n[TL_CPU_NS], 200);
	CHECK_EQ_U64(sum.n[TL_IO_WAIT_NS], 600);
	CHECK_EQ_U64(t->timeline.points[1].t_ns, SEC);
	CHECK_EQ_U64(tl_point__quantile(&t->timeline.points[1], 0.5),
		     hist__upper(hist__slot(9 * SEC / 1000)));
	timeline__free(&t->timeline);
	block__free(&t->block);
	store__free(&t->store);
	free(t);
}

/* What docs/measurement.md states: bytes per point, and at TL_MAX_POINTS. */
TEST(timeline_memory)
{
	CHECK(sizeof(struct tl_point) <= 1848);
	printf("timeline: %zu bytes per point, %.2f MiB at %d points\n",
	       sizeof(struct tl_point), TL_MAX_POINTS * sizeof(struct tl_point) / 1048576.0,
	       TL_MAX_POINTS);
}
