/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Private to the training loop's measure (stall.h). stall.c measures: it
 * marks each thread's roles once (stall_roles.c: readers, writers,
 * tracers, TensorFlow, workloads), finds the loops (stall_find.c), and
 * splits each one's time (stall_split.c) on what it did since its first
 * batch (stall_setup.c); the sides of a loop, by which its sleeps are
 * classed as waits (loader, writer, other loops, pool), are drawn in
 * stall_sides.c. Below them, here: the context they share and its readers.
 */
#ifndef MODEL_STALL_INT_H
#define MODEL_STALL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model/procs.h"
#include "model/stall.h"
#include "model/store.h"
#include "model/wakes.h"

struct trace;
struct cgroups;

#define TREE_DEPTH	64	/* ancestors followed at most */
#define READER_MIN_BYTES 16384	/* read in all by a thread that reads data, at least */
#define TF_POOL		"tf_Compute"	/* TensorFlow's pool threads' name (mark_tf(), stall_roles.c) */
#define TF_DATA		"tf.data"	/* the group of tf.data's threads */

/* What the measure works on: the threads, and the wakes sorted by sleeper. */
struct stall_ctx {
	const struct store *s;
	const struct procs *procs;
	struct wake_rec *wakes;
	size_t nr_wakes;
	bool *loader;		/* by index into s->threads.v: on the loader side */
	bool *writer;		/* on the writer side (writer_side(), stall_sides.c) */
	bool *writes;		/* a writer (mark_writers(), stall_roles.c) */
	bool *peer;		/* on another loop's side (stall_split__loop()) */
	bool *loop;		/* runs a training loop */
	bool *tracer;		/* resumed a thread from a ptrace stop */
	bool *launcher;		/* launched the loop stall_sides__loader() was run for */
	bool *runtime;		/* a launcher or runtime daemon by name (mark_runtimes(), stall_roles.c) */
	bool *pool;		/* computes for the loop (pool_side(), stall_sides.c) */
	bool *tf;		/* in a TensorFlow process (mark_tf(), stall_roles.c) */
	bool *reads;		/* the thread's process read files */
	__u64 *tot, *with;	/* spread()'s scratch (stall_sides.c): wakeups per thread */
	double traced_ns;	/* the trace's duration; 0 when not known */
	double min_wakeups;	/* stall_opts' */
	struct thread_rec since;	/* stall_split__loop() reads it for thread since_i */
	long since_i;		/* -1: none (stall_setup__split()) */
	__u64 *work;		/* by thread: its workload (mark_workloads(), stall_roles.c); NULL: one */
	__u64 cur_work;		/* the workload of the loop the sides are drawn for */
	bool data_faults;	/* faults read data files here (data_faults(), stall_roles.c) */
	__u32 page_size;	/* bytes of a page-cache page */
};

/* Is process tgid anc, or one of its ancestors? */
static inline bool descends(const struct stall_ctx *x, __u32 tgid, __u32 anc)
{
	for (int d = 0; d < TREE_DEPTH && tgid; d++, tgid = procs__parent(x->procs, tgid))
		if (tgid == anc)
			return true;
	return false;
}

/* The wakes of sleeper tid: [*first, *first + return value). */
static inline size_t wakes_of(const struct stall_ctx *x, __u32 tid, size_t *first)
{
	size_t lo = 0, hi = x->nr_wakes, n = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->wakes[mid].wakee < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < x->nr_wakes && x->wakes[lo + n].wakee == tid)
		n++;
	return n;
}

/* Index of tid's record in the store, or -1. */
static inline long thread_idx(const struct store *s, __u32 tid)
{
	const struct thread_rec *th = threads__find(&s->threads, tid);

	return th ? th - s->threads.v : -1;
}

/*
 * A sleep ended by a target thread (not a stop, not in a softirq; exiting
 * or not): its index, or -1.
 */
static inline long plain_waker(const struct stall_ctx *x, const struct wake_rec *w)
{
	if (w->waker == WAKER_OUTSIDE || (w->waker & (WAKER_STOP | WAKER_SOFTIRQ)))
		return -1;
	return thread_idx(x->s, w->waker & ~WAKER_EXIT);
}

/*
 * The same, or the thread a softirq interrupted when soft is set. A loader
 * hands batches over in its own context (pipes, unix sockets, futexes), so
 * a softirq's wakeup is never the loader's: the task it interrupted is
 * often a busy worker. Another rank's is the sender of loopback traffic,
 * delivered in its own softirq: the other loops' side counts them.
 */
static inline long waker_of(const struct stall_ctx *x, const struct wake_rec *w, bool soft)
{
	if (soft && (w->waker & (WAKER_STOP | WAKER_SOFTIRQ)) == WAKER_SOFTIRQ &&
	    (w->waker & ~WAKER_FLAGS) != WAKER_OUTSIDE)
		return thread_idx(x->s, w->waker & ~WAKER_FLAGS);
	return plain_waker(x, w);
}

/*
 * The handoffs among w's wakeups: none where the waker was exiting
 * (WAKER_EXIT). A loop is woken as often as it takes batches; a launcher,
 * once by each command it ran, at its exit.
 */
static inline __u64 handoffs(const struct wake_rec *w)
{
	return w->waker & WAKER_EXIT ? 0 : w->wakeups;
}

static inline __u64 min_u64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

static inline __u64 wall_of(const struct thread_rec *th)
{
	return th->cpu_ns + th->io_wait_ns + th->runq_ns + th->sleep_ns;
}

static inline __u64 reads_of(const struct thread_rec *th)
{
	return th->io.reads + th->io.fault_reads;
}

/* A thread's time in its own writes, syncs, commits and renames of regular files. */
static inline __u64 write_ns_of(const struct thread_rec *th)
{
	return th->w.write_ns + th->w.fsync_ns + th->w.commit_ns;
}

static inline int u32_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

/* ---- each thread's roles, once per measure (stall_roles.c) ---- */

/*
 * Mark x's readers, writers, tracers, TensorFlow threads and launchers
 * known by name, and given workloads each thread's workload. 0 or -ENOMEM.
 */
int stall_roles__mark(struct stall_ctx *x, const struct cgroups *workloads);
__u64 stall_roles__data_reads(const struct stall_ctx *x, const struct thread_rec *th);

/* ---- a loop's sides (stall_sides.c) ---- */

void stall_sides__loader(struct stall_ctx *x, long c);
/* All of loop c's sides: loader, writer, other loops', pool. */
void stall_sides__draw(struct stall_ctx *x, long c);
__u64 stall_sides__wait(const struct stall_ctx *x, long c, const bool *side, bool soft,
			__u64 *wakeups);
__u64 stall_sides__pool_cpu(const struct stall_ctx *x, __u64 *runq);
bool stall_sides__fed_by_pool(const struct stall_ctx *x, long c, __u64 *data_ns);
void stall_sides__group_name(const struct stall_ctx *x, long c, long i, char name[COMM_LEN]);

/* ---- the loops (stall_find.c) ---- */

int stall_find__loops(struct stall_ctx *x, const struct trace *t, const struct stall_opts *o);
int stall_find__given(struct stall_ctx *x, const struct stall_opts *o);

/* ---- a loop's time (stall_split.c) ---- */

void stall_split__loop(struct stall_ctx *x, long c, struct stall *st);

/* ---- a loop's set-up, left out (stall_setup.c) ---- */

bool stall_setup__data_read(const struct store *s);
int stall_setup__keep(struct stall_ctx *x, struct trace *t);
int stall_setup__split(struct stall_ctx *x, const struct trace *t, long i, struct stall *st);

#endif /* MODEL_STALL_INT_H */
