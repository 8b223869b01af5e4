/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-file entries of the current interval, created on first use in
 * the inner map that slot 0 of files_gen points at (see maps.bpf.h).
 */
#ifndef ENTRY_BPF_H
#define ENTRY_BPF_H

#include "maps.bpf.h"
#include "target.bpf.h"

/*
 * The entry for key in the current files map, created when missing and
 * stamped with now (the caller's clock read; 0 to read it here). When
 * want_path is set and the entry has no path yet, *need_path tells the one
 * caller that claimed it to resolve the path. NULL when the map is full:
 * that is counted as lost.
 */
static __always_inline struct file_stats *file_entry(struct file_key *key, __u64 now,
						     bool want_path, bool *need_path)
{
	void *files = current_files_map();
	struct file_stats *fs, *zero;
	__u32 z = 0, old;

	*need_path = false;
	zero = bpf_map_lookup_elem(&file_zero, &z);
	if (!files || !zero)
		return NULL;
	fs = map_lookup_or_init(files, key, zero);
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
