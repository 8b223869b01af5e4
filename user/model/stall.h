/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Does the training loop wait for data? The consumer is the thread that
 * takes what the loader produces (PyTorch: the main thread, fed by its
 * DataLoader workers through pipes; tf.data: the thread woken by the
 * prefetch queue, or with Keras fit the thread that runs each step's
 * function, fed through its pool; num_workers=0: the thread that reads the
 * files itself). Its computing counts its pool's: the other threads of
 * its process off the loader side and the other loops' (TensorFlow runs a
 * step's kernels in its inter-op and intra-op pools, tf_Compute).
 * Its traced wall time is split, from sched_switch and who ended each of
 * its sleeps (sched_waking), into:
 *
 *   data wait   its own file syscalls, sleeps ended by the loader side,
 *               I/O wait outside syscalls (faults on mapped data), and
 *               its time receiving batches from the loader side (the
 *               bursts of bpf/recv.bpf.h: a pipe read, then sockets and
 *               shared memory), on CPU or runnable; fed through its
 *               pool, the sleeps its pool ended while the pool waited for
 *               the loader (see pool_fed() in stall_sides.c)
 *   write wait  its own writes, syncs and commits of regular files (an
 *               inline checkpoint save), and sleeps ended by the writer
 *               side (a saver thread it joins, a forked checkpointer)
 *   rank wait   sleeps ended by another loop's side (see below)
 *   other wait  sleeps ended by anything else (timers, the GPU driver, its
 *               pool computing, locks) or by nobody seen
 *   runnable    waiting for a CPU after a preemption
 *   on CPU      outside its file syscalls
 *
 * The stall share is data wait over the loop's wall time, the figure a
 * profiler inside the loop gives (the wait for the next batch over the
 * step time). A wakeup's run-queue delay is part of the sleep it ends, so
 * the wait for a CPU after the loader woke the loop is data wait; a
 * preemption while it computes is runnable, which the loop's clock counts
 * as step time too.
 *
 * The loader side: threads that read files or fault mapped data in, the
 * threads of other target processes that read files (DataLoader workers
 * and their feeder threads), the threads of the processes below the
 * loop's, its workers (DataLoader workers decoding a cached mapped
 * dataset, which read nothing from storage), and,
 * transitively, threads that wake or are woken by the loader side
 * (tf.data's decode and prefetch threads), never
 * through a loop, a tracer or a writer, nor the loop's launchers: the
 * processes above it (a shell, conda run, torchrun) and those that exited
 * before its program began (its last exec, or its fork: a shim's readlink
 * and subshells), from the times in model/procs.h.
 *
 * The writer side: writers, threads that spent half their busy time or
 * more writing, syncing and committing regular files, and wrote more than
 * they read (a checkpoint saver thread, a forked async checkpointer; not a
 * loader that rewrites a progress file after every sample), and
 * transitively the threads they wake or are woken by, never through a
 * loop, a tracer or the loader side.
 *
 * Interrupts: a wakeup in a device interrupt or a timer is nobody's; one
 * in a softirq (WAKER_SOFTIRQ) is never the loader side's (it hands batches
 * over in its own context), only the other loops' (loopback traffic runs
 * in its sender's softirq): bpf/irq.bpf.h.
 *
 * Several workloads (-a: every job of a node): given the cgroups
 * (stall_opts.workloads), a loop's sides are drawn from its own workload
 * only: its pod (the cgroups whose path names its pod uid), else its Slurm
 * job, else its cgroup. A worker of pod B is never pod A's loader, a rank
 * of job B never pod A's peer.
 *
 * Several loops: every process of the target that runs its own training
 * loop (data-parallel ranks under torchrun, mpirun or a shell) has one,
 * split alone. A process whose ancestor runs a loop is that loop's worker,
 * never a loop itself (the tree comes from model/procs.h). A loop's sleeps
 * ended by another loop, or by the threads the other loops wake that are
 * not on the loader side (collective communication: gloo, NCCL's proxy),
 * are waiting for other ranks (rank wait), not for data. A thread that
 * resumed another from a ptrace stop (strace, gdb) is a tracer: never a
 * loop, never on the loader side.
 */
#ifndef MODEL_STALL_H
#define MODEL_STALL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"
#include "model/store.h"
#include "model/wakes.h"

struct trace;
struct cgroups;

enum consumer_how {
	CONSUMER_NONE = 0,	/* not found: why says so */
	CONSUMER_GIVEN,		/* --consumer TID or COMM */
	CONSUMER_ROOT,		/* the main thread of the traced process */
	CONSUMER_FED,		/* a process main thread the loader feeds */
};

#define STALL_WAKERS	8	/* waker groups kept, most sleep ended first */

struct stall_waker {
	char name[COMM_LEN];	/* comm without a trailing number */
	__u32 threads;
	bool loader;		/* on the loader side */
	bool writer;		/* on the writer side */
	__u64 wakeups;
	__u64 sleep_ns;
};

struct stall {
	enum consumer_how how;
	char why[256];		/* how the consumer was chosen, or why none was */
	__u32 tid;
	__u32 tgid;
	char comm[COMM_LEN];
	__u64 cgid;		/* its thread's cgroup v2 id (model/cgroup.h); 0: not known */
	__u64 wall_ns;		/* data wait + write wait + on CPU + runnable + rank wait +
				 * other wait */
	__u64 data_wait_ns;	/* own_io_ns + loader_wait_ns + I/O wait outside them */
	__u64 own_io_ns;	/* its own file syscalls (read + metadata) */
	__u64 loader_wait_ns;	/* asleep until the loader side woke it */
	__u64 write_wait_ns;	/* own_write_ns + writer_wait_ns */
	__u64 own_write_ns;	/* its own writes, syncs and commits of regular files */
	__u64 writer_wait_ns;	/* asleep until the writer side woke it */
	__u64 writer_wakeups;
	int writer_threads;	/* threads on the writer side */
	__u64 rank_wait_ns;	/* asleep until another loop's side woke it */
	__u64 receive_ns;	/* on CPU or runnable taking batches from the loader */
	__u64 handshake_ns;	/* of loader_wait_ns: asleep in its receive bursts'
				 * socket reads after the first, the handshakes'
				 * round trips (bpf/recv.bpf.h) */
	__u64 pool_data_ns;	/* asleep until its pool woke it, the pool waiting for
				 * the loader (fed through its pool: Keras fit) */
	__u64 other_wait_ns;
	__u64 runnable_ns;
	__u64 on_cpu_ns;
	__u64 loader_wakeups;
	__u64 rank_wakeups;
	struct stall_waker wakers[STALL_WAKERS];
	int nr_wakers;
	int loader_threads;	/* threads on the loader side */
	/*
	 * Its pool: the other threads of its process off the loader side and
	 * the other loops' (TensorFlow's inter-op and intra-op pools, PyTorch's
	 * OpenMP threads), their CPU, and its sleeps they ended (its steps'
	 * kernels, and with pool_data_ns its batches).
	 */
	int pool_threads;
	__u64 pool_cpu_ns;
	__u64 pool_wait_ns;
	/*
	 * The loader's working threads (on the loader side, and reading files
	 * or on CPU LOADER_BUSY of their time at least: relays that only pass
	 * batches on are left out), their time summed by state, and how many
	 * processes other than the loop's own they are in (DataLoader workers).
	 */
	int loader_workers;
	int loader_procs;
	__u64 loader_cpu_ns;
	__u64 loader_runq_ns;
	__u64 loader_io_ns;
	__u64 loader_sleep_ns;
	/* The busiest of them (on CPU or runnable): a pipeline's slowest stage. */
	char busiest_comm[COMM_LEN];
	__u64 busiest_ns;	/* its time on CPU or runnable */
	__u64 busiest_wall_ns;
	__u64 setup_ns;		/* its time before its first batch, left out (stall_setup.c) */
	const char *cause;	/* over the whole run, judged at the end (run/loops.h); NULL: not */
};

/*
 * A process main thread before the job first read data: its counters and
 * its sleeps by waker at the last drain before, what a loop's figures
 * leave out (stall_setup__keep() in stall_setup.c).
 */
struct stall_start {
	__u32 tid;
	bool fed;		/* data was read: th and wakes are final */
	struct thread_rec th;
	struct wake_rec *wakes;	/* its own, as wakee */
	size_t nr_wakes;
};

/* A loop named with --consumer: a thread id, or the busiest thread of a name. */
struct consumer_sel {
	__u32 tid;		/* 0: by comm */
	char comm[COMM_LEN];
};

#define STALL_GIVEN_MAX	64	/* --consumer given this often at most */

/* How the loops are chosen: by the user, or from the traced processes. */
struct stall_opts {
	const struct consumer_sel *given;	/* --consumer; none: iostorm chooses */
	size_t nr_given;
	__u32 root_tgid;	/* the process traced (-p's first, the command); 0: none */
	bool launched;		/* the command was launched (--): its start-up is traced */
	double min_cpu_share;	/* a consumer computes this share of its time at least */
	double min_wakeups;	/* and the loader woke it this often, or it did this many
				 * reads and most of its process tree's */
	const struct cgroups *workloads;	/* non-NULL: sides within a loop's workload */
};

/*
 * Find the training loops of t and split each one's time: t->loops, the
 * most waiting first, and t->stall, the headline: the loop that waits
 * most for data (the slowest rank), or how CONSUMER_NONE with why none was
 * found. 0 or -ENOMEM.
 */
int stall__measure(struct trace *t, const struct stall_opts *o);
/* data_wait_ns / wall_ns, the one share every output prints; -1: no consumer. */
double stall__share(const struct stall *s);
/* write_wait_ns / wall_ns; -1: no consumer. */
double stall__write_share(const struct stall *s);
/* The loop of t that waits most on writes: NULL when none waits on any. */
const struct stall *stall__most_writing(const struct trace *t);
const char *stall__how_name(enum consumer_how how);
/* Free t->starts (stall__measure() keeps them from one drain to the next). */
void stall__starts_free(struct trace *t);

#endif /* MODEL_STALL_H */
