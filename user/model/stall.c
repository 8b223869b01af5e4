// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The training loop's wait for data, see stall.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/cgroup.h"
#include "model/procs.h"
#include "model/stall.h"
#include "model/trace.h"

#define LOADER_ROUNDS	16	/* passes over the wakes: pipelines are a few stages deep */
#define CONSUMER_BUSY	0.5	/* a loop never woken by the loader computes this much */
#define CONSUMER_LIFETIME 0.5	/* of the trace, at least, a loop is traced */
#define NODE_LOOP_MIN_NS (1000 * 1000 * 1000ULL)	/* a node's loop is traced this long */
#define CONSUMER_SELF_FED 0.1	/* a loop that reads its own data computes this much (fio: 3%) */

#define LOOP_ROUNDS	4	/* passes to settle which processes run loops */
#define TREE_DEPTH	64	/* ancestors followed at most */
#define JOIN_SHARE	0.1	/* of a thread's wakeups, with a side it joins (spread()) */
#define LOADER_BUSY	0.1	/* on CPU, of its time: a loader thread that works */
#define READER_MIN_BYTES 16384	/* read in all by a thread that reads data, at least */
#define TF_POOL		"tf_Compute"	/* TensorFlow's pool threads' name (mark_tf()) */
#define TF_DATA		"tf.data"	/* the group of tf.data's threads (group_name()) */

/* What the measure works on: the threads, and the wakes sorted by sleeper. */
struct stall_ctx {
	const struct store *s;
	const struct procs *procs;
	struct wake_rec *wakes;
	size_t nr_wakes;
	bool *loader;		/* by index into s->threads.v: on the loader side */
	bool *writer;		/* on the writer side (writer_side()) */
	bool *writes;		/* a writer (mark_writers()) */
	bool *peer;		/* on another loop's side (split()) */
	bool *loop;		/* runs a training loop */
	bool *tracer;		/* resumed a thread from a ptrace stop */
	bool *launcher;		/* launched the loop loader_side() was run for */
	bool *pool;		/* computes for the loop (pool_side()) */
	bool *tf;		/* in a TensorFlow process (mark_tf()) */
	bool *reads;		/* the thread's process read files */
	__u64 *tot, *with;	/* spread()'s scratch: wakeups per thread */
	double traced_ns;	/* the trace's duration; 0 when not known */
	double min_wakeups;	/* stall_opts' */
	struct thread_rec since;	/* split() reads it for thread since_i */
	long since_i;		/* -1: none (loop_since()) */
	__u64 *work;		/* by thread: its workload (mark_workloads()); NULL: one */
	__u64 cur_work;		/* the workload of the loop the sides are drawn for */
	bool data_faults;	/* faults read data files here (data_faults()) */
	__u32 page_size;	/* bytes of a page-cache page */
};

static int wake_cmp(const void *pa, const void *pb)
{
	const struct wake_rec *a = pa, *b = pb;

	if (a->wakee != b->wakee)
		return a->wakee < b->wakee ? -1 : 1;
	return (a->waker > b->waker) - (a->waker < b->waker);
}

/* The wakes of sleeper tid: [*first, *first + return value). */
static size_t wakes_of(const struct stall_ctx *x, __u32 tid, size_t *first)
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
static long thread_idx(const struct store *s, __u32 tid)
{
	const struct thread_rec *th = threads__find(&s->threads, tid);

	return th ? th - s->threads.v : -1;
}

/* A sleep ended by a target thread (not a stop, not in a softirq): its index, or -1. */
static long plain_waker(const struct stall_ctx *x, const struct wake_rec *w)
{
	if (w->waker == WAKER_OUTSIDE || (w->waker & WAKER_FLAGS))
		return -1;
	return thread_idx(x->s, w->waker);
}

/*
 * The same, or the thread a softirq interrupted when soft is set. A loader
 * hands batches over in its own context (pipes, unix sockets, futexes), so
 * a softirq's wakeup is never the loader's: the task it interrupted is
 * often a busy worker. Another rank's is the sender of loopback traffic,
 * delivered in its own softirq: the other loops' side counts them.
 */
static long waker_of(const struct stall_ctx *x, const struct wake_rec *w, bool soft)
{
	if (soft && (w->waker & WAKER_FLAGS) == WAKER_SOFTIRQ &&
	    (w->waker & ~WAKER_FLAGS) != WAKER_OUTSIDE)
		return thread_idx(x->s, w->waker & ~WAKER_FLAGS);
	return plain_waker(x, w);
}

static __u64 min_u64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

static __u64 wall_of(const struct thread_rec *th)
{
	return th->cpu_ns + th->io_wait_ns + th->runq_ns + th->sleep_ns;
}

static __u64 reads_of(const struct thread_rec *th)
{
	return th->io.reads + th->io.fault_reads;
}

/* A thread's time in its own writes, syncs, commits and renames of regular files. */
static __u64 write_ns_of(const struct thread_rec *th)
{
	return th->w.write_ns + th->w.fsync_ns + th->w.commit_ns;
}

/* Is process tgid's main thread a loop? */
static bool loop_process(const struct stall_ctx *x, __u32 tgid)
{
	long m = thread_idx(x->s, tgid);

	return m >= 0 && x->loop[m];
}

/*
 * Grow mark[] over the wakeups between threads, never through c or a
 * thread skip() names: a thread joins when JOIN_SHARE of its wakeups with
 * the other threads (either way) are with the side, until nothing changes.
 * A stray wakeup or two (a worker poking a communication thread at start:
 * 2 of its 151) joins nothing; a communication thread joins its peers (16
 * of 70 with the rank that drives it).
 */
static void spread(struct stall_ctx *x, bool *mark, long c,
		   bool (*skip)(const struct stall_ctx *, long), bool soft)
{
	size_t n = x->s->threads.n;
	__u64 *tot = x->tot, *with = x->with;
	bool changed = true;

	memset(tot, 0, n * sizeof(*tot));
	for (size_t k = 0; k < x->nr_wakes; k++) {
		const struct wake_rec *w = &x->wakes[k];
		long b = waker_of(x, w, soft), a = thread_idx(x->s, w->wakee);

		if (a < 0 || b < 0 || a == c || b == c || skip(x, a) || skip(x, b))
			continue;
		tot[a] += w->wakeups;
		tot[b] += w->wakeups;
	}
	for (int round = 0; changed && round < LOADER_ROUNDS; round++) {
		changed = false;
		memset(with, 0, n * sizeof(*with));
		for (size_t k = 0; k < x->nr_wakes; k++) {
			const struct wake_rec *w = &x->wakes[k];
			long b = waker_of(x, w, soft), a = thread_idx(x->s, w->wakee);

			if (a < 0 || b < 0 || a == c || b == c || mark[a] == mark[b] ||
			    skip(x, a) || skip(x, b))
				continue;
			with[mark[a] ? b : a] += w->wakeups;
		}
		for (size_t i = 0; i < n; i++)
			if (!mark[i] && with[i] && with[i] >= JOIN_SHARE * tot[i])
				mark[i] = changed = true;
	}
}

/*
 * Did faults read data here? A library's pages faulted in after a cache
 * drop (TensorFlow's kernels, first run mid-epoch in its compute pool) are
 * code and make no thread a reader; a mapped dataset's are data (LMDB).
 * Faults are data when a data file with a path had some, or when some
 * were on no file record at all; a record /proc never named is a short
 * process's library (uname's): a mapped dataset lives in the job's maps.
 */
static bool data_faults(const struct store *s)
{
	__u64 on_files = 0, by_threads = s->threads.gone.io.fault_reads;

	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];

		if (!f || file_rec__is_device(f) || !f->c.fault_reads)
			continue;
		if (f->path && !file_rec__is_code(f))
			return true;
		on_files += f->c.fault_reads;
	}
	for (size_t i = 0; i < s->threads.n; i++)
		by_threads += s->threads.v[i].io.fault_reads;
	return by_threads > on_files;
}

/*
 * Reads of data: its file reads, and its faults where faults read data. A
 * thread that read under 16 KiB in all read no data (a thread's reads are
 * not told code from data): a thread pool reads /sys/devices/system/cpu/
 * online as it starts (TensorFlow's: 4 bytes), a process run for a moment
 * reads its libraries' headers and locale (Python's platform module runs
 * uname: 5.4 KB). A loader reads its samples: megabytes.
 */
static __u64 data_reads_of(const struct stall_ctx *x, const struct thread_rec *th)
{
	__u64 faults = x->data_faults ? th->io.fault_reads : 0;

	if (!faults && th->io.read_bytes < READER_MIN_BYTES)
		return 0;
	return th->io.reads + faults;
}

/* Is thread i outside the workload of the loop the sides are drawn for? */
static bool alien(const struct stall_ctx *x, long i)
{
	return x->work && x->work[i] != x->cur_work;
}

/* The sides that follow are drawn for loop c: within its workload. */
static void side_for(struct stall_ctx *x, long c)
{
	x->cur_work = x->work && c >= 0 ? x->work[c] : 0;
}

static bool off_loader(const struct stall_ctx *x, long i)
{
	return x->loop[i] || x->tracer[i] || x->launcher[i] || x->writes[i] || alien(x, i);
}

/*
 * The launchers of loop c: the processes above its process (a shell,
 * conda run, torchrun: they started it) and those that exited before its
 * program began (its last exec, or its fork), as a shim's readlink,
 * basename and subshells did before it exec'd the interpreter, which made
 * readlink, on CPU 97% of its millisecond, the busiest loader thread. What
 * they read is their own program: never the loader's.
 */
static void mark_launchers(struct stall_ctx *x, long c)
{
	const struct store *s = x->s;
	__u32 ctgid = s->threads.v[c].tgid, above[TREE_DEPTH];
	__u64 began = procs__began(x->procs, ctgid), end;
	int n = 0;

	for (__u32 t = procs__parent(x->procs, ctgid); t && n < TREE_DEPTH;
	     t = procs__parent(x->procs, t))
		above[n++] = t;
	for (size_t i = 0; i < s->threads.n; i++) {
		__u32 tgid = s->threads.v[i].tgid;

		x->launcher[i] = false;
		if (tgid == ctgid)
			continue;
		for (int k = 0; k < n && !x->launcher[i]; k++)
			x->launcher[i] = tgid == above[k];
		end = procs__exited(x->procs, tgid);
		x->launcher[i] |= began && end && end <= began;
	}
}

/*
 * The loader side, for loop c: see stall.h. A thread joins it when a
 * wakeup joins it to the loader side in either direction (a decoder woken
 * by a reader, a reader woken by a decoder that freed room in its queue),
 * never through a loop: c's own compute threads, which only c wakes and
 * which only wake c, stay out, and so do the other ranks. c's launchers
 * neither start it nor join it.
 */
static void loader_side(struct stall_ctx *x, long c)
{
	const struct store *s = x->s;
	__u32 ctgid = s->threads.v[c].tgid;

	side_for(x, c);
	mark_launchers(x, c);
	for (size_t i = 0; i < s->threads.n; i++) {
		const struct thread_rec *th = &s->threads.v[i];

		x->loader[i] = (long)i != c && !off_loader(x, i) &&
			       (data_reads_of(x, th) > 0 ||
				(c >= 0 && th->tgid != ctgid && x->reads[i] &&
				 !loop_process(x, th->tgid)));
	}
	spread(x, x->loader, c, off_loader, false);
}

static bool off_writer(const struct stall_ctx *x, long i)
{
	return x->loop[i] || x->tracer[i] || x->loader[i] || alien(x, i);
}

/*
 * The writer side, for loop c, after its loader side: the writers that
 * are not c (its own writes are its own), and the threads a wakeup joins
 * to them, never through a loop, a tracer or the loader side.
 */
static void writer_side(struct stall_ctx *x, long c)
{
	side_for(x, c);
	for (size_t i = 0; i < x->s->threads.n; i++)
		x->writer[i] = (long)i != c && x->writes[i] && !off_writer(x, i);
	spread(x, x->writer, c, off_writer, false);
}

static bool off_peer(const struct stall_ctx *x, long i)
{
	return x->loader[i] || x->tracer[i] || x->writer[i] || alien(x, i);
}

/* The other loops' side, for loop c: they and the threads they wake, not the loader's. */
static void peer_side(struct stall_ctx *x, long c)
{
	side_for(x, c);
	for (size_t i = 0; i < x->s->threads.n; i++)
		x->peer[i] = (long)i != c && x->loop[i] && !alien(x, i);
	spread(x, x->peer, c, off_peer, true);
}

/* Sleeps of thread c ended by a thread of side[] (soft: see waker_of()): ns, and how many. */
static __u64 wait_on(const struct stall_ctx *x, long c, const bool *side, bool soft,
		     __u64 *wakeups)
{
	size_t first, n = wakes_of(x, x->s->threads.v[c].tid, &first);
	__u64 ns = 0;

	*wakeups = 0;
	for (size_t k = first; k < first + n; k++) {
		long b = waker_of(x, &x->wakes[k], soft);

		if (b < 0 || !side[b])
			continue;
		ns += x->wakes[k].sleep_ns;
		*wakeups += x->wakes[k].wakeups;
	}
	return ns;
}

/* Is process tgid anc, or one of its ancestors? */
static bool descends(const struct stall_ctx *x, __u32 tgid, __u32 anc)
{
	for (int d = 0; d < TREE_DEPTH && tgid; d++, tgid = procs__parent(x->procs, tgid))
		if (tgid == anc)
			return true;
	return false;
}

/* Reads of the threads of c's process and of the processes below it, not its launchers'. */
static __u64 tree_reads(const struct stall_ctx *x, long c)
{
	const struct store *s = x->s;
	__u64 n = 0;

	for (size_t i = 0; i < s->threads.n; i++)
		if (!x->launcher[i] && descends(x, s->threads.v[i].tgid, s->threads.v[c].tgid))
			n += reads_of(&s->threads.v[i]);
	return n;
}

/* Wakeups thread c gave the threads of side[]. */
static __u64 woke(const struct stall_ctx *x, long c, const bool *side)
{
	__u64 n = 0;

	for (size_t k = 0; k < x->nr_wakes; k++) {
		long a = thread_idx(x->s, x->wakes[k].wakee);

		if (a >= 0 && side[a] && plain_waker(x, &x->wakes[k]) == c)
			n += x->wakes[k].wakeups;
	}
	return n;
}

/*
 * The part of thread th's time that needs no waker: its file syscalls (the
 * CPU inside them is not computing), on CPU and runnable apart from its
 * receive bursts, and those bursts. Returns its I/O wait outside its file
 * syscalls (page faults on mapped data).
 */
static __u64 own_time(const struct thread_rec *th, struct stall *st)
{
	__u64 in_sys, in_sys_cpu, recv_cpu, recv_runq;

	st->own_io_ns = th->io.read_ns + th->io.meta_ns;
	st->own_write_ns = write_ns_of(th);
	in_sys = st->own_io_ns + st->own_write_ns;
	in_sys_cpu = in_sys > th->io_wait_ns ? in_sys - th->io_wait_ns : 0;
	st->on_cpu_ns = th->cpu_ns > in_sys_cpu ? th->cpu_ns - in_sys_cpu : 0;
	st->runnable_ns = th->runq_ns;
	recv_cpu = min_u64(th->recv_cpu_ns, st->on_cpu_ns);
	recv_runq = min_u64(th->recv_runq_ns, st->runnable_ns);
	st->on_cpu_ns -= recv_cpu;
	st->runnable_ns -= recv_runq;
	st->receive_ns = recv_cpu + recv_runq;
	return th->io_wait_ns > in_sys ? th->io_wait_ns - in_sys : 0;
}

/*
 * The threads that compute for loop c: the other threads of its process,
 * off the loader and writer sides, the other loops' side and tracers. TensorFlow runs
 * a step's kernels in its inter-op and intra-op pools (tf_Compute) while
 * the loop's thread waits for them. Needs loader_side() and peer_side().
 */
static void pool_side(struct stall_ctx *x, long c)
{
	const struct store *s = x->s;

	for (size_t i = 0; i < s->threads.n; i++)
		x->pool[i] = (long)i != c && s->threads.v[i].tgid == s->threads.v[c].tgid &&
			     !x->loader[i] && !x->writer[i] && !x->peer[i] && !x->tracer[i] &&
			     !x->loop[i];
}

/*
 * CPU of c's pool, and its time waiting for one (*runq): behind a storage
 * cap a TensorFlow loop's thread computed 1.7% of its time, with its pools
 * 4.8%. Needs pool_side().
 */
static __u64 pool_cpu(const struct stall_ctx *x, __u64 *runq)
{
	__u64 ns = 0;

	*runq = 0;
	for (size_t i = 0; i < x->s->threads.n; i++) {
		if (!x->pool[i])
			continue;
		ns += x->s->threads.v[i].cpu_ns;
		*runq += x->s->threads.v[i].runq_ns;
	}
	return ns;
}

/*
 * A loop fed through its pool: Keras fit takes the batch inside the step's
 * function (get_next), so the loader wakes the pool, not the loop, and the
 * loop sleeps through each step until its pool ends it. The pool waits for
 * the loader with its threads idle, and the loader's callback wakes them
 * at one moment (the last to park first): their sleeps the loader ended
 * overlap, and the longest one thread slept is the steps' wait for data,
 * at least (7.2 s against 7.3 s by the loop's clock around get_next, behind
 * a storage cap). *wakeups: the loader's of the pool. Needs pool_side().
 */
static __u64 pool_fed(const struct stall_ctx *x, __u64 *wakeups)
{
	__u64 most = 0, ns, n;

	*wakeups = 0;
	for (size_t i = 0; i < x->s->threads.n; i++) {
		if (!x->pool[i])
			continue;
		ns = wait_on(x, i, x->loader, false, &n);
		most = ns > most ? ns : most;
		*wakeups += n;
	}
	return most;
}

/*
 * Is loop c fed through its pool? The loader wakes c's pool as often as a
 * loop takes batches, the pool wakes c as often, and the loader seldom
 * wakes c itself (a loop that takes its batches, with tf.data's iterator
 * in Python, is woken by the loader and its pool's waits are not its).
 */
static bool fed_by_pool(const struct stall_ctx *x, long c, __u64 *data_ns)
{
	__u64 fed, steps, direct;

	*data_ns = pool_fed(x, &fed);
	*data_ns = min_u64(*data_ns, wait_on(x, c, x->pool, false, &steps));
	wait_on(x, c, x->loader, false, &direct);
	if (fed >= x->min_wakeups && steps >= x->min_wakeups && direct < x->min_wakeups)
		return true;
	*data_ns = 0;
	return false;
}

/*
 * A consumer computes (on CPU outside its file syscalls, or in its
 * process's compute pools: pool_cpu(); or waits for a CPU to, on a loaded
 * machine) and is fed, and lives for most of the trace (a launcher's
 * readlink does not; on a node, -a, where jobs come and go while iostorm
 * runs for days, for a second at least). It
 * computes min_cpu_share of the time its loader leaves it (its time apart
 * from the sleeps the loader ended): a loop that waits 97% of its time for
 * a mapped loader computes 1.4% of a trace attached after its start
 * (launched, its imports made it 5%), 53% of the 0.4 s left to it. A pure
 * reader (its own I/O wait) or a worker (its faults) is left all its time.
 * And:
 *  - the loader wakes it as often as a loop takes batches, or the loader
 *    and the other loops' side do (a rank its loader keeps ahead of waits
 *    for the slower rank in each all-reduce: woken 9 times by its loader
 *    and 27 by the other rank in 25 steps);
 *  - or it does most of its process tree's file reads itself and computes
 *    beside them (num_workers=0; a pure reader such as fio, which computes
 *    3% of its time, or a shell reading its script does not);
 *  - or the loader always keeps ahead of it, so it is seldom woken: it
 *    computes most of the time it has a CPU for (on a loaded machine a
 *    warm pipeline's loop was runnable 53% of its time, on CPU 45%) and
 *    takes the batches, which wakes the loader as often (a worker waiting
 *    for its next index, a reader for room in the queue). fio's parent
 *    computes half its time too, setting up before its job runs, but wakes
 *    the job once.
 * A thread that only waits (a launcher joining its readers: woken once by
 * each at its exit) or only reads (a pure reader) is none.
 */
static bool is_consumer(struct stall_ctx *x, long c, const struct stall_opts *o,
			__u64 *wakeups)
{
	const struct thread_rec *th = &x->s->threads.v[c];
	__u64 wall = wall_of(th), io = th->io.read_ns + th->io.meta_ns + write_ns_of(th);
	__u64 in_sys, compute;
	__u64 paced, fed, via_pool, runq;
	bool loader = false;

	in_sys = io > th->io_wait_ns ? io - th->io_wait_ns : 0;
	compute = th->cpu_ns > in_sys ? th->cpu_ns - in_sys : 0;
	*wakeups = 0;
	if (!wall || x->tracer[c] || (x->work ? wall < NODE_LOOP_MIN_NS :
					    wall < CONSUMER_LIFETIME * x->traced_ns))
		return false;
	loader_side(x, c);
	writer_side(x, c);
	peer_side(x, c);
	pool_side(x, c);
	compute += pool_cpu(x, &runq);
	fed = wait_on(x, c, x->loader, false, wakeups);
	if (compute + runq + th->runq_ns < o->min_cpu_share * (wall > fed ? wall - fed : 0))
		return false;
	wait_on(x, c, x->peer, true, &paced);
	for (size_t i = 0; i < x->s->threads.n && !loader; i++)
		loader = x->loader[i];
	return (loader && *wakeups + paced >= o->min_wakeups) || fed_by_pool(x, c, &via_pool) ||
	       (reads_of(th) >= o->min_wakeups && 2 * reads_of(th) >= tree_reads(x, c) &&
		compute >= CONSUMER_SELF_FED * wall) ||
	       (loader && compute >= CONSUMER_BUSY * (wall - th->runq_ns) &&
		*wakeups + woke(x, c, x->loader) >= o->min_wakeups);
}

/* --consumer COMM: the busiest thread of that name. */
static long by_comm(const struct store *s, const char *comm)
{
	long best = -1;

	for (size_t i = 0; i < s->threads.n; i++)
		if (!strncmp(s->threads.v[i].comm, comm, COMM_LEN) &&
		    (best < 0 || s->threads.v[i].cpu_ns > s->threads.v[best].cpu_ns))
			best = i;
	return best;
}

/* Depth of process tgid in the target's tree: its ancestors in the target. */
static int depth_of(const struct stall_ctx *x, __u32 tgid)
{
	int d = 0;

	while (d < TREE_DEPTH && (tgid = procs__parent(x->procs, tgid)) &&
	       thread_idx(x->s, tgid) >= 0)
		d++;
	return d;
}

/*
 * Does an ancestor process of thread c run a loop of mark[]? On a node, one
 * of c's workload only: a shell that started a pod's job is no loop of it.
 */
static bool under_loop(const struct stall_ctx *x, const bool *mark, long c)
{
	__u32 tgid = x->s->threads.v[c].tgid;

	for (int d = 0; d < TREE_DEPTH && (tgid = procs__parent(x->procs, tgid)); d++) {
		long m = thread_idx(x->s, tgid);

		if (m >= 0 && mark[m] && (!x->work || x->work[m] == x->work[c]))
			return true;
	}
	return false;
}

struct cand {
	long i;
	int depth;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->depth != b->depth)
		return a->depth - b->depth;
	return (a->i > b->i) - (a->i < b->i);
}

/*
 * The loops iostorm finds: process main threads that are consumers, taken
 * from the top of the process tree down, so a loop's workers below it are
 * not loops. Each round judges every process against the loops the round
 * before found (a loop is never on another's loader side), until they
 * settle. x->loop holds the result.
 */
/* Wakeups each thread took or gave (touch[], by index), over every pair. */
static void count_touches(const struct stall_ctx *x, __u64 *touch)
{
	for (size_t k = 0; k < x->nr_wakes; k++) {
		const struct wake_rec *w = &x->wakes[k];
		long a = thread_idx(x->s, w->wakee), b = -1;

		if ((w->waker & ~WAKER_FLAGS) != WAKER_OUTSIDE)
			b = thread_idx(x->s, w->waker & ~WAKER_FLAGS);
		if (a >= 0)
			touch[a] += w->wakeups;
		if (b >= 0)
			touch[b] += w->wakeups;
	}
}

/*
 * On a node (-a) the store holds every process that ran since iostorm
 * started (builds, shells: thousands), and judging one costs its four
 * sides over every wakeup. A candidate there is alive (no exit seen) or a
 * loop at the last measure, and could pass is_consumer() at all: woken or
 * waking min_wakeups times, or reading as often (what each of its ways
 * needs at least).
 */
static bool node_candidate(const struct stall_ctx *x, const struct trace *t, long i,
			   const __u64 *touch, double min_wakeups)
{
	__u32 tgid = x->s->threads.v[i].tgid;

	if (touch[i] + reads_of(&x->s->threads.v[i]) < min_wakeups)
		return false;
	if (!procs__exited(x->procs, tgid))
		return true;
	for (size_t k = 0; k < t->nr_loops; k++)
		if (t->loops[k].tgid == tgid)
			return true;
	return false;
}

static int find_loops(struct stall_ctx *x, const struct trace *t, const struct stall_opts *o)
{
	const struct store *s = x->s;
	size_t n = s->threads.n, nc = 0;
	struct cand *cands = malloc((n ? n : 1) * sizeof(*cands));
	bool *next = calloc(n ? n : 1, sizeof(*next));
	__u64 *touch = x->work ? calloc(n ? n : 1, sizeof(*touch)) : NULL;
	int err = -ENOMEM;
	__u64 w;

	if (!cands || !next || (x->work && !touch))
		goto out_free;
	if (touch)
		count_touches(x, touch);
	for (size_t i = 0; i < n; i++)
		if (s->threads.v[i].tid == s->threads.v[i].tgid && !x->tracer[i] &&
		    (!touch || node_candidate(x, t, i, touch, o->min_wakeups)))
			cands[nc++] = (struct cand){ i, depth_of(x, s->threads.v[i].tgid) };
	qsort(cands, nc, sizeof(*cands), cand_cmp);
	for (int round = 0; round < LOOP_ROUNDS; round++) {
		memset(next, 0, n * sizeof(*next));
		for (size_t k = 0; k < nc; k++)
			if (!under_loop(x, next, cands[k].i))
				next[cands[k].i] = is_consumer(x, cands[k].i, o, &w);
		if (!memcmp(next, x->loop, n * sizeof(*next)))
			break;
		memcpy(x->loop, next, n * sizeof(*next));
	}
	err = 0;
out_free:
	free(touch);
	free(next);
	free(cands);
	return err;
}

/* --consumer: the loops the user named; how many of them did not run. */
static int given_loops(struct stall_ctx *x, const struct stall_opts *o)
{
	int missing = 0;

	for (size_t g = 0; g < o->nr_given; g++) {
		const struct consumer_sel *c = &o->given[g];
		long i = c->tid ? thread_idx(x->s, c->tid) : by_comm(x->s, c->comm);

		if (i >= 0)
			x->loop[i] = true;
		else
			missing++;
	}
	return missing;
}

static int waker_cmp(const void *pa, const void *pb)
{
	const struct stall_waker *a = pa, *b = pb;

	if (a->sleep_ns != b->sleep_ns)
		return a->sleep_ns < b->sleep_ns ? 1 : -1;
	return strcmp(a->name, b->name);
}

/*
 * The name thread i is grouped under, seen from loop c: its comm's group,
 * but TensorFlow's tf.data threads have no name of their own: they take
 * their creator's, "python" (the loop's), or "tf_Compute" when Keras fit
 * makes its iterator in a pool thread. On c's loader side, in c's process,
 * such a thread of a TensorFlow process is one of "tf.data".
 */
static void group_name(const struct stall_ctx *x, long c, long i, char name[COMM_LEN])
{
	const struct thread_rec *th = &x->s->threads.v[i], *loop = &x->s->threads.v[c];

	if (x->loader[i] && x->tf[i] && th->tgid == loop->tgid &&
	    (!strncmp(th->comm, loop->comm, COMM_LEN) || !strcmp(th->comm, TF_POOL))) {
		snprintf(name, COMM_LEN, TF_DATA);
		return;
	}
	threads__comm_group(th->comm, name);
}

/*
 * The loop's wakers, by thread name and side (a name can be on two: the
 * loop's own python3 threads beside its workers', its savers), most sleep
 * ended first.
 */
static void wakers_of(const struct stall_ctx *x, long c, struct stall *st)
{
	size_t first, n = wakes_of(x, x->s->threads.v[c].tid, &first);

	for (size_t k = first; k < first + n; k++) {
		const struct wake_rec *w = &x->wakes[k];
		long b = plain_waker(x, w);
		bool loader = b >= 0 && x->loader[b], writer = b >= 0 && x->writer[b];
		char name[COMM_LEN];
		int g;

		if (w->waker & WAKER_STOP)
			continue;	/* a stop: a tracer's */
		if (b >= 0)
			group_name(x, c, b, name);
		else if (w->waker & WAKER_SOFTIRQ)
			snprintf(name, sizeof(name), "(softirq)");
		else
			snprintf(name, sizeof(name), "(outside)");
		/* A name on two sides (python3 workers and savers) is two groups. */
		for (g = 0; g < st->nr_wakers && (strcmp(st->wakers[g].name, name) ||
						  st->wakers[g].loader != loader ||
						  st->wakers[g].writer != writer); g++)
			;
		if (g == st->nr_wakers) {
			if (g == STALL_WAKERS)
				continue;	/* the totals still hold it */
			st->nr_wakers++;
			memcpy(st->wakers[g].name, name, sizeof(name));
			st->wakers[g].loader = loader;
			st->wakers[g].writer = writer;
		}
		st->wakers[g].threads++;
		st->wakers[g].wakeups += w->wakeups;
		st->wakers[g].sleep_ns += w->sleep_ns;
	}
	qsort(st->wakers, st->nr_wakers, sizeof(st->wakers[0]), waker_cmp);
}

static int u32_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

/*
 * The loader's working threads of loop c (see struct stall): their time by
 * state and the processes they are in apart from the loop's. The tgids are
 * counted in x->tot's scratch, as spread() leaves it free after the sides.
 */
static void loader_work(struct stall_ctx *x, long c, struct stall *st)
{
	const struct thread_rec *loop = &x->s->threads.v[c];
	__u32 *tgids = (__u32 *)x->tot;
	char name[COMM_LEN];
	size_t n = 0;

	for (size_t i = 0; i < x->s->threads.n; i++) {
		const struct thread_rec *th = &x->s->threads.v[i];
		__u64 wall = wall_of(th);

		if (!x->loader[i] || (long)i == c || !wall ||
		    (!reads_of(th) && th->cpu_ns < LOADER_BUSY * wall))
			continue;
		st->loader_workers++;
		if (!st->busiest_wall_ns || (double)(th->cpu_ns + th->runq_ns) / wall >
					    (double)st->busiest_ns / st->busiest_wall_ns) {
			st->busiest_ns = th->cpu_ns + th->runq_ns;
			st->busiest_wall_ns = wall;
			group_name(x, c, i, name);
			memcpy(st->busiest_comm, strcmp(name, TF_DATA) ? th->comm : name, COMM_LEN);
		}
		st->loader_cpu_ns += th->cpu_ns;
		st->loader_runq_ns += th->runq_ns;
		st->loader_io_ns += th->io_wait_ns;
		st->loader_sleep_ns += th->sleep_ns;
		if (th->tgid != loop->tgid)
			tgids[n++] = th->tgid;
	}
	qsort(tgids, n, sizeof(*tgids), u32_cmp);
	for (size_t i = 0; i < n; i++)
		st->loader_procs += !i || tgids[i] != tgids[i - 1];
}

/* Loop c's pool (pool_side()): its threads, their CPU, its waits for them. */
static void split_pool(struct stall_ctx *x, long c, struct stall *st)
{
	__u64 n;

	pool_side(x, c);
	for (size_t i = 0; i < x->s->threads.n; i++)
		st->pool_threads += x->pool[i];
	st->pool_cpu_ns = pool_cpu(x, &n);
	st->pool_wait_ns = wait_on(x, c, x->pool, false, &n);
	fed_by_pool(x, c, &st->pool_data_ns);
}

/*
 * Loop c's time: its file syscalls and the sleeps the loader ended are
 * data wait, and so are I/O wait outside its syscalls (page faults on
 * mapped data) and its time receiving batches (on CPU or runnable in its
 * receive bursts); its own writes and the sleeps the writer side ended are
 * write wait; the sleeps the other loops' side ended are rank wait.
 */
static void split(struct stall_ctx *x, long c, struct stall *st)
{
	const struct thread_rec *th = c == x->since_i ? &x->since : &x->s->threads.v[c];
	__u64 io_out, waits;

	st->tid = th->tid;
	st->tgid = th->tgid;
	st->cgid = th->cgid;
	memcpy(st->comm, th->comm, COMM_LEN);
	loader_side(x, c);
	writer_side(x, c);
	peer_side(x, c);
	io_out = own_time(th, st);
	st->loader_wait_ns = wait_on(x, c, x->loader, false, &st->loader_wakeups);
	st->handshake_ns = min_u64(th->recv_shake_ns, st->loader_wait_ns);
	split_pool(x, c, st);
	st->writer_wait_ns = wait_on(x, c, x->writer, false, &st->writer_wakeups);
	st->rank_wait_ns = wait_on(x, c, x->peer, true, &st->rank_wakeups);
	st->data_wait_ns = st->own_io_ns + st->loader_wait_ns + io_out + st->receive_ns +
			   st->pool_data_ns;
	st->write_wait_ns = st->own_write_ns + st->writer_wait_ns;
	waits = st->loader_wait_ns + st->rank_wait_ns + st->writer_wait_ns + st->pool_data_ns;
	st->other_wait_ns = th->sleep_ns > waits ? th->sleep_ns - waits : 0;
	st->wall_ns = st->data_wait_ns + st->write_wait_ns + st->on_cpu_ns + st->runnable_ns +
		      st->rank_wait_ns + st->other_wait_ns;
	for (size_t i = 0; i < x->s->threads.n; i++) {
		st->loader_threads += x->loader[i];
		st->writer_threads += x->writer[i];
	}
	loader_work(x, c, st);
	wakers_of(x, c, st);
}


/* Which threads' processes read files (a process: its threads' tgid). */
static int mark_reading(struct stall_ctx *x)
{
	const struct store *s = x->s;
	__u32 *tgids = malloc((s->threads.n ? s->threads.n : 1) * sizeof(*tgids));
	size_t n = 0;

	if (!tgids)
		return -ENOMEM;
	for (size_t i = 0; i < s->threads.n; i++)
		if (data_reads_of(x, &s->threads.v[i]))
			tgids[n++] = s->threads.v[i].tgid;
	qsort(tgids, n, sizeof(*tgids), u32_cmp);
	for (size_t i = 0; i < s->threads.n; i++)
		x->reads[i] = bsearch(&s->threads.v[i].tgid, tgids, n, sizeof(*tgids), u32_cmp);
	free(tgids);
	return 0;
}

/*
 * Writers: threads that wrote more than they read (bytes, pages faulted
 * in counted as read), or that sync and commit files longer than they
 * read any: a checkpoint saver, never a loader that logs.
 */
static void mark_writers(struct stall_ctx *x)
{
	for (size_t i = 0; i < x->s->threads.n; i++) {
		const struct thread_rec *th = &x->s->threads.v[i];
		__u64 in = th->io.read_bytes + th->io.cache_pages * (__u64)x->page_size;

		if (!(th->w.writes + th->w.fsyncs + th->w.commits + th->w.renames))
			continue;
		x->writes[i] = th->w.write_bytes > in ||
			       (!reads_of(th) && th->w.fsync_ns + th->w.commit_ns >
						 th->io.read_ns + th->io.meta_ns);
	}
}

/*
 * Threads of TensorFlow processes: those with a thread of its inter-op
 * pool, which TensorFlow names (tf.data's threads it does not name). The
 * tgids are sorted in x->tot's scratch.
 */
static void mark_tf(struct stall_ctx *x)
{
	const struct store *s = x->s;
	__u32 *tgids = (__u32 *)x->tot;
	size_t n = 0;

	for (size_t i = 0; i < s->threads.n; i++)
		if (!strcmp(s->threads.v[i].comm, TF_POOL))
			tgids[n++] = s->threads.v[i].tgid;
	qsort(tgids, n, sizeof(*tgids), u32_cmp);
	for (size_t i = 0; i < s->threads.n; i++)
		x->tf[i] = bsearch(&s->threads.v[i].tgid, tgids, n, sizeof(*tgids), u32_cmp);
}

/* The headline loop's side named in the store's threads (group_name()): the thread tables'. */
static void name_groups(struct stall_ctx *x, struct trace *t)
{
	long c = t->nr_loops ? thread_idx(x->s, t->stall.tid) : -1;
	char name[COMM_LEN];

	for (size_t i = 0; i < t->store.threads.n; i++)
		t->store.threads.v[i].group[0] = '\0';
	if (c < 0)
		return;
	loader_side(x, c);
	for (size_t i = 0; i < t->store.threads.n; i++) {
		struct thread_rec *th = &t->store.threads.v[i];

		group_name(x, c, i, name);
		threads__comm_group(th->comm, th->group);
		if (strcmp(name, th->group))
			memcpy(th->group, name, COMM_LEN);
		else
			th->group[0] = '\0';
	}
}

/* Threads that resumed another from a stop: tracers (strace, gdb). */
static void mark_tracers(struct stall_ctx *x)
{
	for (size_t k = 0; k < x->nr_wakes; k++) {
		__u32 waker = x->wakes[k].waker;
		long b;

		if (!(waker & WAKER_STOP) || waker == (WAKER_STOP | WAKER_OUTSIDE))
			continue;
		b = thread_idx(x->s, waker & ~WAKER_FLAGS);
		if (b >= 0)
			x->tracer[b] = true;
	}
}

/* FNV-1a of a tag and a name: a workload's key. */
static __u64 work_key(const char *tag, const char *name)
{
	__u64 h = 14695981039346656037ULL;

	for (const char *p = tag; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

/*
 * Each thread's workload (see stall.h): its pod, else its Slurm job, else
 * its cgroup (a cgroup whose path is not known, or folded into the
 * overflow record, is a workload of its own id). 0 or -ENOMEM.
 */
static int mark_workloads(struct stall_ctx *x, const struct cgroups *c)
{
	const struct store *s = x->s;

	x->work = calloc(s->threads.n ? s->threads.n : 1, sizeof(*x->work));
	if (!x->work)
		return -ENOMEM;
	for (size_t i = 0; i < s->threads.n; i++) {
		const struct cgroup_rec *r = cgroups__find(c, s->threads.v[i].cgid);

		if (r && r->path && r->name.pod_uid[0])
			x->work[i] = work_key("pod:", r->name.pod_uid);
		else if (r && r->path && r->name.slurm_job[0])
			x->work[i] = work_key("slurm:", r->name.slurm_job);
		else
			x->work[i] = s->threads.v[i].cgid;
	}
	return 0;
}

static int loop_cmp(const void *pa, const void *pb)
{
	const struct stall *a = pa, *b = pb;
	double sa = stall__share(a), sb = stall__share(b);

	if (sa != sb)
		return sa < sb ? 1 : -1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/*
 * Thread tid's entry in t->starts, made if new; NULL without memory. The
 * entries of threads the store no longer holds are dropped before it grows.
 */
static struct stall_start *start_of(struct trace *t, __u32 tid)
{
	struct stall_start *ss;
	size_t k = 0;

	for (size_t i = 0; i < t->nr_starts; i++)
		if (t->starts[i].tid == tid)
			return &t->starts[i];
	for (size_t i = 0; i < t->nr_starts; i++) {
		if (threads__find(&t->store.threads, t->starts[i].tid))
			t->starts[k++] = t->starts[i];
		else
			free(t->starts[i].wakes);
	}
	t->nr_starts = k;
	ss = realloc(t->starts, (k + 1) * sizeof(*ss));
	if (!ss)
		return NULL;
	t->starts = ss;
	t->nr_starts = k + 1;
	memset(&ss[k], 0, sizeof(ss[k]));
	ss[k].tid = tid;
	return &ss[k];
}

void stall__starts_free(struct trace *t)
{
	for (size_t i = 0; i < t->nr_starts; i++)
		free(t->starts[i].wakes);
	free(t->starts);
	t->starts = NULL;
	t->nr_starts = 0;
}

/* Keep thread i's counters and its sleeps by waker in ss. 0 or -ENOMEM. */
static int start_keep(const struct stall_ctx *x, long i, struct stall_start *ss)
{
	size_t first, n = wakes_of(x, x->s->threads.v[i].tid, &first);
	struct wake_rec *w = realloc(ss->wakes, (n ? n : 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	memcpy(w, &x->wakes[first], n * sizeof(*w));
	ss->wakes = w;
	ss->nr_wakes = n;
	ss->th = x->s->threads.v[i];
	return 0;
}

/*
 * Has the target read data: READER_MIN_BYTES of data files (read, or
 * faulted in: a page a fault), code apart? A file with no path is not
 * known to be data (a launched job's first drains see the interpreter's
 * libraries faulted in before /proc names them), nor is a kilobyte of a
 * temporary file (ctypes looking for a library at an import).
 */
static bool data_read(const struct store *s)
{
	__u64 bytes = 0;

	for (size_t i = 0; i < s->files_cap && bytes < READER_MIN_BYTES; i++) {
		const struct file_rec *f = s->files[i];

		if (f && f->path && !file_rec__is_device(f) && !(f->flags & FILE_F_DIR) &&
		    !file_rec__is_code(f))
			bytes += f->c.read_bytes + f->c.fault_reads * 4096;
	}
	return bytes >= READER_MIN_BYTES;
}

/*
 * A launched loop's time starts with its data, as the loop's own clock
 * does: what the job's main thread did before its pipeline first read
 * data (Python's imports, loading TensorFlow's libraries, building the
 * model: 3-5 s of CPU and of reading code) is not the loop's. Until then,
 * every drain keeps each process main thread's counters and sleeps; from
 * then on they are final, and a loop is split on what it did after them
 * (loop_since()); iostorm drains every 0.1 s until then, so little set-up
 * stays in. Attached (-p), the job has started: nothing is left out (a
 * pipeline at rest when iostorm attached reads again only once the loop
 * has taken its buffered batches). Code is told from data by
 * model/kind.h: a dataset under /usr/share is never seen read, and its
 * loop is counted whole.
 */
static int loop_start(struct stall_ctx *x, struct trace *t)
{
	const struct store *s = x->s;
	struct stall_start *ss;

	for (size_t i = 0; i < s->threads.n; i++) {
		if (s->threads.v[i].tid != s->threads.v[i].tgid || x->tracer[i])
			continue;
		ss = start_of(t, s->threads.v[i].tid);
		if (!ss)
			return -ENOMEM;
		if (ss->fed)
			continue;
		ss->fed = t->data_seen;
		if (!ss->fed && start_keep(x, i, ss))
			return -ENOMEM;
	}
	return 0;
}

static __u64 less(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/* th less what b kept: the counters split() reads. */
static void since_rec(struct thread_rec *th, const struct thread_rec *b)
{
	th->cpu_ns = less(th->cpu_ns, b->cpu_ns);
	th->io_wait_ns = less(th->io_wait_ns, b->io_wait_ns);
	th->runq_ns = less(th->runq_ns, b->runq_ns);
	th->sleep_ns = less(th->sleep_ns, b->sleep_ns);
	th->io.read_ns = less(th->io.read_ns, b->io.read_ns);
	th->io.meta_ns = less(th->io.meta_ns, b->io.meta_ns);
	th->io.reads = less(th->io.reads, b->io.reads);
	th->io.fault_reads = less(th->io.fault_reads, b->io.fault_reads);
	th->recv_cpu_ns = less(th->recv_cpu_ns, b->recv_cpu_ns);
	th->recv_runq_ns = less(th->recv_runq_ns, b->recv_runq_ns);
	th->recv_shake_ns = less(th->recv_shake_ns, b->recv_shake_ns);
	th->w.write_ns = less(th->w.write_ns, b->w.write_ns);
	th->w.fsync_ns = less(th->w.fsync_ns, b->w.fsync_ns);
	th->w.commit_ns = less(th->w.commit_ns, b->w.commit_ns);
}

/*
 * Split loop i on what it did since its start (loop_start()), with the
 * sides of the whole trace: its counters and its sleeps less those kept
 * (x->wakes, a copy, is put back after).
 */
static int loop_since(struct stall_ctx *x, const struct trace *t, long i, struct stall *st)
{
	const struct stall_start *ss = NULL;
	size_t first, n = wakes_of(x, x->s->threads.v[i].tid, &first);
	struct thread_rec th = x->s->threads.v[i];
	struct wake_rec *w = &x->wakes[first], *kept;

	for (size_t k = 0; k < t->nr_starts && !ss; k++)
		if (t->starts[k].tid == th.tid && t->starts[k].fed)
			ss = &t->starts[k];
	if (!ss || !wall_of(&ss->th)) {
		split(x, i, st);
		return 0;
	}
	kept = malloc((n ? n : 1) * sizeof(*kept));
	if (!kept)
		return -ENOMEM;
	memcpy(kept, w, n * sizeof(*w));
	since_rec(&th, &ss->th);
	for (size_t k = 0; k < ss->nr_wakes; k++)
		for (size_t j = 0; j < n; j++)
			if (w[j].waker == ss->wakes[k].waker) {
				w[j].sleep_ns = less(w[j].sleep_ns, ss->wakes[k].sleep_ns);
				w[j].wakeups = less(w[j].wakeups, ss->wakes[k].wakeups);
			}
	x->since = th;
	x->since_i = i;
	split(x, i, st);
	x->since_i = -1;
	memcpy(w, kept, n * sizeof(*w));
	free(kept);
	st->setup_ns = wall_of(&ss->th);
	return 0;
}

/* Split every loop of x->loop into t->loops, the most waiting first. */
static int split_loops(struct stall_ctx *x, struct trace *t, enum consumer_how how,
		       __u32 root_tgid)
{
	size_t n = 0;

	for (size_t i = 0; i < x->s->threads.n; i++)
		n += x->loop[i];
	free(t->loops);
	t->nr_loops = 0;
	t->loops = calloc(n ? n : 1, sizeof(*t->loops));
	if (!t->loops)
		return -ENOMEM;
	for (size_t i = 0; i < x->s->threads.n; i++) {
		struct stall *st = &t->loops[t->nr_loops];

		if (!x->loop[i])
			continue;
		if (how == CONSUMER_GIVEN)
			split(x, i, st);
		else if (loop_since(x, t, i, st))
			return -ENOMEM;
		st->how = how != CONSUMER_FED ? how :
			  st->tgid == root_tgid ? CONSUMER_ROOT : CONSUMER_FED;
		snprintf(st->why, sizeof(st->why), "%s",
			 st->how == CONSUMER_GIVEN ? "given with --consumer" :
			 st->how == CONSUMER_ROOT ? "the main thread of the traced process" :
			 "a process main thread the loader feeds");
		t->nr_loops++;
	}
	qsort(t->loops, t->nr_loops, sizeof(*t->loops), loop_cmp);
	return 0;
}

/*
 * No loop: t->stall says why. Where the kernel gives no fault tracepoints,
 * a loader that only maps its data (LMDB) reads nothing iostorm sees: say so.
 */
static void no_loop(struct trace *t, bool given)
{
	bool faults = kernel__measured(&t->kernel, KL_FAULTS);

	memset(&t->stall, 0, sizeof(t->stall));
	t->stall.how = CONSUMER_NONE;
	snprintf(t->stall.why, sizeof(t->stall.why), "%s", given ?
		 "no training loop found: the thread given with --consumer did not run" :
		 faults ? "no training loop found: no thread computes while the loader feeds "
			  "it (a pure reader?): data stall not measured (--consumer "
			  "TID|COMM names a loop iostorm missed)" :
		 "no training loop found: no thread computes while the loader feeds it "
		 "(a pure reader, or one of mapped data: faults not measured here): data "
		 "stall not measured (--consumer TID|COMM names a loop iostorm missed)");
}

int stall__measure(struct trace *t, const struct stall_opts *o)
{
	struct stall_ctx x = {
		.s = &t->store, .procs = &t->procs, .nr_wakes = t->wakes.n,
		.traced_ns = t->duration_s * 1e9, .page_size = t->page_size ?: 4096,
		.min_wakeups = o->min_wakeups, .since_i = -1,
	};
	size_t n = t->store.threads.n;
	int err = -ENOMEM, missing = 0;

	/* No scheduler programs (IOSTORM_FALLBACKS=no_sched): no wait to split. */
	if (!kernel__measured(&t->kernel, KL_SCHED)) {
		t->nr_loops = 0;
		t->data_seen = t->data_seen || !o->launched || data_read(&t->store);
		memset(&t->stall, 0, sizeof(t->stall));
		t->stall.how = CONSUMER_NONE;
		snprintf(t->stall.why, sizeof(t->stall.why), "no training loop looked for: the scheduler "
			 "programs are not loaded (%.180s)",
			 t->kernel.layers[KL_SCHED].why);
		return 0;
	}
	x.wakes = malloc((t->wakes.n ? t->wakes.n : 1) * sizeof(*x.wakes));
	x.loader = calloc(n ? n : 1, sizeof(*x.loader));
	x.writer = calloc(n ? n : 1, sizeof(*x.writer));
	x.writes = calloc(n ? n : 1, sizeof(*x.writes));
	x.peer = calloc(n ? n : 1, sizeof(*x.peer));
	x.loop = calloc(n ? n : 1, sizeof(*x.loop));
	x.tracer = calloc(n ? n : 1, sizeof(*x.tracer));
	x.launcher = calloc(n ? n : 1, sizeof(*x.launcher));
	x.reads = calloc(n ? n : 1, sizeof(*x.reads));
	x.tot = calloc(n ? n : 1, sizeof(*x.tot));
	x.with = calloc(n ? n : 1, sizeof(*x.with));
	x.pool = calloc(n ? n : 1, sizeof(*x.pool));
	x.tf = calloc(n ? n : 1, sizeof(*x.tf));
	if (!x.wakes || !x.loader || !x.writer || !x.writes || !x.peer || !x.loop ||
	    !x.tracer || !x.launcher || !x.reads || !x.tot || !x.with || !x.pool || !x.tf)
		goto out_free;
	memcpy(x.wakes, t->wakes.v, t->wakes.n * sizeof(*x.wakes));
	x.data_faults = data_faults(x.s);
	qsort(x.wakes, x.nr_wakes, sizeof(*x.wakes), wake_cmp);
	if (mark_reading(&x) || (o->workloads && mark_workloads(&x, o->workloads)))
		goto out_free;
	mark_tracers(&x);
	mark_writers(&x);
	mark_tf(&x);
	if (o->nr_given)
		missing = given_loops(&x, o);
	else if (find_loops(&x, t, o))
		goto out_free;
	t->data_seen = t->data_seen || !o->launched || data_read(x.s);
	if (!o->nr_given && loop_start(&x, t))
		goto out_free;
	if (split_loops(&x, t, o->nr_given ? CONSUMER_GIVEN : CONSUMER_FED, o->root_tgid))
		goto out_free;
	if (t->nr_loops)
		t->stall = t->loops[0];
	else
		no_loop(t, o->nr_given);
	if (t->nr_loops && missing)
		snprintf(t->stall.why, sizeof(t->stall.why),
			 "given with --consumer; %d of those given did not run", missing);
	name_groups(&x, t);
	err = 0;
out_free:
	free(x.work);
	free(x.tf);
	free(x.pool);
	free(x.with);
	free(x.tot);
	free(x.reads);
	free(x.launcher);
	free(x.tracer);
	free(x.loop);
	free(x.peer);
	free(x.writes);
	free(x.writer);
	free(x.loader);
	free(x.wakes);
	return err;
}

double stall__share(const struct stall *s)
{
	if (s->how == CONSUMER_NONE)
		return -1;
	return s->wall_ns ? (double)s->data_wait_ns / s->wall_ns : 0;
}

double stall__write_share(const struct stall *s)
{
	if (s->how == CONSUMER_NONE)
		return -1;
	return s->wall_ns ? (double)s->write_wait_ns / s->wall_ns : 0;
}

const struct stall *stall__most_writing(const struct trace *t)
{
	const struct stall *best = NULL;

	for (size_t i = 0; i < t->nr_loops; i++)
		if (t->loops[i].write_wait_ns &&
		    (!best || stall__write_share(&t->loops[i]) > stall__write_share(best)))
			best = &t->loops[i];
	return best;
}

const char *stall__how_name(enum consumer_how how)
{
	static const char *const names[] = {
		[CONSUMER_NONE] = "none", [CONSUMER_GIVEN] = "given",
		[CONSUMER_ROOT] = "root", [CONSUMER_FED] = "fed",
	};

	return how <= CONSUMER_FED ? names[how] : "unknown";
}
