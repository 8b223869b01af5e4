// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Drains paced by a map's fill rate and size: see pace.h. */
#include "lib/pace.h"

#define NS_PER_S	1e9

void pace__init(struct pace *p, __u64 capacity, __u64 count, __u64 now_ns)
{
	*p = (struct pace){ .capacity = capacity, .at_swap = count, .count = count,
			    .at_ns = now_ns };
}

static __u64 fill_of(const struct pace *p)
{
	return p->count > p->at_swap ? p->count - p->at_swap : 0;
}

/*
 * The rate since the last look; a look too soon after it (a drain in
 * between) keeps the older figure rather than divide by next to nothing.
 */
bool pace__due(struct pace *p, __u64 count, __u64 now_ns)
{
	__u64 dt = now_ns > p->at_ns ? now_ns - p->at_ns : 0;
	double ahead;

	if (dt >= PACE_LOOK_MIN / 4) {
		p->rate = count > p->count ? (count - p->count) * NS_PER_S / dt : 0;
		p->at_ns = now_ns;
		p->count = count;
	} else if (count > p->count) {
		p->count = count;
	}
	ahead = p->rate * (p->drain_ns + PACE_LOOK_MIN) / NS_PER_S;
	return fill_of(p) + ahead >= p->capacity / 2.0;
}

void pace__drained(struct pace *p, __u64 at_swap, __u64 drain_ns)
{
	p->at_swap = at_swap;
	if (at_swap > p->count)
		p->count = at_swap;
	p->drain_ns = drain_ns;
	p->drains++;
}

__u64 pace__next_ns(const struct pace *p, __u64 max_ns)
{
	double rate = p->rate > PACE_RATE_GUARD ? p->rate : PACE_RATE_GUARD;
	double room = p->capacity / 2.0 - fill_of(p), ns;

	ns = room > 0 ? room / rate * NS_PER_S - p->drain_ns : 0;
	if (ns < PACE_LOOK_MIN)
		return PACE_LOOK_MIN < max_ns ? PACE_LOOK_MIN : max_ns;
	return ns < max_ns ? (__u64)ns : max_ns;
}
