// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A training loop's sides (see stall.h), drawn for one loop at a time: the
 * threads whose wakeups make its sleeps data wait (the loader side), write
 * wait (the writer side), rank wait (the other loops' side), or its steps'
 * computing (its pool), and the sleeps each ended.
 */
#include <stdio.h>
#include <string.h>
#include "model/procs.h"
#include "model/stall_int.h"

#define LOADER_ROUNDS	16	/* passes over the wakes: pipelines are a few stages deep */
#define JOIN_SHARE	0.1	/* of a thread's wakeups, with a side it joins (spread()) */

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
	return x->loop[i] || x->tracer[i] || x->launcher[i] || x->runtime[i] || x->writes[i] ||
	       alien(x, i);
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

/* Is th in a process below the loop's (ctgid): a worker of the loop? */
static bool in_worker(const struct stall_ctx *x, const struct thread_rec *th, __u32 ctgid)
{
	return descends(x, procs__parent(x->procs, th->tgid), ctgid);
}

/*
 * The loader side, for loop c: see stall.h. A thread joins it when a
 * wakeup joins it to the loader side in either direction (a decoder woken
 * by a reader, a reader woken by a decoder that freed room in its queue),
 * never through a loop: c's own compute threads, which only c wakes and
 * which only wake c, stay out, and so do the other ranks. c's launchers
 * neither start it nor join it. It starts from the threads that read data,
 * those of other processes that read files, and the threads of c's
 * workers (the processes below c's: DataLoader workers), reading or not:
 * a worker that spends its time decoding or faulting a cached mapped
 * dataset in (whose faults read nothing from storage) feeds c as one that
 * reads does.
 */
void stall_sides__loader(struct stall_ctx *x, long c)
{
	const struct store *s = x->s;
	__u32 ctgid = s->threads.v[c].tgid;

	side_for(x, c);
	mark_launchers(x, c);
	for (size_t i = 0; i < s->threads.n; i++) {
		const struct thread_rec *th = &s->threads.v[i];

		x->loader[i] = (long)i != c && !off_loader(x, i) &&
			       (stall_roles__data_reads(x, th) > 0 ||
				(c >= 0 && th->tgid != ctgid && !loop_process(x, th->tgid) &&
				 (x->reads[i] || in_worker(x, th, ctgid))));
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

/*
 * Sleeps of thread c ended by a thread of side[] (soft: see waker_of()):
 * ns, and how many handed something over (handoffs()).
 */
__u64 stall_sides__wait(const struct stall_ctx *x, long c, const bool *side, bool soft,
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
		*wakeups += handoffs(&x->wakes[k]);
	}
	return ns;
}

/*
 * The threads that compute for loop c: the other threads of its process,
 * off the loader and writer sides, the other loops' side and tracers. TensorFlow runs
 * a step's kernels in its inter-op and intra-op pools (tf_Compute) while
 * the loop's thread waits for them. Needs stall_sides__loader() and peer_side().
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
__u64 stall_sides__pool_cpu(const struct stall_ctx *x, __u64 *runq)
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
		ns = stall_sides__wait(x, i, x->loader, false, &n);
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
bool stall_sides__fed_by_pool(const struct stall_ctx *x, long c, __u64 *data_ns)
{
	__u64 fed, steps, direct;

	*data_ns = pool_fed(x, &fed);
	*data_ns = min_u64(*data_ns, stall_sides__wait(x, c, x->pool, false, &steps));
	stall_sides__wait(x, c, x->loader, false, &direct);
	if (fed >= x->min_wakeups && steps >= x->min_wakeups && direct < x->min_wakeups)
		return true;
	*data_ns = 0;
	return false;
}

/*
 * The name thread i is grouped under, seen from loop c: its comm's group,
 * but TensorFlow's tf.data threads have no name of their own: they take
 * their creator's, "python" (the loop's), or "tf_Compute" when Keras fit
 * makes its iterator in a pool thread. On c's loader side, in c's process,
 * such a thread of a TensorFlow process is one of "tf.data".
 */
void stall_sides__group_name(const struct stall_ctx *x, long c, long i, char name[COMM_LEN])
{
	const struct thread_rec *th = &x->s->threads.v[i], *loop = &x->s->threads.v[c];

	if (x->loader[i] && x->tf[i] && th->tgid == loop->tgid &&
	    (!strncmp(th->comm, loop->comm, COMM_LEN) || !strcmp(th->comm, TF_POOL))) {
		snprintf(name, COMM_LEN, TF_DATA);
		return;
	}
	threads__comm_group(th->comm, name);
}

void stall_sides__draw(struct stall_ctx *x, long c)
{
	stall_sides__loader(x, c);
	writer_side(x, c);
	peer_side(x, c);
	pool_side(x, c);
}
