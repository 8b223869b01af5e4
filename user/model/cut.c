// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The recency cut of store__bound() and threads__bound(), see cut.h. */
#include "model/cut.h"

void cut__range(struct cut *c, __u64 x)
{
	c->lo = x < c->lo ? x : c->lo;
	c->hi = x > c->hi ? x : c->hi;
}

void cut__count(struct cut *c, __u64 x)
{
	if (!c->w)
		c->w = (c->hi - c->lo) / CUT_BUCKETS + 1;
	c->n[(x - c->lo) / c->w]++;
}

__u64 cut__at(const struct cut *c, size_t keep)
{
	size_t kept = 0;
	int b;

	for (b = CUT_BUCKETS - 1; b >= 0 && kept + c->n[b] <= keep; b--)
		kept += c->n[b];
	return c->lo + (__u64)(b + 1) * c->w;
}
