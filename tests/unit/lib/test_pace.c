// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Drains paced by fill rate and map size (lib/pace.h). */
#include "lib/pace.h"
#include "unit.h"

#define MS	1000000ULL

/* Idle: looks come as often as the guard rate needs, more often for a small map. */
TEST(pace_idle)
{
	struct pace small, big;

	pace__init(&small, 4096, 0, 0);
	pace__init(&big, 32768, 0, 0);
	CHECK(!pace__due(&small, 0, 10 * MS));
	CHECK(!pace__due(&big, 0, 10 * MS));
	/* 2048 entries at 400k/s: 5.12 ms; 16384: 41 ms; capped by the caller's 50. */
	CHECK_EQ_U64(pace__next_ns(&small, 50 * MS), 5120000);
	CHECK_EQ_U64(pace__next_ns(&big, 50 * MS), 40960000);
	CHECK_EQ_U64(pace__next_ns(&big, 20 * MS), 20 * MS);
}

/* A storm: due before half full, counting what arrives during a drain. */
TEST(pace_storm)
{
	struct pace p;

	pace__init(&p, 4096, 0, 0);
	pace__drained(&p, 0, 10 * MS);		/* a drain takes 10 ms */
	CHECK(!pace__due(&p, 0, 1 * MS));
	/* 100 entries in 1 ms = 100k/s: 10.5 ms ahead is 1,050 more; 1,150 < 2,048. */
	CHECK(!pace__due(&p, 100, 2 * MS));
	CHECK(p.rate > 99999 && p.rate < 100001);
	/* room 1,948 at 400k/s (the guard, above the rate) = 4.87 ms, less 10: the minimum. */
	CHECK_EQ_U64(pace__next_ns(&p, 50 * MS), PACE_LOOK_MIN);
	/* 1,000 at 100k/s: 1,000 + 1,050 >= 2,048: drain now. */
	CHECK(pace__due(&p, 1000, 11 * MS));
	pace__drained(&p, 1000, 10 * MS);
	CHECK_EQ_U64(p.drains, 2);
	/* Right after: nothing since the swap, due again once the rate says so. */
	CHECK(!pace__due(&p, 1000, 11 * MS + 1));
	CHECK(pace__due(&p, 2000, 21 * MS));
}

/* Refused entries (a full map) count: the rate still shows, the drain is due. */
TEST(pace_full_map)
{
	struct pace p;

	pace__init(&p, 1024, 0, 0);
	CHECK(pace__due(&p, 1024 + 5000, 5 * MS));
	CHECK_EQ_U64(pace__next_ns(&p, 50 * MS), PACE_LOOK_MIN);
}
