/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who ended whose sleeps, summed over the trace: one record per (sleeper,
 * waker) pair, what model/stall.c tells a training loop's wait for data
 * by. The kernel's wakes map holds only the pairs of the last two drain
 * intervals (struct wake_key.set); each drain adds the interval just ended
 * here. Bounded by the store: a pair whose sleeper the store let go
 * (store__bound()) is dropped once the pairs doubled since the last look.
 */
#ifndef MODEL_WAKES_H
#define MODEL_WAKES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* One (sleeper, waker) pair as the kernel counted it. */
struct wake_rec {
	__u32 wakee;
	__u32 waker;		/* WAKER_OUTSIDE: not a target thread */
	__u64 wakeups;
	__u64 sleep_ns;
};

struct wakes {
	struct wake_rec *v;	/* unsorted */
	size_t n;
	size_t cap;
	__u32 *index;		/* hash on the pair: index + 1 into v, 0 empty */
	size_t index_cap;	/* power of two, at least twice cap */
	size_t pruned_at;	/* n after the last prune */
	__u64 dropped;		/* pairs let go with their sleeper */
	__u64 kernel_high;	/* the most pairs the kernel's map held at a drain */
};

/* Add wakeups and sleep_ns to the pair (wakee, waker), made if new. 0 or -ENOMEM. */
int wakes__add(struct wakes *w, __u32 wakee, __u32 waker, __u64 wakeups, __u64 sleep_ns);
/*
 * Drop the pairs whose sleeper keep() refuses (a thread the store no
 * longer holds), when the pairs doubled since the last time: amortised,
 * a drain's cost stays that of its own pairs.
 */
void wakes__prune(struct wakes *w, bool (*keep)(const void *ctx, __u32 tid), const void *ctx);
/* Bytes of the records and the index, as asked of malloc. */
size_t wakes__bytes(const struct wakes *w);
void wakes__free(struct wakes *w);

#endif /* MODEL_WAKES_H */
