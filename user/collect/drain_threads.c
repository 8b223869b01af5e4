// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The threads' side tables, read at every drain of the threads: the
 * processes forked, exec'd and exited (forks), who ended whose sleeps
 * (wakes, the interval just ended), and the per-thread receive, write and
 * async tables, whose entries of exited threads go once read. So each
 * table holds what is live, not the trace's history (docs/memory.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <linux/types.h>
#include "iostorm.h"
#include "collect/collect_int.h"

int tids__push(struct tids *l, __u32 tid)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		__u32 *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = tid;
	return 0;
}

/* Kernel table k held n entries at this drain: its high-water mark. */
void drain__table_seen(const struct drain *d, struct trace *t, enum kernel_table k, __u64 n)
{
	t->tables[k].max = d->table_max[k];
	if (n > t->tables[k].high)
		t->tables[k].high = n;
}

struct forks_walk {
	int fd;
	struct procs *procs;
	__u64 n;
};

/*
 * A process's entry, taken out as it is read: an exec or an exit the
 * programs note between the walk's read and a delete would be lost.
 */
static int add_fork(const void *key, void *value, void *ctx)
{
	struct forks_walk *w = ctx;

	w->n++;
	if (bpf_map_lookup_and_delete_elem(w->fd, key, value))
		bpf_map_delete_elem(w->fd, key);	/* the walk's read stands */
	return procs__note(w->procs, *(const __u32 *)key, value);
}

/*
 * The processes forked, exec'd or exited since the last drain, with their
 * parents and times; taken out of the map (the walk goes on from the start).
 */
static int drain_forks(struct drain *d, struct trace *t)
{
	struct forks_walk w = { d->forks_fd, &t->procs, 0 };
	struct proc_life ev;
	__u32 tgid;
	int err;

	err = map_each(d->forks_fd, &tgid, sizeof(tgid), &ev, 0, add_fork, &w);
	drain__table_seen(d, t, KT_FORKS, w.n);
	return err;
}

static bool store_holds(const void *threads, __u32 tid)
{
	return threads__find(threads, tid) != NULL;
}

/*
 * The (sleeper, waker) pairs of the interval that just ended (the set the
 * programs no longer write, after the wait) into t->wakes, and out of the
 * kernel's map; the pairs of the interval going on stay. Read in batches;
 * a bucket's entries are deleted once read, which leaves the walk's later
 * buckets as they were.
 */
static int drain_wake_pairs(struct drain *d, struct trace *t)
{
	__u32 old = (*d->thread_gen & 1) ^ 1;
	__u64 in = 0, out = 0, seen = 0;
	bool first = true;
	int err, last;

	for (;;) {
		__u32 n = DRAIN_BATCH, k = 0;

		last = bpf_map_lookup_batch(d->wakes_fd, first ? NULL : &in, &out,
					    d->wake_keys, d->wake_vals, &n, NULL);
		if (last && errno != ENOENT)
			return -errno;
		seen += n;
		for (__u32 i = 0; i < n; i++) {
			const struct wake_key *key = &d->wake_keys[i];
			const struct wake_stats *v = &d->wake_vals[i];

			if (key->set != old)
				continue;
			err = wakes__add(&t->wakes, key->wakee, key->waker, v->wakeups,
					 v->sleep_ns);
			if (err)
				return err;
			d->wake_keys[k++] = *key;
		}
		if (k && bpf_map_delete_batch(d->wakes_fd, d->wake_keys, &k, NULL))
			return -errno;
		if (last)
			break;
		in = out;
		first = false;
	}
	drain__table_seen(d, t, KT_WAKES, seen);
	if (seen > t->wakes.kernel_high)
		t->wakes.kernel_high = seen;
	wakes__prune(&t->wakes, store_holds, &t->store.threads);
	return 0;
}

/*
 * A walk over a per-thread table. A thread whose entries were deleted at
 * its exit (th->gone has the table's bit) may get one again: an io_uring
 * or AIO request charged to it completes later. That entry is added on,
 * and deleted after the walk (tids in *late): a delete inside the walk
 * would restart it.
 */
struct table_walk {
	struct drain *d;
	struct store *store;
	__u32 bit;		/* THREAD_GONE_* of the table */
	__u64 n;
};

/* A thread's receive bursts, onto its record (none: it was evicted from the store). */
static int add_recv(const void *key, void *value, void *ctx)
{
	const struct recv_thread *r = value;
	struct table_walk *w = ctx;
	struct thread_rec *th = threads__find(&w->store->threads, *(const __u32 *)key);

	w->n++;
	if (!th)
		return 0;
	if (th->gone & w->bit) {
		th->recv_cpu_ns += r->cpu_ns;
		th->recv_runq_ns += r->runq_ns;
		th->recv_shake_ns += r->shake_ns;
		return tids__push(&w->d->late, th->tid);
	}
	th->recv_cpu_ns = r->cpu_ns;
	th->recv_runq_ns = r->runq_ns;
	th->recv_shake_ns = r->shake_ns;
	return 0;
}

/* A thread's writes, onto its record (none: it was evicted from the store). */
static int add_writes(const void *key, void *value, void *ctx)
{
	const struct write_thread *wt = value;
	struct table_walk *w = ctx;
	struct thread_rec *th = threads__find(&w->store->threads, *(const __u32 *)key);
	const __u64 *add = (const __u64 *)&wt->w;

	w->n++;
	if (!th)
		return 0;
	if (th->gone & w->bit) {
		__u64 *sum = (__u64 *)&th->w;

		for (size_t i = 0; i < sizeof(wt->w) / sizeof(__u64); i++)
			sum[i] += add[i];
		return tids__push(&w->d->late, th->tid);
	}
	th->w = wt->w;
	return 0;
}

/* A thread's async reads, onto its record (none: it was evicted from the store). */
static int add_async_thread(const void *key, void *value, void *ctx)
{
	const struct async_thread *a = value;
	struct table_walk *w = ctx;
	struct thread_rec *th = threads__find(&w->store->threads, *(const __u32 *)key);

	w->n++;
	if (!th)
		return 0;
	if (th->gone & w->bit) {
		th->async_reads += a->reads;
		th->async_depth += a->depth;
		return tids__push(&w->d->late, th->tid);
	}
	th->async_reads = a->reads;
	th->async_depth = a->depth;
	return 0;
}

/*
 * Walk per-thread table fd with fn (its fill is table k's), then delete the
 * entries made after their threads' exits, added on by the walk.
 */
static int thread_table_walk(struct drain *d, struct trace *t, int fd, enum kernel_table k,
			     __u32 bit, void *value, map_each_fn fn)
{
	struct table_walk w = { d, &t->store, bit, 0 };
	__u32 tid;
	int err;

	d->late.n = 0;
	err = map_each(fd, &tid, sizeof(tid), value, 0, fn, &w);
	drain__table_seen(d, t, k, w.n);
	for (size_t i = 0; i < d->late.n; i++)
		bpf_map_delete_elem(fd, &d->late.v[i]);
	return err;
}

/*
 * The per-thread tables (receive bursts, writes, async reads: cumulative,
 * by tid) onto the threads' records; then the entries of the threads that
 * exited since the last drain go, read for the last time (their records
 * marked: an async request charged to one that completes later makes a new
 * entry, added on at the next drain). So the tables hold the live threads,
 * not every thread of the trace.
 */
static int drain_thread_tables(struct drain *d, struct trace *t)
{
	const int fds[] = { d->recv_fd, d->writes_fd, d->async_threads_fd };
	struct write_thread wt;
	struct recv_thread rt;
	struct async_thread at;
	struct thread_rec *th;
	int err;

	err = thread_table_walk(d, t, d->recv_fd, KT_RECV, THREAD_GONE_RECV, &rt, add_recv);
	if (!err)
		err = thread_table_walk(d, t, d->writes_fd, KT_WRITES, THREAD_GONE_WRITES, &wt,
					add_writes);
	if (!err)
		err = thread_table_walk(d, t, d->async_threads_fd, KT_ASYNC_THREADS,
					THREAD_GONE_ASYNC, &at, add_async_thread);
	if (err)
		return err;
	for (size_t i = 0; i < d->exited.n; i++) {
		th = threads__find(&t->store.threads, d->exited.v[i]);
		if (th)		/* else evicted: its entries mean nothing now */
			th->gone = THREAD_GONE_RECV | THREAD_GONE_WRITES | THREAD_GONE_ASYNC;
		for (size_t f = 0; f < sizeof(fds) / sizeof(fds[0]); f++)
			bpf_map_delete_elem(fds[f], &d->exited.v[i]);	/* ENOENT: none */
	}
	d->exited.n = 0;
	return 0;
}

int drain__side_tables(struct drain *d, struct trace *t)
{
	return drain_forks(d, t) ?: drain_wake_pairs(d, t) ?: drain_thread_tables(d, t);
}
