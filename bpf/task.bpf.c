// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process scope: the target's processes are followed from fork to exit, so
 * worker processes forked after the attach (PyTorch DataLoader workers)
 * join the target, and exited ones leave it (a reused pid is not traced).
 * Threads need nothing: the scope is keyed by tgid.
 */
#include "maps.bpf.h"
#include "target.bpf.h"
#include "thread.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 targ_mode = TARGET_PIDS;
/* When every program was attached (CLOCK_MONOTONIC ns), set by user space. */
__u64 window_start_ns;
/* Which set of a thread's counters the programs write (thread.bpf.h). */
__u32 thread_gen;
/* Which half of the files table the programs fill (maps.bpf.h). */
__u32 file_gen;
/* Home slots of a half of the files table (maps.bpf.h): set by user space. */
const volatile __u32 targ_file_slots = 32768 - 63;
const volatile __u32 targ_self_tgid = 0;
const volatile __u64 targ_cgid = 0;
const volatile __u32 targ_cg_level = 0;	/* of targ_cgid: 0 for the root */
const volatile bool targ_preemptible = false;	/* target.bpf.h */

/*
 * Each process forked into the target, exec'd or exited in it, with its
 * parent and when (struct proc_life): the training loops' worker
 * processes are their children, data-parallel ranks are siblings, and a
 * launcher's helpers ended before the job's program began (model/stall_sides.c).
 * User space takes them at every drain; a live process's parent also comes
 * with its threads (drain_threads).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* forks are rare: no 2.6 MB up front */
	__uint(max_entries, 16384);
	__type(key, __u32);	/* the process's tgid */
	__type(value, struct proc_life);
} forks SEC(".maps");

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_sched_process_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct proc_life ev = { .ptgid = ptgid, .fork_ns = child->start_time };
	__u64 bit = 1ULL << (ctgid & 63), *w;

	if (ptgid == ctgid || !task_is_target(parent))
		return 0;
	if (bpf_map_update_elem(&forks, &ctgid, &ev, BPF_ANY))
		count_lost(L_FORKS_FULL);
	if (targ_mode != TARGET_PIDS)
		return 0;
	w = target_word(ctgid);
	if (w && !(__sync_fetch_and_or(w, bit) & bit))
		count(C_FORKS, 1);
	return 0;
}

/*
 * The forks entry of task's process, made when missing or when it is an
 * earlier process's of the same tgid (not drained yet); NULL when the map
 * is full (counted).
 */
static __always_inline struct proc_life *proc_life_of(struct task_struct *task)
{
	__u64 start = BPF_CORE_READ(task, group_leader, start_time);
	struct proc_life *ev, init = { .fork_ns = start };
	__u32 tgid = task->tgid;

	ev = bpf_map_lookup_elem(&forks, &tgid);
	if (ev && ev->fork_ns == start)
		return ev;
	init.ptgid = BPF_CORE_READ(task, real_parent, tgid);
	if (!bpf_map_update_elem(&forks, &tgid, &init, BPF_ANY))
		ev = bpf_map_lookup_elem(&forks, &tgid);
	else
		ev = NULL;
	if (!ev)
		count_lost(L_FORKS_FULL);
	return ev;
}

/*
 * Fires for every exiting thread; the process leaves the target when its
 * last thread goes (signal->live is decremented before this tracepoint),
 * and its exit is noted.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_sched_process_exit, struct task_struct *task)
{
	__u32 tgid = task->tgid;
	__u64 bit = 1ULL << (tgid & 63), *w;
	struct proc_life *ev;

	if (BPF_CORE_READ(task, signal, live.counter) != 0 || !task_is_target(task))
		return 0;
	ev = proc_life_of(task);
	if (ev)
		ev->exit_ns = bpf_ktime_get_ns();
	if (targ_mode != TARGET_PIDS)
		return 0;
	w = target_word(tgid);
	if (w && (__sync_fetch_and_and(w, ~bit) & bit))
		count(C_EXITS, 1);
	return 0;
}

/*
 * exec renames the thread ("python3" after "sh"): a thread entry made
 * earlier in the interval would report the old name for the whole run.
 * And the process's program begins: its exec is noted.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_sched_process_exec, struct task_struct *task)
{
	struct proc_life *ev;
	struct task_state *st;

	if (!task_is_target(task))
		return 0;
	st = task_state_of(task, true);
	if (st)
		bpf_probe_read_kernel_str(thread_of(st, task)->comm, COMM_LEN, task->comm);
	ev = proc_life_of(task);
	if (ev)
		ev->exec_ns = bpf_ktime_get_ns();
	return 0;
}

/*
 * The drain's half of thread.bpf.h: run by user space over every task after
 * it flipped thread_gen and waited for running programs. Each thread's set
 * of the interval that just ended is taken (exchanged with zeros, as an
 * exiting thread may take it at the same moment) and written out as a
 * struct thread_out; the set is left empty.
 */
SEC("iter/task")
int drain_threads(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct thread_stats *old;
	struct thread_out rec = {};
	struct task_state *st;

	if (!task)
		return 0;
	st = task_state_of(task, false);
	if (!st)
		return 0;
	old = &st->gen[(thread_gen & 1) ^ 1];
	if (!old->tgid)
		return 0;
	rec.tid = task->pid;
	rec.ptgid = BPF_CORE_READ(task, real_parent, tgid);
	rec.s.tgid = old->tgid;
	rec.s.cgid = old->cgid;
	__builtin_memcpy(rec.s.comm, old->comm, COMM_LEN);
	thread_take(&rec.s, old);
	old->tgid = 0;
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}
