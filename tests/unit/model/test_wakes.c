// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace's (sleeper, waker) pairs as the drains bring them: each
 * interval's pairs summed onto the trace's, and the pairs of sleepers the
 * store let go dropped, so that they stay bounded by the store.
 */
#include <stdbool.h>
#include "model/wakes.h"
#include "unit.h"

static const struct wake_rec *find(const struct wakes *w, __u32 wakee, __u32 waker)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].wakee == wakee && w->v[i].waker == waker)
			return &w->v[i];
	return NULL;
}

/* Three drains of a loop (100) woken by its loader (200) and by nobody (0). */
TEST(wakes_summed_over_drains)
{
	struct wakes w = {};
	const struct wake_rec *r;

	for (int d = 0; d < 3; d++) {
		CHECK_EQ_INT(wakes__add(&w, 100, 200, 10, 1000), 0);
		CHECK_EQ_INT(wakes__add(&w, 100, 0, 1, 7), 0);
	}
	CHECK_EQ_U64(w.n, 2);
	r = find(&w, 100, 200);
	REQUIRE(r);
	CHECK_EQ_U64(r->wakeups, 30);
	CHECK_EQ_U64(r->sleep_ns, 3000);
	r = find(&w, 100, 0);
	REQUIRE(r);
	CHECK_EQ_U64(r->wakeups, 3);
	CHECK_EQ_U64(r->sleep_ns, 21);
	wakes__free(&w);
}

static bool even_tid(const void *ctx, __u32 tid)
{
	return tid % 2 == 0;
}

/*
 * 10,000 short threads (tid 1000..10999) each woken once: the odd ones
 * left the store, so their pairs go; the rest stay found, summed on.
 */
TEST(wakes_pruned_with_the_store)
{
	struct wakes w = {};
	const struct wake_rec *r;

	for (__u32 tid = 1000; tid < 11000; tid++)
		CHECK_EQ_INT(wakes__add(&w, tid, 1, 1, 5), 0);
	CHECK_EQ_U64(w.n, 10000);
	wakes__prune(&w, even_tid, NULL);
	CHECK_EQ_U64(w.n, 5000);
	CHECK_EQ_U64(w.dropped, 5000);
	CHECK(!find(&w, 1001, 1));
	CHECK_EQ_INT(wakes__add(&w, 1002, 1, 1, 5), 0);
	CHECK_EQ_U64(w.n, 5000);
	r = find(&w, 1002, 1);
	REQUIRE(r);
	CHECK_EQ_U64(r->wakeups, 2);
	/* Not doubled since: the next look waits. */
	wakes__prune(&w, even_tid, NULL);
	CHECK_EQ_U64(w.n, 5000);
	wakes__free(&w);
}
