// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Finding the training loops (see stall.h): the consumers, or those --consumer names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/procs.h"
#include "model/stall_int.h"
#include "model/trace.h"

#define CONSUMER_BUSY	0.5	/* a loop never woken by the loader computes this much */
#define CONSUMER_LIFETIME 0.5	/* of the trace, at least, a loop is traced */
#define NODE_LOOP_MIN_NS (1000 * 1000 * 1000ULL)	/* a node's loop is traced this long */
#define CONSUMER_SELF_FED 0.1	/* a loop that reads its own data computes this much (fio: 3%) */
#define LOOP_ROUNDS	4	/* passes to settle which processes run loops */
#define RELAY_SHARE	0.5	/* of a relay's loader wakeups, from the loops below it */
#define RELAY_PROCS	64	/* processes below a relay judged, at most */
#define RELAY_BACK	0.1	/* a relay woke that process under this much as often */

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

/* How a thread is a consumer (consumer_way()): the first way that holds. */
enum consumer_way {
	WAY_NONE = 0,
	WAY_FED,	/* woken by the loader (and the other loops' side) */
	WAY_POOL,	/* fed through its pool */
	WAY_SELF,	/* reads its own data and computes beside */
	WAY_AHEAD,	/* computes and takes batches the loader keeps ready */
};

/*
 * A consumer computes (on CPU outside its file syscalls, or in its
 * process's compute pools: stall_sides__pool_cpu(); or waits for a CPU to, on a loaded
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
 * each at its exit) or only reads (a pure reader) is none. Returns the way.
 */
static enum consumer_way consumer_way(struct stall_ctx *x, long c, const struct stall_opts *o,
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
		return WAY_NONE;
	stall_sides__draw(x, c);
	compute += stall_sides__pool_cpu(x, &runq);
	fed = stall_sides__wait(x, c, x->loader, false, wakeups);
	if (compute + runq + th->runq_ns < o->min_cpu_share * (wall > fed ? wall - fed : 0))
		return WAY_NONE;
	stall_sides__wait(x, c, x->peer, true, &paced);
	for (size_t i = 0; i < x->s->threads.n && !loader; i++)
		loader = x->loader[i];
	if (loader && *wakeups + paced >= o->min_wakeups)
		return WAY_FED;
	if (stall_sides__fed_by_pool(x, c, &via_pool))
		return WAY_POOL;
	if (reads_of(th) >= o->min_wakeups && 2 * reads_of(th) >= tree_reads(x, c) &&
	    compute >= CONSUMER_SELF_FED * wall)
		return WAY_SELF;
	if (loader && compute >= CONSUMER_BUSY * (wall - th->runq_ns) &&
	    *wakeups + woke(x, c, x->loader) >= o->min_wakeups)
		return WAY_AHEAD;
	return WAY_NONE;
}

/*
 * Wakeups of thread c by the threads of process tgid (0: of any) on its
 * loader side or the other loops' side. Needs c's sides.
 */
static __u64 fed_by(const struct stall_ctx *x, long c, __u32 tgid)
{
	size_t first, n = wakes_of(x, x->s->threads.v[c].tid, &first);
	__u64 sum = 0;

	for (size_t k = first; k < first + n; k++) {
		long b = plain_waker(x, &x->wakes[k]);

		if (b >= 0 && (x->loader[b] || x->peer[b]) &&
		    (!tgid || x->s->threads.v[b].tgid == tgid))
			sum += handoffs(&x->wakes[k]);
	}
	return sum;
}

/* Wakeups the threads of process from gave those of process to. */
static __u64 proc_woke(const struct stall_ctx *x, __u32 from, __u32 to)
{
	__u64 sum = 0;

	for (size_t k = 0; k < x->nr_wakes; k++) {
		long a = thread_idx(x->s, x->wakes[k].wakee), b;

		if (a < 0 || x->s->threads.v[a].tgid != to)
			continue;
		b = plain_waker(x, &x->wakes[k]);
		if (b >= 0 && x->s->threads.v[b].tgid == from)
			sum += x->wakes[k].wakeups;
	}
	return sum;
}

/*
 * Is c, fed by its loader side, only the consumer of loops below it: a
 * relay? mpirun reads each line its rank logs from a pipe and writes it
 * on; the rank's main thread reads (its imports) and so is on mpirun's
 * loader side, and ended a sleep of mpirun's at every step: mpirun "waited
 * for data 99.8%", and the rank below it, never judged, was not found.
 *
 * c relays when the processes below its own it only listens to ended
 * RELAY_SHARE of its sleeps that the loader side and the other loops' side
 * ended (min_wakeups at least). Once such a process runs a loop, its
 * wakeups are the other loops' side's, rank wait: on a loaded machine,
 * where a relay waited for a CPU 10% of its time, it was then a rank
 * waiting for that loop in every other round, and the last round's
 * choice. A process c only listens to: c's process woke it under
 * RELAY_BACK as often (a relay takes and gives nothing back; a loop hands
 * its workers indices and takes each tensor from them through a
 * handshake), and its main thread is fed in its own right, by its loader
 * or through its pool, with c's process above it (its launcher): a loop.
 * Up to RELAY_PROCS processes below c are judged (ranks under a launcher).
 * Draws other threads' sides over c's.
 */
static bool relays(struct stall_ctx *x, long c, const struct stall_opts *o)
{
	const struct store *s = x->s;
	__u32 ctgid = s->threads.v[c].tgid, below[RELAY_PROCS];
	size_t first, n = wakes_of(x, s->threads.v[c].tid, &first), nb = 0;
	__u64 fed = fed_by(x, c, 0), from[RELAY_PROCS], loops = 0, w;
	enum consumer_way way;

	if (fed < o->min_wakeups)
		return false;
	/* c's wakers below it and their wakeups, while its sides are drawn */
	for (size_t k = first; k < first + n && nb < RELAY_PROCS; k++) {
		long b = plain_waker(x, &x->wakes[k]);
		__u32 tgid = b >= 0 ? s->threads.v[b].tgid : 0;
		size_t j = 0;

		if (b < 0 || !(x->loader[b] || x->peer[b]) || tgid == ctgid ||
		    !descends(x, tgid, ctgid))
			continue;
		while (j < nb && below[j] != tgid)
			j++;
		if (j == nb) {
			below[nb] = tgid;
			from[nb++] = fed_by(x, c, tgid);
		}
	}
	for (size_t j = 0; j < nb; j++) {
		long d = thread_idx(s, below[j]);

		if (d < 0 || proc_woke(x, ctgid, below[j]) >= RELAY_BACK * from[j])
			continue;
		way = consumer_way(x, d, o, &w);
		if (way == WAY_FED || way == WAY_POOL)
			loops += from[j];
	}
	return loops >= RELAY_SHARE * fed;
}

/* Is thread c a training loop: a consumer that relays no loop below it? */
static bool is_loop(struct stall_ctx *x, long c, const struct stall_opts *o)
{
	__u64 wakeups;
	enum consumer_way way = consumer_way(x, c, o, &wakeups);

	return way != WAY_NONE && (way != WAY_FED || !relays(x, c, o));
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
 * loop at the last measure, and could pass consumer_way() at all: woken or
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

int stall_find__loops(struct stall_ctx *x, const struct trace *t, const struct stall_opts *o)
{
	const struct store *s = x->s;
	size_t n = s->threads.n, nc = 0;
	struct cand *cands = malloc((n ? n : 1) * sizeof(*cands));
	bool *next = calloc(n ? n : 1, sizeof(*next));
	__u64 *touch = x->work ? calloc(n ? n : 1, sizeof(*touch)) : NULL;
	int err = -ENOMEM;

	if (!cands || !next || (x->work && !touch))
		goto out_free;
	if (touch)
		count_touches(x, touch);
	for (size_t i = 0; i < n; i++)
		if (s->threads.v[i].tid == s->threads.v[i].tgid && !x->tracer[i] && !x->runtime[i] &&
		    (!touch || node_candidate(x, t, i, touch, o->min_wakeups)))
			cands[nc++] = (struct cand){ i, depth_of(x, s->threads.v[i].tgid) };
	qsort(cands, nc, sizeof(*cands), cand_cmp);
	for (int round = 0; round < LOOP_ROUNDS; round++) {
		memset(next, 0, n * sizeof(*next));
		for (size_t k = 0; k < nc; k++)
			if (!under_loop(x, next, cands[k].i))
				next[cands[k].i] = is_loop(x, cands[k].i, o);
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
int stall_find__given(struct stall_ctx *x, const struct stall_opts *o)
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
