/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The global log-linear histograms (enum hist_id), on hist_slot.h's formula. */
#ifndef HIST_BPF_H
#define HIST_BPF_H

#include "maps.bpf.h"
#include "hist_slot.h"

static __always_inline void hist_add(__u32 id, __u64 v)
{
	struct hist *h = bpf_map_lookup_elem(&hists, &id);
	__u32 slot = hist_slot(v);

	if (!h || slot >= HIST_SLOTS)
		return;
	h->slots[slot] += 1;
}

#endif /* HIST_BPF_H */
