/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * When to drain a map that a storm fills, and when to look at it again:
 * from how fast its entries grew between two looks, how long the last drain
 * took and how large the map is. The map is drained before it can reach
 * half its size, so a rate that doubles between two looks still fits.
 * Pure: the caller reads the counter and the clock (CLOCK_MONOTONIC ns).
 *
 *   look: fill = count - at_swap        rate = growth since the last look
 *   due when fill + rate * (drain + PACE_LOOK_MIN) >= capacity / 2
 *   next look in (capacity / 2 - fill) / max(rate, PACE_RATE_GUARD) - drain
 *   (clamped to PACE_LOOK_MIN .. the caller's period)
 */
#ifndef LIB_PACE_H
#define LIB_PACE_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * The storm assumed before one is seen: a look comes often enough to catch
 * one this fast from its first file. This VM's 2 CPUs open ~230k cached
 * tiny files/s untraced; 400k leaves room for faster machines.
 */
#define PACE_RATE_GUARD		400000.0	/* entries per second */
#define PACE_LOOK_MIN		500000ULL	/* ns: a look costs a few us */

struct pace {
	__u64 capacity;		/* entries the map holds */
	__u64 at_swap;		/* the counter when the maps were last swapped */
	__u64 count;		/* the counter at the last look */
	__u64 at_ns;		/* the last look */
	double rate;		/* entries per second, the last look's */
	__u64 drain_ns;		/* how long the last drain took: swap + empty */
	__u64 drains;		/* drains so far, early or on schedule */
};

void pace__init(struct pace *p, __u64 capacity, __u64 count, __u64 now_ns);
/*
 * A look: count (entries created, plus entries refused because the map was
 * full, so a full map still shows its rate) at now_ns. True when a drain
 * is due now.
 */
bool pace__due(struct pace *p, __u64 count, __u64 now_ns);
/* The maps were swapped with the counter at at_swap; the drain took drain_ns. */
void pace__drained(struct pace *p, __u64 at_swap, __u64 drain_ns);
/* ns until the next look, from PACE_LOOK_MIN to max_ns. */
__u64 pace__next_ns(const struct pace *p, __u64 max_ns);

#endif /* LIB_PACE_H */
