// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A training loop's time split into its waits, computing and receiving (see stall.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/stall_int.h"

#define LOADER_BUSY	0.1	/* on CPU, of its time: a loader thread that works */

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

static int waker_cmp(const void *pa, const void *pb)
{
	const struct stall_waker *a = pa, *b = pb;

	if (a->sleep_ns != b->sleep_ns)
		return a->sleep_ns < b->sleep_ns ? 1 : -1;
	return strcmp(a->name, b->name);
}

/*
 * Is w a thread's exit wakeup (WAKER_EXIT) beside a record of its other
 * wakeups among wakes [first, first + n)? That thread is counted once.
 */
static bool counted_apart(const struct stall_ctx *x, size_t first, size_t n,
			  const struct wake_rec *w)
{
	if (!(w->waker & WAKER_EXIT))
		return false;
	for (size_t k = first; k < first + n; k++)
		if (x->wakes[k].waker == (w->waker & ~WAKER_EXIT))
			return true;
	return false;
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
			stall_sides__group_name(x, c, b, name);
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
		st->wakers[g].threads += !counted_apart(x, first, n, w);
		st->wakers[g].wakeups += w->wakeups;
		st->wakers[g].sleep_ns += w->sleep_ns;
	}
	qsort(st->wakers, st->nr_wakers, sizeof(st->wakers[0]), waker_cmp);
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
			stall_sides__group_name(x, c, i, name);
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

/* Loop c's pool (drawn with its sides): its threads, their CPU, its waits for them. */
static void split_pool(struct stall_ctx *x, long c, struct stall *st)
{
	__u64 n;

	for (size_t i = 0; i < x->s->threads.n; i++)
		st->pool_threads += x->pool[i];
	st->pool_cpu_ns = stall_sides__pool_cpu(x, &n);
	st->pool_wait_ns = stall_sides__wait(x, c, x->pool, false, &n);
	stall_sides__fed_by_pool(x, c, &st->pool_data_ns);
}

/*
 * Loop c's time: its file syscalls and the sleeps the loader ended are
 * data wait, and so are I/O wait outside its syscalls (page faults on
 * mapped data) and its time receiving batches (on CPU or runnable in its
 * receive bursts); its own writes and the sleeps the writer side ended are
 * write wait; the sleeps the other loops' side ended are rank wait.
 */
void stall_split__loop(struct stall_ctx *x, long c, struct stall *st)
{
	const struct thread_rec *th = c == x->since_i ? &x->since : &x->s->threads.v[c];
	__u64 io_out, waits;

	st->tid = th->tid;
	st->tgid = th->tgid;
	st->cgid = th->cgid;
	memcpy(st->comm, th->comm, COMM_LEN);
	stall_sides__draw(x, c);
	io_out = own_time(th, st);
	st->loader_wait_ns = stall_sides__wait(x, c, x->loader, false, &st->loader_wakeups);
	st->handshake_ns = min_u64(th->recv_shake_ns, st->loader_wait_ns);
	split_pool(x, c, st);
	st->writer_wait_ns = stall_sides__wait(x, c, x->writer, false, &st->writer_wakeups);
	st->rank_wait_ns = stall_sides__wait(x, c, x->peer, true, &st->rank_wakeups);
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
