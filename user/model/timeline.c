// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The run over time, see timeline.h: differences of the trace's cumulative
 * figures at each drain, gathered into at most TL_MAX_POINTS points.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "model/hist.h"
#include "model/timeline.h"
#include "model/trace.h"

#define TL_FIRST_SLOT	((TL_LAT_MIN_LOG2 - HIST_SUB_BITS + 1) * HIST_SUB)
#define TL_CAP_START	64

struct tl_thread {
	__u64 ops;		/* opens + reads */
	__u64 time[4];		/* cpu, io wait, run queue, sleep: TL_CPU_NS.. order */
};

struct tl_dev {
	__u32 dev;
	__u64 busy_ns;		/* the device's, every submitter's */
	__u64 read_bytes;	/* the target's block reads on it */
};

struct tl_prev {
	__u64 n[TL__MAX];		/* TL_FILES..TL_BLK_READ_BYTES, TL_WRITES..TL_WRITE_NS */
	struct hist read_lat;
	struct tl_thread *threads;	/* by index into store.threads.v */
	size_t nr_threads;
	struct tl_dev *devs;
	size_t nr_devs;
	__u32 consumer;			/* the training loop's tid at the last point */
	__u64 stall[3];			/* its data wait, wall time and write wait then */
};

int timeline__init(struct timeline *tl, __u64 start_ns, __u64 drain_ns)
{
	memset(tl, 0, sizeof(*tl));
	tl->per_point = 1;
	tl->drain_ns = drain_ns;
	tl->start_ns = tl->last_ns = start_ns;
	tl->prev = calloc(1, sizeof(*tl->prev));
	return tl->prev ? 0 : -ENOMEM;
}

void timeline__free(struct timeline *tl)
{
	if (tl->prev) {
		free(tl->prev->threads);
		free(tl->prev->devs);
	}
	free(tl->prev);
	free(tl->points);
	memset(tl, 0, sizeof(*tl));
}

void tl_point__merge(struct tl_point *dst, const struct tl_point *src)
{
	if (!dst->intervals) {
		*dst = *src;
		return;
	}
	dst->dur_ns = src->t_ns + src->dur_ns - dst->t_ns;
	dst->intervals += src->intervals;
	for (int i = 0; i < TL__MAX; i++)
		dst->n[i] += src->n[i];
	for (int i = 0; i < TL_LAT_SLOTS; i++)
		dst->lat[i] = dst->lat[i] > UINT32_MAX - src->lat[i] ?
			      UINT32_MAX : dst->lat[i] + src->lat[i];
}

void tl_point__add_lat(struct tl_point *p, __u64 ns, __u64 n)
{
	long slot = (long)hist__slot(ns) - TL_FIRST_SLOT;
	__u64 v;

	if (slot < 0)
		slot = 0;
	if (slot >= TL_LAT_SLOTS)
		slot = TL_LAT_SLOTS - 1;
	v = p->lat[slot] + n;
	p->lat[slot] = v > UINT32_MAX ? UINT32_MAX : v;
}

__u64 tl_point__quantile(const struct tl_point *p, double q)
{
	__u64 total = 0, seen = 0, rank;

	for (int i = 0; i < TL_LAT_SLOTS; i++)
		total += p->lat[i];
	if (!total)
		return 0;
	/* As hist__quantile(): the smallest v with q * total values <= v. */
	rank = (__u64)(q * total + 0.999999);
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < TL_LAT_SLOTS; i++) {
		seen += p->lat[i];
		if (seen >= rank)
			return hist__upper(TL_FIRST_SLOT + i);
	}
	return hist__upper(TL_FIRST_SLOT + TL_LAT_SLOTS - 1);
}

void tl_point__log2_rows(const struct tl_point *p, __u64 rows[TL_LAT_ROWS])
{
	for (int r = 0; r < TL_LAT_ROWS; r++) {
		rows[r] = 0;
		for (int i = 0; i < HIST_SUB; i++)
			rows[r] += p->lat[r * HIST_SUB + i];
	}
}

/* Halve the points: neighbours merged pairwise, the step doubled. */
static void timeline__halve(struct timeline *tl)
{
	size_t n = 0;

	for (size_t i = 0; i < tl->nr; i += 2, n++) {
		tl->points[n] = tl->points[i];
		if (i + 1 < tl->nr)
			tl_point__merge(&tl->points[n], &tl->points[i + 1]);
	}
	tl->nr = n;
	tl->per_point *= 2;
}

static int timeline__push(struct timeline *tl)
{
	if (tl->nr == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : TL_CAP_START;
		struct tl_point *p;

		if (cap > TL_MAX_POINTS)
			cap = TL_MAX_POINTS;
		p = realloc(tl->points, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		tl->points = p;
		tl->cap = cap;
	}
	tl->points[tl->nr++] = tl->pending;
	memset(&tl->pending, 0, sizeof(tl->pending));
	return 0;
}

/*
 * A full timeline is halved when its next point is complete; that point
 * then gathers as many intervals as the merged ones hold before it joins.
 */
int timeline__add(struct timeline *tl, const struct tl_point *p)
{
	tl_point__merge(&tl->pending, p);
	if (tl->pending.intervals < tl->per_point)
		return 0;
	if (tl->nr == TL_MAX_POINTS) {
		timeline__halve(tl);
		return 0;
	}
	return timeline__push(tl);
}

int timeline__finish(struct timeline *tl)
{
	if (!tl->pending.intervals)
		return 0;
	if (tl->nr == TL_MAX_POINTS)
		timeline__halve(tl);
	return timeline__push(tl);
}

void timeline__sum(const struct timeline *tl, struct tl_point *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < tl->nr; i++)
		tl_point__merge(sum, &tl->points[i]);
	if (tl->pending.intervals)
		tl_point__merge(sum, &tl->pending);
}

size_t timeline__bytes(const struct timeline *tl)
{
	size_t n = sizeof(*tl) + tl->cap * sizeof(*tl->points);

	if (tl->prev)
		n += sizeof(*tl->prev) + tl->prev->nr_threads * sizeof(struct tl_thread) +
		     tl->prev->nr_devs * sizeof(struct tl_dev);
	return n;
}

static __u64 delta(__u64 now, __u64 was)
{
	return now > was ? now - was : 0;
}

/* The counters, block reads and read latency since the last interval. */
static void take_counts(struct tl_point *p, struct tl_prev *pr, const struct trace *t)
{
	__u64 now[TL__MAX] = { 0 };
	const struct hist *lat = &t->hists[H_READ_LAT];
	struct blk_stats rd;

	block__sum(&t->block, BLK_READ, WHO_BIT(WHO_TARGET), &rd);
	now[TL_FILES] = t->store.reg_opens;
	now[TL_OPENS] = t->counters[C_OPENS];
	now[TL_READS] = t->counters[C_READS];
	now[TL_READ_BYTES] = t->counters[C_READ_BYTES];
	now[TL_READ_NS] = t->counters[C_READ_NS];
	now[TL_CACHE_PAGES] = t->counters[C_CACHE_PAGES];
	now[TL_BLK_READS] = rd.reqs;
	now[TL_BLK_READ_NS] = rd.total_ns;
	now[TL_BLK_READ_BYTES] = rd.bytes;
	now[TL_WRITES] = t->counters[C_WRITES];
	now[TL_WRITE_BYTES] = t->counters[C_WRITE_BYTES];
	now[TL_WRITE_NS] = t->counters[C_WRITE_NS] + t->counters[C_FSYNC_NS] +
			   t->counters[C_COMMIT_NS];
	for (int i = 0; i < TL__MAX; i++) {
		if (i > TL_BLK_READ_BYTES && (i < TL_WRITES || i > TL_WRITE_NS))
			continue;	/* from the block devices, threads and stall */
		p->n[i] = delta(now[i], pr->n[i]);
		pr->n[i] = now[i];
	}
	for (__u32 i = 0; i < HIST_SLOTS; i++) {
		__u64 d = delta(lat->slots[i], pr->read_lat.slots[i]);

		if (d)
			tl_point__add_lat(p, hist__lower(i), d);
	}
	pr->read_lat = *lat;
}

/*
 * The busy time, every submitter's, of the device the target read the
 * most bytes from since the last interval (the findings judge the same
 * device, findings/evidence.c); none when the target read no block.
 */
static int take_busy(struct tl_point *p, struct tl_prev *pr, const struct block *b)
{
	struct tl_dev *devs = calloc(b->nr_devs ? b->nr_devs : 1, sizeof(*devs));
	__u64 most = 0;

	if (!devs)
		return -ENOMEM;
	for (size_t i = 0; i < b->nr_devs; i++) {
		struct tl_dev was = { 0 };
		struct blk_stats st;
		__u64 read;

		for (size_t k = 0; k < pr->nr_devs; k++)
			if (pr->devs[k].dev == b->devs[i].dev)
				was = pr->devs[k];
		blk_dev__sum(&b->devs[i], BLK_READ, WHO_BIT(WHO_TARGET), &st);
		devs[i].dev = b->devs[i].dev;
		devs[i].busy_ns = b->devs[i].busy_ns[BLK_SCOPE_DEVICE];
		devs[i].read_bytes = st.bytes;
		read = delta(st.bytes, was.read_bytes);
		if (read > most) {
			most = read;
			p->n[TL_BUSY_NS] = delta(devs[i].busy_ns, was.busy_ns);
		}
	}
	free(pr->devs);
	pr->devs = devs;
	pr->nr_devs = b->nr_devs;
	return 0;
}

/*
 * The loader threads' time since the last interval: as the findings' rule,
 * a loader thread does at least 1% of the interval's opens and reads.
 */
static int take_threads(struct tl_point *p, struct tl_prev *pr, const struct store *s)
{
	__u64 all = 0;

	if (s->threads.n > pr->nr_threads) {
		struct tl_thread *th = realloc(pr->threads, s->threads.n * sizeof(*th));

		if (!th)
			return -ENOMEM;
		memset(th + pr->nr_threads, 0,
		       (s->threads.n - pr->nr_threads) * sizeof(*th));
		pr->threads = th;
		pr->nr_threads = s->threads.n;
	}
	for (size_t i = 0; i < s->threads.n; i++)
		all += delta(s->threads.v[i].io.opens + s->threads.v[i].io.reads,
			     pr->threads[i].ops);
	for (size_t i = 0; i < s->threads.n; i++) {
		const struct thread_rec *th = &s->threads.v[i];
		struct tl_thread *was = &pr->threads[i];
		__u64 now[4] = { th->cpu_ns, th->io_wait_ns, th->runq_ns, th->sleep_ns };
		__u64 own = delta(th->io.opens + th->io.reads, was->ops);

		for (int k = 0; k < 4; k++) {
			if (own && own * 100 >= all)
				p->n[TL_CPU_NS + k] += delta(now[k], was->time[k]);
			was->time[k] = now[k];
		}
		was->ops = th->io.opens + th->io.reads;
	}
	return 0;
}

/*
 * The training loop's wait since the last interval: all of it when the
 * consumer is first found; if the choice moves to another thread, that
 * thread counts from then on (its earlier time is not in the timeline).
 */
static void take_stall(struct tl_point *p, struct tl_prev *pr, const struct stall *st)
{
	__u32 tid = st->how != CONSUMER_NONE ? st->tid : 0;
	__u64 now[3] = { st->data_wait_ns, st->wall_ns, st->write_wait_ns };

	if (tid && !pr->consumer)
		pr->stall[0] = pr->stall[1] = pr->stall[2] = 0;
	if (tid && (tid == pr->consumer || !pr->consumer)) {
		p->n[TL_STALL_DATA_NS] = delta(now[0], pr->stall[0]);
		p->n[TL_STALL_WALL_NS] = delta(now[1], pr->stall[1]);
		p->n[TL_STALL_WRITE_NS] = delta(now[2], pr->stall[2]);
	}
	pr->consumer = tid;
	memcpy(pr->stall, now, sizeof(now));
}

int timeline__take(struct timeline *tl, const struct trace *t, __u64 now_ns)
{
	struct tl_point p;
	int err;

	memset(&p, 0, sizeof(p));
	p.t_ns = tl->last_ns - tl->start_ns;
	p.dur_ns = delta(now_ns, tl->last_ns);
	p.intervals = 1;
	take_counts(&p, tl->prev, t);
	take_stall(&p, tl->prev, &t->stall);
	err = take_busy(&p, tl->prev, &t->block);
	if (!err)
		err = take_threads(&p, tl->prev, &t->store);
	if (err)
		return err;
	tl->last_ns = now_ns > tl->last_ns ? now_ns : tl->last_ns;
	return timeline__add(tl, &p);
}
