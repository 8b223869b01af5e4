/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The process's capabilities: what it holds, said by name, and the drop
 * to a smaller set once the BPF programs are attached (docs/usage.md,
 * "Privileges"). A set is a bit mask of CAP_* numbers (1ULL << CAP_BPF).
 */
#ifndef LIB_CAPS_H
#define LIB_CAPS_H

#include <stddef.h>
#include <linux/capability.h>
#include <linux/types.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif
#define CAPS_BIT(cap)	(1ULL << (cap))

/* The effective set of the calling thread; 0 when capget() fails. */
__u64 caps__effective(void);

/*
 * Keep only keep (and of it what is held) in the permitted and effective
 * sets, none inheritable or ambient, take the rest out of the bounding set
 * where CAP_SETPCAP allows it, and set no_new_privs: no exec can give any
 * back. capset() is per thread: call before any other thread starts.
 * Returns 0 or -errno.
 */
int caps__drop_all_but(__u64 keep);

/*
 * set as "CAP_BPF, CAP_PERFMON" (capability(7) names; "cap_40" for one
 * this table lacks), or "none". Truncated to len.
 */
void caps__names(__u64 set, char *buf, size_t len);

/* A name as capability(7) spells it, case and the CAP_ prefix optional: the bit, or -EINVAL. */
int caps__parse_one(const char *name);

#endif /* LIB_CAPS_H */
