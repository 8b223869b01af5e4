/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The slot of a value in a log-linear histogram (HIST_SLOTS in iostorm.h),
 * one formula for both sides: BPF programs fill the slots, user space reads
 * them back (user/model/hist.c). Plain C: no BPF helpers, no libc, no compiler
 * builtins (BPF has no count-leading-zeros instruction). Like iostorm.h,
 * it expects __u32 and __u64 from the includer (vmlinux.h or
 * <linux/types.h>).
 */
#ifndef HIST_SLOT_H
#define HIST_SLOT_H

#include "iostorm.h"

/* Index of the most significant set bit of v (v > 0); branch-light. */
static inline __u32 hist_msb64(__u64 v)
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

/*
 * Values below HIST_SUB get their own slot; above, HIST_SUB slots per
 * power of 2. Always below HIST_SLOTS.
 */
static inline __u32 hist_slot(__u64 v)
{
	__u32 m;

	if (v < HIST_SUB)
		return v;
	m = hist_msb64(v);
	return (m - HIST_SUB_BITS + 1) * HIST_SUB +
	       ((v >> (m - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

#endif /* HIST_SLOT_H */
