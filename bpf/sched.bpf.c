// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where the target's threads spend their time: on a CPU, off it waiting
 * for I/O, runnable but waiting for a CPU, or asleep for other reasons
 * (an empty queue, a lock, a timer). This answers "top shows the loader
 * busy: is it decode (CPU) or storage?".
 *
 * Off-CPU time counts as I/O wait when the thread left the CPU inside a
 * traced file syscall (open, read, stat...) or in uninterruptible sleep
 * (D state: page-cache misses, mmap faults); asleep in a read of a pipe or
 * a socket, it waits for a thread, not for storage: a sleep. A switch-out
 * with preempt set, or in TASK_RUNNING, is run-queue wait. A D-state sleep outside syscalls
 * after a fault on a file mapping is also charged to that file (fault_ns):
 * the time a mapped dataset's reader waits for its pages.
 *
 * A sleep is also charged to the thread that ended it (sched_waking runs in
 * the waker: current wakes p), per (sleeper, waker) pair: that is how the
 * training loop's wait for data is told from its other waits. So is a
 * stop, to the thread that resumed it (a tracer): see WAKER_STOP. A wait
 * with a timeout that expires and is waited again (PyTorch's DataLoader
 * waits 5 s for a batch, looks at its workers, and waits again) is charged
 * to whoever ends the wait after it: see charge_sleep().
 */
#include "maps.bpf.h"
#include "target.bpf.h"
#include "entry.bpf.h"
#include "thread.bpf.h"
#include "irq.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TASK_RUNNING		0x0000
#define TASK_UNINTERRUPTIBLE	0x0002
#define __TASK_STOPPED		0x0004
#define __TASK_TRACED		0x0008
#define PF_EXITING		0x00000004

enum off_kind {
	OFF_NONE = 0,
	OFF_IO,
	OFF_FAULT,		/* I/O wait outside syscalls, after a file fault */
	OFF_RUNQ,
	OFF_SLEEP,
	OFF_STOP,		/* stopped (SIGSTOP) or ptrace-stopped */
};

#define WAKER_UNSEEN	((__u32)-1)	/* no sched_waking since the switch-out */

/*
 * The (sleeper, waker) pairs of the last two drain intervals (wake_key.set):
 * full only when 16,384 pairs end sleeps within two intervals, then counted
 * (L_WAKES_FULL).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct wake_key);
	__type(value, struct wake_stats);
} wakes SEC(".maps");

/*
 * Is the traced call the thread is in on a pipe or a socket? Asleep there,
 * it waits for the thread at the other end (a DataLoader worker sending a
 * batch's shared memory, a peer's message), not for storage. Read only for
 * an interruptible sleep inside a call: a read of a regular file waits for
 * its pages in D state.
 */
static __always_inline bool in_peer_call(struct task_state *tst)
{
	struct file *f = (struct file *)tst->in.file;
	__u32 mode;

	if (!f)
		return false;
	mode = BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT;
	return mode == S_IFIFO || mode == S_IFSOCK;
}

static __always_inline __u32 off_kind(struct task_state *tst, bool preempt,
				      unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return OFF_RUNQ;
	if (state & (__TASK_STOPPED | __TASK_TRACED))
		return OFF_STOP;
	if (!(state & TASK_UNINTERRUPTIBLE))
		return tst->in.kind != SK_NONE && !in_peer_call(tst) ? OFF_IO : OFF_SLEEP;
	return tst->in.kind == SK_NONE && tst->fault.waiting ? OFF_FAULT : OFF_IO;
}

/*
 * A thread first seen in the window: what it did before is known to have
 * started when the window opened or the thread did, whichever is later
 * (start_time is CLOCK_MONOTONIC, as bpf_ktime_get_ns()).
 */
static __always_inline __u64 since_window(struct task_struct *task, __u64 now)
{
	__u64 t = window_start_ns;

	if (task->start_time > t)
		t = task->start_time;
	return t < now ? t : now;
}

static __always_inline void switch_out(struct task_struct *prev, bool preempt,
				       unsigned int state, __u64 now)
{
	struct task_state *tst;
	struct switch_state *st;

	tst = task_state_of(prev, true);
	if (!tst) {
		count_lost(L_INFLIGHT);
		return;
	}
	st = &tst->sw;
	/* Running since before the window opened: on CPU since it opened. */
	if (!st->on_ts && !st->off_ts && window_start_ns)
		st->on_ts = since_window(prev, now);
	if (st->on_ts)
		thread_of(tst, prev)->cpu_ns += now - st->on_ts;
	st->on_ts = 0;
	st->off_ts = now;
	st->off_kind = off_kind(tst, preempt, state);
	st->waker = WAKER_UNSEEN;
}

/*
 * n waits, off asleep in all, ended by waker: one writer per sleeper, so
 * plain adds. Into the interval's set, which user space drains once the
 * programs moved on.
 */
static __always_inline void charge_waker(struct task_struct *next, __u32 waker, __u32 n,
					 __u64 off)
{
	struct wake_key key = { .wakee = next->pid, .waker = waker, .set = thread_gen & 1 };
	struct wake_stats *w, init = {};

	w = map_lookup_or_init(&wakes, &key, &init);
	if (!w) {
		count_lost(L_WAKES_FULL);
		return;
	}
	w->wakeups += n;
	w->sleep_ns += off;
}

/*
 * The syscalls a thread waits in for something, with a timeout: poll,
 * select and epoll (a multiprocessing queue's pipe), futex (a lock, a
 * condition, a thread queue's). Not nanosleep: a sleep that times out
 * was asked for.
 */
static __always_inline bool timed_wait_nr(__u32 nr)
{
#if defined(__TARGET_ARCH_arm64)
	return nr == 22 || nr == 72 || nr == 73 || nr == 98 || nr == 441 || nr == 449;
#else
	return nr == 7 || nr == 23 || nr == 202 || nr == 232 || nr == 270 || nr == 271 ||
	       nr == 281 || nr == 441 || nr == 449;
#endif
}

/* The syscall task sleeps in (it is off CPU: its registers are saved); ~0 unknown. */
static __always_inline __u32 sleep_nr(struct task_struct *task)
{
	struct pt_regs *regs;

	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs))
		return ~0u;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	return regs ? SYSCALL_NR(regs) : ~0u;
}

/*
 * The waits that timed out, with n (0 or 1) more that off ended, to waker:
 * the wait that ends them, or nobody (an exit, too long ago).
 */
static __always_inline void charge_pending(struct task_struct *task, struct switch_state *st,
					   __u32 waker, __u32 n, __u64 off)
{
	charge_waker(task, waker, st->pend_n + n, st->pend_ns + off);
	st->pend_ns = 0;
	st->pend_n = 0;
}

/* Waits that timed out more than this before the next began are nobody's. */
#define PEND_GAP_NS	(100 * 1000000ULL)

/*
 * Sleep off of next, which began at start and has just ended, to its waker.
 * A wait with a timeout that expired (a timer woke it, in a timed_wait_nr()
 * syscall) is held back: when the thread waits again in the same syscall
 * within PEND_GAP_NS, whoever ends that wait is charged both, for it is
 * what the thread was waiting for all along (a batch that took 7 s behind
 * a 5 s timeout is the loader's 7 s, not 5 s of nobody's and 2 s of the
 * loader's). Held waits are said as the thread's sleep as they happen, and
 * as nobody's (other waits) until the wait that ends them does.
 */
static __always_inline void charge_sleep(struct task_struct *next, struct switch_state *st,
					 __u64 off, __u64 start, __u64 now)
{
	__u32 nr = ~0u;

	if (st->pend_n && start - st->pend_wake > PEND_GAP_NS)
		charge_pending(next, st, WAKER_OUTSIDE, 0, 0);
	if (st->by_timer && st->waker == WAKER_OUTSIDE) {
		nr = sleep_nr(next);
		if (timed_wait_nr(nr)) {
			if (st->pend_n && st->pend_nr != nr)
				charge_pending(next, st, WAKER_OUTSIDE, 0, 0);
			st->pend_ns += off;
			st->pend_n++;
			st->pend_nr = nr;
			st->pend_wake = now;
			return;
		}
	}
	if (st->pend_n && (nr != ~0u ? nr : sleep_nr(next)) == st->pend_nr) {
		charge_pending(next, st, st->waker, 1, off);
		return;
	}
	charge_waker(next, st->waker, 1, off);
}

/* A fault's wait for its pages, charged to the file it faulted on last. */
static __always_inline void charge_fault(struct fault_state *fst, __u64 off, __u64 now)
{
	struct file_key key = {};
	struct file_stats *fs;
	bool need_path;

	count(C_FAULT_NS, off);
	fst->waiting = 0;	/* a later D sleep (a write, a reclaim) is not this fault's */
	key.ino = fst->ino;
	key.dev = fst->dev;
	key.gen = fst->gen;
	fs = file_entry(&key, now, false, &need_path);
	if (fs)
		__sync_fetch_and_add(&fs->fault_ns, off);
}

static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	struct task_state *tst;
	struct switch_state *st;
	struct thread_stats *ts;
	__u64 off;

	tst = task_state_of(next, true);
	if (!tst) {
		count_lost(L_INFLIGHT);
		return;
	}
	st = &tst->sw;
	st->on_ts = now;
	/* Asleep since before the window opened: asleep since it opened. */
	if (!st->off_ts && window_start_ns) {
		st->off_ts = since_window(next, now);
		st->off_kind = OFF_SLEEP;
	}
	if (!st->off_ts)
		return;
	off = now - st->off_ts;
	st->off_ts = 0;
	ts = thread_of(tst, next);
	if (st->off_kind == OFF_RUNQ)		/* for a receive burst (recv.bpf.h) */
		tst->recv.runq_pend += off;
	else
		tst->recv.sleep_pend += off;
	switch (st->off_kind) {
	case OFF_IO:
		ts->io_wait_ns += off;
		break;
	case OFF_FAULT:
		ts->io_wait_ns += off;
		charge_fault(&tst->fault, off, now);
		break;
	case OFF_RUNQ:
		ts->runq_ns += off;
		break;
	case OFF_SLEEP:
		ts->sleep_ns += off;
		if (st->waker != WAKER_UNSEEN)
			charge_sleep(next, st, off, now - off, now);
		break;
	case OFF_STOP:
		ts->sleep_ns += off;
		if (st->waker != WAKER_UNSEEN)
			charge_waker(next, st->waker | WAKER_STOP, 1, off);
		break;
	}
}

/*
 * Every wakeup on the machine passes here: the target test comes first,
 * and the rest is one task-storage lookup and a store. In an interrupt,
 * current is whoever was interrupted: a hardirq's or a timer's wakeup (the
 * GPU's completion, a timeout) is nobody's; a softirq's is flagged
 * (WAKER_SOFTIRQ), see irq.bpf.h.
 */
/*
 * Is waker a thread of the target? A process of the target that exits
 * leaves the targets map at sched_process_exit, before it wakes its
 * parent (waitpid(), SIGCHLD): as it exits, its task storage tells it.
 */
static __always_inline bool waker_is_target(struct task_struct *waker)
{
	if (task_is_target(waker))
		return true;
	return (waker->flags & PF_EXITING) && task_state_of(waker, false);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(handle_sched_waking, struct task_struct *p)
{
	struct task_struct *waker = bpf_get_current_task_btf();
	struct task_state *st;
	__u32 w;

	if (!task_is_target(p))
		return 0;
	st = task_state_of(p, true);
	if (!st)
		return 0;
	w = waker_is_target(waker) ? waker->pid : WAKER_OUTSIDE;
	if (w != WAKER_OUTSIDE)
		w = irq_waker(w);
	if (w != WAKER_OUTSIDE && (waker->flags & PF_EXITING))
		w |= WAKER_EXIT;
	st->sw.waker = w;
	st->sw.by_timer = w == WAKER_OUTSIDE && irq_in_timer();
	return 0;
}

/*
 * A thread's counters are only written from the CPU it switches on or off,
 * and a thread is on one CPU at a time: plain adds are safe here.
 */
static __always_inline void sched_switch(bool preempt, struct task_struct *prev,
					 struct task_struct *next, unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();

	if (task_is_target(prev))
		switch_out(prev, preempt, prev_state, now);
	if (task_is_target(next))
		switch_in(next, now);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(handle_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	sched_switch(preempt, prev, next, prev_state);
	return 0;
}

/*
 * Before 5.18 the tracepoint had no prev_state (fa2c3254d7cf added it, and
 * 9c2136be0878 moved it last): the task's own state word stands in. It can
 * read TASK_RUNNING where prev_state had a sleep that a pending signal
 * cancelled: the task stays runnable, which run-queue wait describes.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(compat_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	sched_switch(preempt, prev, next, prev->__state);
	return 0;
}

/*
 * A thread exits: its last stretch on a CPU ends here, since its final
 * switch is no longer the target's (the process left the targets map);
 * then its counters go to the threads hash map (thread_flush()), for its
 * task storage goes with it. Only target threads have state, so no target
 * test is needed.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_sched_thread_exit, struct task_struct *task)
{
	struct task_state *tst = task_state_of(task, false);
	struct switch_state *st;
	__u64 now;

	if (!tst)
		return 0;
	st = &tst->sw;
	now = bpf_ktime_get_ns();
	if (!st->on_ts && !st->off_ts && window_start_ns)
		st->on_ts = since_window(task, now);
	if (st->on_ts)
		thread_of(tst, task)->cpu_ns += now - st->on_ts;
	st->on_ts = 0;
	st->off_ts = now;	/* so its final switch-out charges nothing more */
	if (st->pend_n)
		charge_pending(task, st, WAKER_OUTSIDE, 0, 0);
	thread_flush(tst, task);
	return 0;
}
