// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The trace's (sleeper, waker) pairs: an array and an open-addressing index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/wakes.h"

#define WAKES_CAP_MIN	256
#define PRUNE_MIN	4096	/* pairs before the first look at the store */

static size_t pair_slot(const struct wakes *w, const __u32 *index, size_t cap,
			__u32 wakee, __u32 waker)
{
	__u64 h = ((__u64)wakee << 32 | waker) * 0x9e3779b97f4a7c15ULL;
	size_t at = (h >> 32) & (cap - 1);

	for (; index[at]; at = (at + 1) & (cap - 1)) {
		const struct wake_rec *r = &w->v[index[at] - 1];

		if (r->wakee == wakee && r->waker == waker)
			break;
	}
	return at;
}

/* Index every record again into an index of cap slots (a power of two). */
static int wakes__reindex(struct wakes *w, size_t cap)
{
	__u32 *index = calloc(cap, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++)
		index[pair_slot(w, index, cap, w->v[i].wakee, w->v[i].waker)] = i + 1;
	free(w->index);
	w->index = index;
	w->index_cap = cap;
	return 0;
}

static int wakes__grow(struct wakes *w)
{
	size_t cap = w->cap ? 2 * w->cap : WAKES_CAP_MIN;
	struct wake_rec *v = realloc(w->v, cap * sizeof(*v));
	int err;

	if (!v)
		return -ENOMEM;
	w->v = v;
	w->cap = cap;
	if (w->index_cap >= 2 * cap)
		return 0;
	err = wakes__reindex(w, 2 * cap);
	return err;
}

int wakes__add(struct wakes *w, __u32 wakee, __u32 waker, __u64 wakeups, __u64 sleep_ns)
{
	struct wake_rec *r;
	size_t at;

	if (w->n == w->cap && wakes__grow(w))
		return -ENOMEM;
	at = pair_slot(w, w->index, w->index_cap, wakee, waker);
	if (!w->index[at]) {
		w->v[w->n] = (struct wake_rec){ wakee, waker, 0, 0 };
		w->index[at] = ++w->n;
	}
	r = &w->v[w->index[at] - 1];
	r->wakeups += wakeups;
	r->sleep_ns += sleep_ns;
	return 0;
}

void wakes__prune(struct wakes *w, bool (*keep)(const void *ctx, __u32 tid), const void *ctx)
{
	size_t k = 0;

	if (w->n < PRUNE_MIN || w->n < 2 * w->pruned_at)
		return;
	for (size_t i = 0; i < w->n; i++)
		if (keep(ctx, w->v[i].wakee))
			w->v[k++] = w->v[i];
	w->dropped += w->n - k;
	w->n = k;
	w->pruned_at = k;
	/* Same size: the index of the records kept; cannot fail. */
	memset(w->index, 0, w->index_cap * sizeof(*w->index));
	for (size_t i = 0; i < w->n; i++)
		w->index[pair_slot(w, w->index, w->index_cap, w->v[i].wakee, w->v[i].waker)] = i + 1;
}

size_t wakes__bytes(const struct wakes *w)
{
	return w->cap * sizeof(*w->v) + w->index_cap * sizeof(*w->index);
}

void wakes__free(struct wakes *w)
{
	free(w->v);
	free(w->index);
	memset(w, 0, sizeof(*w));
}
