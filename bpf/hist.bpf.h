/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Log-linear histogram slots (see HIST_SLOTS in iostorm.h). */
#ifndef HIST_BPF_H
#define HIST_BPF_H

#include "common.bpf.h"

/* Index of the most significant set bit of v (v > 0); branch-light. */
static __always_inline __u32 msb64(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xFFFFFFFFULL) << 5; v >>= s; r |= s;
	s = (v > 0xFFFF) << 4; v >>= s; r |= s;
	s = (v > 0xFF) << 3; v >>= s; r |= s;
	s = (v > 0xF) << 2; v >>= s; r |= s;
	s = (v > 0x3) << 1; v >>= s; r |= s;
	r |= (v >> 1);
	return r;
}

/* Values below HIST_SUB get their own slot; above, 16 slots per power of 2. */
static __always_inline __u32 hist_slot(__u64 v)
{
	__u32 m;

	if (v < HIST_SUB)
		return v;
	m = msb64(v);
	return (m - HIST_SUB_BITS + 1) * HIST_SUB +
	       ((v >> (m - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

static __always_inline void hist_add(__u32 id, __u64 v)
{
	struct hist *h = bpf_map_lookup_elem(&hists, &id);
	__u32 slot = hist_slot(v);

	if (!h || slot >= HIST_SLOTS)
		return;
	h->slots[slot] += 1;
}

#endif /* HIST_BPF_H */
