/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-file and per-thread entries of the current interval, created on
 * first use in the inner map that slot 0 of files_gen / threads_gen points
 * at (see maps.bpf.h).
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

/*
 * The entry of a thread of the target, created when missing. A thread's
 * counters are written only in its own context (its syscalls, its page-cache
 * misses) or by the scheduler as it switches on or off a CPU, each a field
 * of its own: plain adds, no atomics.
 */
static __always_inline struct thread_stats *thread_entry_of(struct task_struct *task)
{
	void *threads = current_threads_map();
	__u32 tid = task->pid;
	struct thread_stats *ts, init = {};

	if (!threads)
		return NULL;
	ts = bpf_map_lookup_elem(threads, &tid);
	if (ts)
		return ts;
	init.tgid = task->tgid;
	init.cgid = task->cgroups->dfl_cgrp->kn->id;
	bpf_probe_read_kernel_str(init.comm, sizeof(init.comm), task->comm);
	ts = map_lookup_or_init(threads, &tid, &init);
	if (!ts)
		count_lost(L_THREADS_FULL);
	return ts;
}

static __always_inline struct thread_stats *thread_entry(void)
{
	return thread_entry_of(bpf_get_current_task_btf());
}

#endif /* ENTRY_BPF_H */
