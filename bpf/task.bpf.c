// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process scope: the target's processes are followed from fork to exit, so
 * worker processes forked after the attach (PyTorch DataLoader workers)
 * join the target, and exited ones leave it (a reused pid is not traced).
 * Threads need nothing: the scope is keyed by tgid.
 */
#include "maps.bpf.h"
#include "target.bpf.h"
#include "entry.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 targ_mode = TARGET_PIDS;
/* When every program was attached (CLOCK_MONOTONIC ns), set by user space. */
__u64 window_start_ns;
const volatile __u32 targ_self_tgid = 0;
const volatile __u64 targ_cgid = 0;
const volatile __u32 targ_cg_level = 0;	/* of targ_cgid: 0 for the root */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_sched_process_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u64 bit = 1ULL << (ctgid & 63), *w;

	if (targ_mode != TARGET_PIDS || ptgid == ctgid || !tgid_in_targets(ptgid))
		return 0;
	w = target_word(ctgid);
	if (w && !(__sync_fetch_and_or(w, bit) & bit))
		count(C_FORKS, 1);
	return 0;
}

/*
 * Fires for every exiting thread; the process leaves the target when its
 * last thread goes (signal->live is decremented before this tracepoint).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_sched_process_exit, struct task_struct *task)
{
	__u32 tgid = task->tgid;
	__u64 bit = 1ULL << (tgid & 63), *w;

	if (targ_mode != TARGET_PIDS)
		return 0;
	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	w = target_word(tgid);
	if (w && (__sync_fetch_and_and(w, ~bit) & bit))
		count(C_EXITS, 1);
	return 0;
}

/*
 * exec renames the thread ("python3" after "sh"): a thread entry made
 * earlier in the interval would report the old name for the whole run.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_sched_process_exec, struct task_struct *task)
{
	struct thread_stats *ts;

	if (!task_is_target(task))
		return 0;
	ts = thread_entry_of(task);
	if (ts)
		bpf_probe_read_kernel_str(ts->comm, sizeof(ts->comm), task->comm);
	return 0;
}
