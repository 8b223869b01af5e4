/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a run changes behaviour: the timeline's points split into phases
 * by binary segmentation. A segment is split at the point boundary where
 * its two sides differ most, weighted toward balanced sides, when they
 * differ by a step at least on one signal:
 *
 *   the loop's stall share   PHASE_STALL_STEP (0.2) apart
 *   reads from storage       the share of the bytes read that the page
 *                            cache took in, PHASE_MISS_STEP (0.5) apart
 *   the device's load        the target's busy share, PHASE_UTIL_STEP apart
 *   the read rate            PHASE_RATE_STEP (3) times apart, both sides at
 *                            PHASE_RATE_MIN reads/s at least
 *
 * A side is PHASE_MIN_POINTS points at least, a signal counts only where
 * both sides measured it (a loop's time, PHASE_MISS_MIN_BYTES read), and
 * two thirds of the PHASE_WINDOW points on each side of the boundary must
 * be nearer their own side's value than the other's: a step there, not a
 * mean moved by a lone outlier (the last, partial interval). A span's best
 * split is found once, in one pass over its points.
 * The best split of all segments is taken first, up to PHASES_MAX phases;
 * a span that still holds a step then is marked unsplit, so the cap is
 * said, not silent. A steady run is one phase. Pure: unit-tested on
 * synthetic points.
 */
#ifndef MODEL_PHASES_H
#define MODEL_PHASES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model/timeline.h"

#define PHASES_MAX		8
#define PHASE_MIN_POINTS	3
#define PHASE_WINDOW		6	/* points each side of a boundary that must agree */
#define PHASE_STALL_STEP	0.2
#define PHASE_MISS_STEP		0.5
#define PHASE_MISS_MIN_BYTES	(4ULL << 20)
#define PHASE_UTIL_STEP		0.4
#define PHASE_RATE_STEP		3.0
#define PHASE_RATE_MIN		20.0

/* Points [first, end) of the timeline. */
struct phase_span {
	size_t first;
	size_t end;
	bool unsplit;		/* holds a change PHASES_MAX kept from splitting */
};

/*
 * Split n points into spans, in time order, into out[] (room for
 * PHASES_MAX); page_size converts page-cache pages to bytes. Returns how
 * many (1 for a steady run, 0 without points) or -ENOMEM.
 */
int phases__split(const struct tl_point *p, size_t n, __u32 page_size,
		  struct phase_span out[PHASES_MAX]);
/* The points of a span summed into one (tl_point__merge()). */
void phases__sum(const struct tl_point *p, const struct phase_span *s, struct tl_point *sum);

#endif /* MODEL_PHASES_H */
