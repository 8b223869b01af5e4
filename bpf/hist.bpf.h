/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The global log-linear histograms (enum hist_id), on hist_slot.h's formula. */
#ifndef HIST_BPF_H
#define HIST_BPF_H

#include "maps.bpf.h"
#include "target.bpf.h"
#include "hist_slot.h"

/*
 * The slot is computed after the lookup, so no helper call stands between
 * its bounds check and its use: 6.1's verifier loses the bounds of a
 * scalar the compiler spilled across a call and reloaded.
 */
static __always_inline void hist_add(__u32 id, __u64 v)
{
	struct hist *h = bpf_map_lookup_elem(&hists, &id);
	__u32 slot;

	if (!h)
		return;
	slot = hist_slot(v);
	if (slot < HIST_SLOTS)
		percpu_add(&h->slots[slot], 1);
}

#endif /* HIST_BPF_H */
