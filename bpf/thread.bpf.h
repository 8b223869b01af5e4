/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A thread's counters, kept in its own task storage (struct task_state), so
 * the programs that count (every traced syscall, every context switch, every
 * page added) find them with the lookup they already make, not a hash
 * lookup each.
 *
 * Draining without losing a count, as the files maps are drained: the
 * counters come in two sets, and thread_gen (flipped by user space at each
 * drain) says which one the programs write. User space flips it, then swaps
 * threads_gen, which waits for running programs (synchronize_rcu()), so no
 * program writes the other set any more; the drain_threads iterator
 * (task.bpf.c) then takes that set of every live thread. A thread that exits
 * leaves both sets in the threads hash map (thread_flush()), which user space
 * drains next. The iterator and an exit may meet on the old set: each takes
 * a counter with an exchange, so every count is taken exactly once.
 */
#ifndef THREAD_BPF_H
#define THREAD_BPF_H

#include "maps.bpf.h"
#include "target.bpf.h"

/* The set of counters the programs write: thread_gen & 1 (task.bpf.c). */
extern __u32 thread_gen;

/*
 * The thread's counters of this drain interval. A set with tgid 0 is empty:
 * the first use in an interval names it (tgid, cgroup, comm), as a new hash
 * entry was named. Written only by the thread's own programs and by the
 * scheduler as it switches the thread on or off a CPU: plain adds.
 */
static __always_inline struct thread_stats *thread_of(struct task_state *st,
						      struct task_struct *task)
{
	struct thread_stats *ts = &st->gen[thread_gen & 1];

	if (!ts->tgid) {
		ts->tgid = task->tgid;
		ts->cgid = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
		bpf_probe_read_kernel_str(ts->comm, sizeof(ts->comm), task->comm);
	}
	return ts;
}

#define TAKE(f)	__sync_lock_test_and_set(&from->f, 0)

/* Take every counter of from, leaving zeros: into to (added), or dropped. */
static __always_inline void thread_take(struct thread_stats *to, struct thread_stats *from)
{
	to->opens += TAKE(opens);
	to->reads += TAKE(reads);
	to->read_bytes += TAKE(read_bytes);
	to->read_ns += TAKE(read_ns);
	to->stats += TAKE(stats);
	to->meta_ns += TAKE(meta_ns);
	to->cache_pages += TAKE(cache_pages);
	to->fault_reads += TAKE(fault_reads);
	to->cpu_ns += TAKE(cpu_ns);
	to->io_wait_ns += TAKE(io_wait_ns);
	to->runq_ns += TAKE(runq_ns);
	to->sleep_ns += TAKE(sleep_ns);
}

#undef TAKE

/*
 * The entry of set g of thread tid in the current threads hash map, named
 * as the set is (by its process tgid, its comm and the cgroup cgid the
 * thread had when the set was first used: the set's counts are that
 * cgroup's), created when missing.
 */
static __always_inline struct thread_stats *thread_entry(__u32 tid, __u32 g, __u32 tgid,
							 __u64 cgid, const char *comm)
{
	struct thread_key key = { .tid = tid, .set = g };
	void *threads = current_threads_map();
	struct thread_stats *ts, init = {};

	if (!threads)
		return NULL;
	ts = bpf_map_lookup_elem(threads, &key);
	if (ts)
		return ts;
	init.tgid = tgid;
	init.cgid = cgid;
	__builtin_memcpy(init.comm, comm, COMM_LEN);
	ts = map_lookup_or_init(threads, &key, &init);
	if (!ts)
		count_lost(L_THREADS_FULL);
	return ts;
}

/*
 * A thread exits: both sets go to the threads hash map (the task and its
 * storage vanish before the next drain could read them), each to an entry
 * of its own: the set of the interval that just ended may await the drain
 * iterator still, and the thread may have changed cgroups since.
 */
static __always_inline void thread_flush(struct task_state *st, struct task_struct *task)
{
	struct thread_stats *set, *ts;

	for (__u32 g = 0; g < 2; g++) {
		set = &st->gen[g];
		if (!set->tgid)
			continue;
		ts = thread_entry(task->pid, g, set->tgid, set->cgid, set->comm);
		if (!ts)
			continue;	/* counted as lost; try the other set */
		thread_take(ts, set);
	}
}

#endif /* THREAD_BPF_H */
