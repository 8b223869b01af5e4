// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The training loop's wait for data, see stall.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/stall.h"
#include "model/trace.h"

#define LOADER_ROUNDS	16	/* passes over the wakes: pipelines are a few stages deep */
#define CONSUMER_BUSY	0.5	/* a loop never woken by the loader computes this much */
#define CONSUMER_LIFETIME 0.5	/* of the trace, at least, a loop is traced */
#define CONSUMER_SELF_FED 0.1	/* a loop that reads its own data computes this much (fio: 3%) */

/* What the measure works on: the threads, and the wakes sorted by sleeper. */
struct stall_ctx {
	const struct store *s;
	struct wake_rec *wakes;
	size_t nr_wakes;
	bool *loader;		/* by index into s->threads */
	bool *reads;		/* the thread's process read files */
	__u64 all_reads;	/* file reads of every thread */
	double traced_ns;	/* the trace's duration; 0 when not known */
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
	const struct thread_rec *th = store__find_thread(s, tid);

	return th ? th - s->threads : -1;
}

static __u64 wall_of(const struct thread_rec *th)
{
	return th->cpu_ns + th->io_wait_ns + th->runq_ns + th->sleep_ns;
}

static bool waker_is_loader(const struct stall_ctx *x, __u32 waker)
{
	long i = waker == WAKER_OUTSIDE ? -1 : thread_idx(x->s, waker);

	return i >= 0 && x->loader[i];
}

/*
 * The loader side, for consumer c: see stall.h. A thread joins it when a
 * wakeup joins it to the loader side in either direction (a decoder woken
 * by a reader, a reader woken by a decoder that freed room in its queue),
 * never through the consumer: its own compute threads, which only it wakes
 * and which only wake it, stay out.
 */
static void loader_side(struct stall_ctx *x, long c)
{
	const struct store *s = x->s;
	__u32 ctid = c >= 0 ? s->threads[c].tid : 0;
	bool changed = true;

	for (size_t i = 0; i < s->nr_threads; i++) {
		const struct thread_rec *th = &s->threads[i];

		x->loader[i] = (long)i != c && (th->io.reads > 0 ||
			       (c >= 0 && th->tgid != s->threads[c].tgid && x->reads[i]));
	}
	for (int round = 0; changed && round < LOADER_ROUNDS; round++) {
		changed = false;
		for (size_t k = 0; k < x->nr_wakes; k++) {
			const struct wake_rec *w = &x->wakes[k];
			long a, b;

			if (w->waker == WAKER_OUTSIDE || w->wakee == ctid || w->waker == ctid)
				continue;
			a = thread_idx(s, w->wakee);
			b = thread_idx(s, w->waker);
			if (a < 0 || b < 0 || x->loader[a] == x->loader[b])
				continue;
			x->loader[a] = x->loader[b] = changed = true;
		}
	}
}

/* Sleeps of thread c ended by the loader side: ns, and how many. */
static __u64 loader_wait(const struct stall_ctx *x, long c, __u64 *wakeups)
{
	size_t first, n = wakes_of(x, x->s->threads[c].tid, &first);
	__u64 ns = 0;

	*wakeups = 0;
	for (size_t k = first; k < first + n; k++) {
		if (!waker_is_loader(x, x->wakes[k].waker))
			continue;
		ns += x->wakes[k].sleep_ns;
		*wakeups += x->wakes[k].wakeups;
	}
	return ns;
}

/*
 * A consumer computes (on CPU outside its file syscalls) and is fed: the
 * loader wakes it as often as a loop takes batches, or it does most of the
 * target's file reads itself and computes beside them (num_workers=0; a
 * pure reader such as fio, which computes 3% of its time, or a shell
 * reading its script does not). A loop the loader always keeps ahead of
 * is never woken by it: it qualifies by computing most of its time next
 * to a loader. A thread that only waits (a launcher joining its readers),
 * only reads (a pure reader) or lives for a moment of the trace (a
 * launcher's readlink) is not one: the loop runs for most of the trace.
 */
static bool is_consumer(struct stall_ctx *x, long c, const struct stall_opts *o,
			__u64 *wakeups)
{
	const struct thread_rec *th = &x->s->threads[c];
	__u64 wall = wall_of(th), io = th->io.read_ns + th->io.meta_ns, in_sys, compute;
	bool loader = false;

	loader_side(x, c);
	loader_wait(x, c, wakeups);
	for (size_t i = 0; i < x->s->nr_threads && !loader; i++)
		loader = x->loader[i];
	in_sys = io > th->io_wait_ns ? io - th->io_wait_ns : 0;
	compute = th->cpu_ns > in_sys ? th->cpu_ns - in_sys : 0;
	if (!wall || compute < o->min_cpu_share * wall ||
	    wall < CONSUMER_LIFETIME * x->traced_ns)
		return false;
	return *wakeups >= o->min_wakeups ||
	       (th->io.reads >= o->min_wakeups && 2 * th->io.reads >= x->all_reads &&
		compute >= CONSUMER_SELF_FED * wall) ||
	       (loader && compute >= CONSUMER_BUSY * wall);
}

/* --consumer COMM: the busiest thread of that name. */
static long by_comm(const struct store *s, const char *comm)
{
	long best = -1;

	for (size_t i = 0; i < s->nr_threads; i++)
		if (!strncmp(s->threads[i].comm, comm, COMM_LEN) &&
		    (best < 0 || s->threads[i].cpu_ns > s->threads[best].cpu_ns))
			best = i;
	return best;
}

static long pick(struct stall_ctx *x, const struct stall_opts *o, struct stall *st)
{
	const struct store *s = x->s;
	long c = -1, best = -1;
	__u64 w, best_w = 0;

	if (o->consumer_tid || o->consumer_comm) {
		c = o->consumer_tid ? thread_idx(s, o->consumer_tid) : by_comm(s, o->consumer_comm);
		st->how = c >= 0 ? CONSUMER_GIVEN : CONSUMER_NONE;
		snprintf(st->why, sizeof(st->why), c >= 0 ? "given with --consumer" :
			 "no consumer found: the thread given with --consumer did not run");
		return c;
	}
	c = o->root_tgid ? thread_idx(s, o->root_tgid) : -1;
	if (c >= 0 && is_consumer(x, c, o, &w)) {
		st->how = CONSUMER_ROOT;
		snprintf(st->why, sizeof(st->why), "the main thread of the traced process");
		return c;
	}
	for (size_t i = 0; i < s->nr_threads; i++)
		if (s->threads[i].tid == s->threads[i].tgid && is_consumer(x, i, o, &w) &&
		    (best < 0 || w > best_w))
			best = i, best_w = w;
	st->how = best >= 0 ? CONSUMER_FED : CONSUMER_NONE;
	snprintf(st->why, sizeof(st->why), best >= 0 ?
		 "the process main thread the loader woke most" :
		 "no consumer found: no thread computes while the loader feeds it "
		 "(a pure reader?): data stall not measured");
	return best;
}

static int waker_cmp(const void *pa, const void *pb)
{
	const struct stall_waker *a = pa, *b = pb;

	if (a->sleep_ns != b->sleep_ns)
		return a->sleep_ns < b->sleep_ns ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* The consumer's wakers, by thread name, most sleep ended first. */
static void wakers_of(const struct stall_ctx *x, long c, struct stall *st)
{
	size_t first, n = wakes_of(x, x->s->threads[c].tid, &first);

	for (size_t k = first; k < first + n; k++) {
		const struct wake_rec *w = &x->wakes[k];
		const struct thread_rec *th = w->waker == WAKER_OUTSIDE ? NULL :
					      store__find_thread(x->s, w->waker);
		char name[COMM_LEN];
		int g;

		if (th)
			store__comm_group(th->comm, name);
		else
			snprintf(name, sizeof(name), "(outside)");
		for (g = 0; g < st->nr_wakers && strcmp(st->wakers[g].name, name); g++)
			;
		if (g == st->nr_wakers) {
			if (g == STALL_WAKERS)
				continue;	/* the totals still hold it */
			st->nr_wakers++;
			memcpy(st->wakers[g].name, name, sizeof(name));
			st->wakers[g].loader = waker_is_loader(x, w->waker);
		}
		st->wakers[g].threads++;
		st->wakers[g].wakeups += w->wakeups;
		st->wakers[g].sleep_ns += w->sleep_ns;
	}
	qsort(st->wakers, st->nr_wakers, sizeof(st->wakers[0]), waker_cmp);
}

/*
 * The consumer's time: its file syscalls and the sleeps the loader ended
 * are data wait, and so is I/O wait outside its syscalls (page faults on
 * mapped data: a DataLoader's batch arrives in shared memory).
 */
static void split(struct stall_ctx *x, long c, struct stall *st)
{
	const struct thread_rec *th = &x->s->threads[c];
	__u64 in_sys_cpu, io_out;

	st->tid = th->tid;
	st->tgid = th->tgid;
	memcpy(st->comm, th->comm, COMM_LEN);
	loader_side(x, c);
	st->own_io_ns = th->io.read_ns + th->io.meta_ns;
	st->loader_wait_ns = loader_wait(x, c, &st->loader_wakeups);
	io_out = th->io_wait_ns > st->own_io_ns ? th->io_wait_ns - st->own_io_ns : 0;
	in_sys_cpu = st->own_io_ns > th->io_wait_ns ? st->own_io_ns - th->io_wait_ns : 0;
	st->data_wait_ns = st->own_io_ns + st->loader_wait_ns + io_out;
	st->on_cpu_ns = th->cpu_ns > in_sys_cpu ? th->cpu_ns - in_sys_cpu : 0;
	st->runnable_ns = th->runq_ns;
	st->other_wait_ns = th->sleep_ns > st->loader_wait_ns ?
			    th->sleep_ns - st->loader_wait_ns : 0;
	st->wall_ns = st->data_wait_ns + st->on_cpu_ns + st->runnable_ns + st->other_wait_ns;
	for (size_t i = 0; i < x->s->nr_threads; i++)
		st->loader_threads += x->loader[i];
	wakers_of(x, c, st);
}

static int u32_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

/* Which threads' processes read files (a process: its threads' tgid). */
static int mark_reading(struct stall_ctx *x)
{
	const struct store *s = x->s;
	__u32 *tgids = malloc((s->nr_threads ? s->nr_threads : 1) * sizeof(*tgids));
	size_t n = 0;

	if (!tgids)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_threads; i++) {
		x->all_reads += s->threads[i].io.reads;
		if (s->threads[i].io.reads)
			tgids[n++] = s->threads[i].tgid;
	}
	qsort(tgids, n, sizeof(*tgids), u32_cmp);
	for (size_t i = 0; i < s->nr_threads; i++)
		x->reads[i] = bsearch(&s->threads[i].tgid, tgids, n, sizeof(*tgids), u32_cmp);
	free(tgids);
	return 0;
}

int stall__measure(struct stall *st, const struct trace *t, const struct stall_opts *o)
{
	struct stall_ctx x = {
		.s = &t->store, .nr_wakes = t->nr_wakes, .traced_ns = t->duration_s * 1e9,
	};
	size_t n = t->store.nr_threads;
	long c;
	int err = -ENOMEM;

	memset(st, 0, sizeof(*st));
	x.wakes = malloc((t->nr_wakes ? t->nr_wakes : 1) * sizeof(*x.wakes));
	x.loader = calloc(n ? n : 1, sizeof(*x.loader));
	x.reads = calloc(n ? n : 1, sizeof(*x.reads));
	if (!x.wakes || !x.loader || !x.reads)
		goto out_free;
	memcpy(x.wakes, t->wakes, t->nr_wakes * sizeof(*x.wakes));
	qsort(x.wakes, x.nr_wakes, sizeof(*x.wakes), wake_cmp);
	if (mark_reading(&x))
		goto out_free;
	c = pick(&x, o, st);
	if (c >= 0)
		split(&x, c, st);
	err = 0;
out_free:
	free(x.reads);
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

const char *stall__how_name(enum consumer_how how)
{
	static const char *const names[] = {
		[CONSUMER_NONE] = "none", [CONSUMER_GIVEN] = "given",
		[CONSUMER_ROOT] = "root", [CONSUMER_FED] = "fed",
	};

	return how <= CONSUMER_FED ? names[how] : "unknown";
}
