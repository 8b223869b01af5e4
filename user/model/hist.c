// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Log-linear histograms as the BPF programs fill them: the slot of a value
 * is bpf/hist_slot.h's, shared with the programs; here its bounds, sums and
 * quantiles.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "hist_slot.h"
#include "model/hist.h"

__u32 hist__slot(__u64 v)
{
	return hist_slot(v);
}

__u64 hist__lower(__u32 slot)
{
	__u32 m, sub;

	if (slot < HIST_SUB)
		return slot;
	m = slot / HIST_SUB + HIST_SUB_BITS - 1;
	sub = slot % HIST_SUB;
	return (__u64)(HIST_SUB + sub) << (m - HIST_SUB_BITS);
}

__u64 hist__upper(__u32 slot)
{
	if (slot + 1 >= HIST_SLOTS)
		return ~0ULL;
	return hist__lower(slot + 1) - 1;
}

void hist__add(struct hist *h, __u64 v, __u64 n)
{
	h->slots[hist__slot(v)] += n;
}

void hist__merge(struct hist *dst, const struct hist *src)
{
	for (int i = 0; i < HIST_SLOTS; i++)
		dst->slots[i] += src->slots[i];
}

__u64 hist__count(const struct hist *h)
{
	__u64 n = 0;

	for (int i = 0; i < HIST_SLOTS; i++)
		n += h->slots[i];
	return n;
}

__u64 hist__quantile(const struct hist *h, double q)
{
	__u64 total = hist__count(h), seen = 0, rank;

	if (!total)
		return 0;
	/* The smallest value v with at least q * total values <= v. */
	rank = (__u64)(q * total + 0.999999);
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < HIST_SLOTS; i++) {
		seen += h->slots[i];
		if (seen >= rank)
			return hist__upper(i);
	}
	return hist__max(h);
}

__u64 hist__max(const struct hist *h)
{
	for (int i = HIST_SLOTS - 1; i >= 0; i--)
		if (h->slots[i])
			return hist__upper(i);
	return 0;
}

void hist__log2_rows(const struct hist *h, __u64 unit, __u64 rows[64])
{
	memset(rows, 0, 64 * sizeof(rows[0]));
	for (int i = 0; i < HIST_SLOTS; i++) {
		__u64 v = hist__lower(i) / (unit ? unit : 1);

		if (h->slots[i])
			rows[v < 2 ? 0 : hist_msb64(v)] += h->slots[i];
	}
}

int hist__store(struct hist **slot, const struct hist *h)
{
	if (!*slot)
		*slot = malloc(sizeof(**slot));
	if (!*slot)
		return -ENOMEM;
	**slot = *h;
	return 0;
}
