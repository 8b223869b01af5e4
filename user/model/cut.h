/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where to cut a set of recency values (a file's last_ts, a thread's seen)
 * so that at most keep stay: a histogram over CUT_BUCKETS buckets, built in
 * two passes over the records (cut__range() on every value, then
 * cut__count() on every value), no copy of them: a long-running exporter
 * should not churn big blocks through malloc. Start from
 * (struct cut){ .lo = ~0ULL }.
 */
#ifndef MODEL_CUT_H
#define MODEL_CUT_H

#include <stddef.h>
#include <linux/types.h>

#define CUT_BUCKETS	1024

struct cut {
	__u64 lo, hi, w;
	size_t n[CUT_BUCKETS];
};

void cut__range(struct cut *c, __u64 x);
void cut__count(struct cut *c, __u64 x);
/* The value below which records go. */
__u64 cut__at(const struct cut *c, size_t keep);

#endif /* MODEL_CUT_H */
