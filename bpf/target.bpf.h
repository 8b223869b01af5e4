/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who is traced, and what was counted or lost: the knobs user space sets
 * before load, the target filter every program runs first, and the global
 * counters.
 */
#ifndef TARGET_BPF_H
#define TARGET_BPF_H

#include "maps.bpf.h"

/* Knobs, set by user space before load (defined in task.bpf.c). */
extern const volatile __u32 targ_mode;
extern const volatile __u32 targ_self_tgid;
extern const volatile __u64 targ_cgid;
extern const volatile __u32 targ_cg_level;
/*
 * The kernel's tracepoints run their programs preemptibly (7.x): a per-CPU
 * counter's add is then an atomic one, as a run that preempts another
 * between its load and its store on that CPU would lose the other's add.
 * Known at load (.rodata): before 7.x the verifier drops the atomic path.
 */
extern const volatile bool targ_preemptible;
/* The traced window's start (CLOCK_MONOTONIC ns), 0 before; set by user space. */
extern __u64 window_start_ns;

/*
 * TARGET_CGROUP covers the target cgroup's whole subtree (a pod and its
 * containers): a task is in it when its cgroup v2's ancestor at the
 * target's level (the cgroup itself at that level) is the target. A task
 * that moves in is in at once; no per-task state.
 */
#define CG_LEVELS	64	/* ancestors[] indexes kept in bounds */

/* struct cgroup before 6.0, which kept its ancestors' ids (ancestors[] since). */
struct cgroup___ids {
	__u64 ancestor_ids[0];
} __attribute__((preserve_access_index));

static __always_inline bool cgroup_in_target(struct cgroup *cg)
{
	__u32 level = targ_cg_level & (CG_LEVELS - 1);
	struct cgroup *anc = NULL;
	__u64 id = 0;

	if (!cg || cg->level < (int)level)
		return false;
	if (bpf_core_field_exists(struct cgroup___ids, ancestor_ids)) {
		bpf_probe_read_kernel(&id, sizeof(id), (void *)((__u64)cg +
				      bpf_core_field_offset(struct cgroup___ids, ancestor_ids) +
				      level * 8));
		return id == targ_cgid;
	}
	bpf_probe_read_kernel(&anc, sizeof(anc), (void *)((__u64)cg +
			      bpf_core_field_offset(struct cgroup, ancestors) + level * 8));
	return anc && BPF_CORE_READ(anc, kn, id) == targ_cgid;
}

/* The word of the targets bitmap that holds tgid's bit; NULL never happens. */
static __always_inline __u64 *target_word(__u32 tgid)
{
	__u32 w = (tgid >> 6) & (TARGET_WORDS - 1);

	return bpf_map_lookup_elem(&targets, &w);
}

static __always_inline bool tgid_in_targets(__u32 tgid)
{
	__u64 *w = target_word(tgid);

	return w && (*w >> (tgid & 63)) & 1;
}

/* Is the current task part of the traced target? */
static __always_inline bool is_target(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	switch (targ_mode) {
	case TARGET_ALL:
		return tgid != targ_self_tgid;
	case TARGET_CGROUP:
		return bpf_get_current_ancestor_cgroup_id(targ_cg_level) == targ_cgid;
	default:
		return tgid_in_targets(tgid);
	}
}

/*
 * Is task part of the target? For hooks where task is not current and is a
 * BTF pointer (sched_switch runs this twice per context switch: direct
 * loads, no helper calls).
 */
static __always_inline bool task_is_target(struct task_struct *task)
{
	__u32 tgid = task->tgid;

	switch (targ_mode) {
	case TARGET_ALL:
		return tgid != targ_self_tgid && task->pid != 0;
	case TARGET_CGROUP:
		return cgroup_in_target(task->cgroups->dfl_cgrp);
	default:
		return tgid_in_targets(tgid);
	}
}

/* Add n to a per-CPU value: atomically where runs preempt one another (7.x). */
static __always_inline void percpu_add(__u64 *v, __u64 n)
{
	if (targ_preemptible)
		__sync_fetch_and_add(v, n);
	else
		*v += n;
}

/* Add n to counter c (enum counter). */
static __always_inline void count(__u32 c, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &c);

	if (v)
		percpu_add(v, n);
}

/* n events not recorded, for reason (enum lost_reason). */
static __always_inline void count_lost_n(__u32 reason, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&lost, &reason);

	if (v)
		percpu_add(v, n);
}

static __always_inline void count_lost(__u32 reason)
{
	count_lost_n(reason, 1);
}

#endif /* TARGET_BPF_H */
