/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-file entries of the current interval: slots of the files table's
 * half that file_gen names (see maps.bpf.h, and bpf/table.h for a slot's
 * claim), taken on first use.
 */
#ifndef ENTRY_BPF_H
#define ENTRY_BPF_H

#include "maps.bpf.h"
#include "target.bpf.h"
#include "table.h"

/*
 * slot_match() of slot idx of the files table (stored key words), or
 * SLOT_FREE when there is no such slot. A global function of its own: the
 * verifier sees one outcome of it, not each of its branches at every
 * probe of file_slot()'s loop (inlined, the loop did not verify in 1M
 * instructions).
 */
__weak __noinline int file_slot_try(__u32 idx, __u64 ino, __u32 dev, int claim)
{
	struct file_stats *s = bpf_map_lookup_elem(&files, &idx);

	if (!s)
		return SLOT_FREE;
	return slot_match(s, ino, dev, claim);
}

/*
 * The index in the files table of the file (ino, dev), claiming a free
 * slot for it when claim is set; -1 when it has none: not claimed, or no
 * slot free in SLOT_PROBES (the caller counts that as lost). A global
 * function (weak: each build that includes this carries it, the link keeps
 * one): the verifier checks the probe loop once, not at each caller.
 */
__weak __noinline int file_slot(__u64 ino, __u32 dev, int claim)
{
	__u32 n = targ_file_slots, i, k;
	int m;

	ino ^= SLOT_INO_FLIP;
	dev = ~dev;
	if (!ino || !n)
		return -1;	/* an inode number 1 << 63: no file system's */
	i = (file_gen & 1) * SLOT_HALF(n) + slot_home(ino, dev, n);
	for (k = 0; k < SLOT_PROBES; k++, i++) {
		m = file_slot_try(i, ino, dev, claim);
		if (m == SLOT_MINE)
			return i;
		if (m == SLOT_FREE)
			return -1;
	}
	return -1;
}

/* The entry of key in the current half when it has one; NULL if not. */
static __always_inline struct file_stats *file_find(const struct file_key *key)
{
	int idx = file_slot(key->ino, key->dev, 0);

	return idx < 0 ? NULL : bpf_map_lookup_elem(&files, &idx);
}

/*
 * The entry for key in the current half, taken when missing and stamped
 * with now (the caller's clock read; 0 to read it here). When want_path is
 * set and the entry has no path yet, *need_path tells the one caller that
 * claimed it to resolve the path. NULL when the table has no slot for it:
 * that is counted as lost.
 */
static __always_inline struct file_stats *file_entry(struct file_key *key, __u64 now,
						     bool want_path, bool *need_path)
{
	struct file_stats *fs = NULL;
	int idx;
	__u32 old;

	*need_path = false;
	idx = file_slot(key->ino, key->dev, 1);
	if (idx >= 0)
		fs = bpf_map_lookup_elem(&files, &idx);
	if (!fs) {
		count_lost(L_FILES_FULL);
		return NULL;
	}
	/* A new entry: several CPUs may find it unstamped, one stamps it. */
	if (!fs->first_ts &&
	    !__sync_val_compare_and_swap(&fs->first_ts, 0, now ?: bpf_ktime_get_ns()))
		count(C_FILE_ENTRIES, 1);
	if (want_path && !(fs->flags & FILE_F_PATH)) {
		old = __sync_fetch_and_or(&fs->flags, FILE_F_CLAIM);
		*need_path = !(old & FILE_F_CLAIM);
	}
	return fs;
}

#endif /* ENTRY_BPF_H */
