/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Log-linear histograms as filled by the BPF side (see HIST_SLOTS in
 * bpf/iostorm.h): each slot covers [lower, upper], within 1/16 of a value.
 */
#ifndef HIST_H
#define HIST_H

#include <linux/types.h>
#include "iostorm.h"

/* Relative error of a value read back from its slot: 1/HIST_SUB. */
#define HIST_REL_ERROR	(1.0 / HIST_SUB)

__u32 hist__slot(__u64 v);
__u64 hist__lower(__u32 slot);
__u64 hist__upper(__u32 slot);
void hist__add(struct hist *h, __u64 v, __u64 n);
void hist__merge(struct hist *dst, const struct hist *src);
/* Copy h into *slot, allocated on first use (a sparse table of histograms). 0 or -ENOMEM. */
int hist__store(struct hist **slot, const struct hist *h);
__u64 hist__count(const struct hist *h);
/* Upper bound of the slot holding the q-quantile (0 < q <= 1); 0 if empty. */
__u64 hist__quantile(const struct hist *h, double q);
/* Upper bound of the highest non-empty slot; 0 if empty. */
__u64 hist__max(const struct hist *h);
/*
 * Counts folded into power-of-two rows of value / unit (unit 0 is 1): row
 * r holds [2^r, 2^(r+1)) units, row 0 holds 0 and 1. A slot goes to the
 * row of its lower bound.
 */
void hist__log2_rows(const struct hist *h, __u64 unit, __u64 rows[64]);

#endif /* HIST_H */
