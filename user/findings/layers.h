/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a read's time goes: the verdict on the latency by layer that
 * model/layers.h measures.
 */
#ifndef FINDINGS_LAYERS_H
#define FINDINGS_LAYERS_H

#include "model/layers.h"

enum layer_verdict {
	LAYER_NONE = 0,		/* no reads */
	LAYER_ABOVE,		/* read() waits beyond its block requests */
	LAYER_CACHE,		/* the device supplied few of the bytes read */
	LAYER_QUEUE,		/* slow requests, mostly waiting in the queue */
	LAYER_DEVICE,		/* slow requests, mostly in the device */
	LAYER_OK,		/* block requests explain read(), and are fast */
	LAYER__MAX,
};

/*
 * Thresholds of layers__judge(), in the order the rules are tried:
 * ABOVE: read() time, with mapped data's faults' wait, is at least
 *        LAYER_ABOVE_RATIO times the block time and exceeds it by
 *        LAYER_ABOVE_MIN_NS per read or fault on average (a copy from the
 *        page cache costs ~0.1 ms per MiB, far less);
 * CACHE: the target's block reads brought less than LAYER_CACHE_PCT % of
 *        the bytes read() returned and the faults brought in;
 * QUEUE / DEVICE: a block read takes LAYER_SLOW_NS or more on average, and
 *        queue time is more (QUEUE) or not (DEVICE) than device time;
 * OK:    the rest.
 */
#define LAYER_ABOVE_RATIO	2
#define LAYER_ABOVE_MIN_NS	500000ULL
#define LAYER_CACHE_PCT		10
#define LAYER_SLOW_NS		1000000ULL

/* Where a read's time goes, by the rules above. Pure. */
enum layer_verdict layers__judge(const struct layer_sums *s);
/* "above_block", "page_cache", "queue", "device", "ok", "none". */
const char *layers__key(enum layer_verdict v);
/* The verdict in words, one sentence without a full stop. */
const char *layers__words(enum layer_verdict v);

#endif /* FINDINGS_LAYERS_H */
