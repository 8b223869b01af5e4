// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The run and its phases judged (findings.h's findings__judge()): the
 * evidence from every layer (evidence.c) judged by the rules (judge.c),
 * then the run split where it changes (model/phases.h), each phase judged
 * by the same rules as the whole run, on the evidence of its own points. What the timeline keeps per point is the phase's own: the
 * rates, read latency, the page cache's share, the device's load and
 * reads, the loader threads' time and the loop's stall. The rest (file
 * sizes and order, metadata, FUSE, mapped data) is the whole run's.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#include "findings/rules.h"
#include "model/phases.h"
#include "model/trace.h"

static double per_s(__u64 n, double s)
{
	return s > 0 ? n / s : 0;
}

/*
 * The layer verdict of a phase, by layers__judge() on the sums its points
 * have: reads, block reads, their bytes and time, pages taken into the
 * cache. Not in the points, and taken from the whole run: FUSE (a run
 * served by FUSE is so in every phase) and the split of block time into
 * queue and device (a slow phase is called a slow device).
 */
static void phase_layer(struct evidence *e, const struct tl_point *p, const double *th)
{
	struct layer_sums s = {
		.reads = p->n[TL_READS], .read_bytes = p->n[TL_READ_BYTES],
		.read_ns = p->n[TL_READ_NS], .blk_reqs = p->n[TL_BLK_READS],
		.blk_ns = p->n[TL_BLK_READ_NS], .cache_bytes = e->cache_bytes,
		.blk_bytes = p->n[TL_BLK_READ_BYTES],
	};

	if (e->layer == LAYER_FUSE || e->layer == LAYER_NFS || e->layer == LAYER_NONE)
		return;
	s.device_ns = s.blk_ns;
	e->layer = layers__judge(&s, th);
	e->miss_share = layers__storage_share(&s);
}

/*
 * The loop's write wait in the phase, its split the whole run's scaled;
 * the saves the run's, in the share of the bytes the phase wrote.
 */
static void phase_writes(struct evidence *e, const struct tl_point *p)
{
	double whole = e->write_share, part = e->write_bytes ?
		(double)p->n[TL_WRITE_BYTES] / e->write_bytes : 0;
	__u64 wall = p->n[TL_STALL_WALL_NS];

	e->saves = llround(e->saves * part);
	e->save_files = llround(e->save_files * part);
	e->save_bytes = llround(e->save_bytes * part);
	e->save_s *= part;
	e->writes = p->n[TL_WRITES];
	e->write_bytes = p->n[TL_WRITE_BYTES];
	e->have_write_wait = e->have_write_wait && wall;
	if (!e->have_write_wait)
		return;
	e->write_share = (double)p->n[TL_STALL_WRITE_NS] / wall;
	if (whole > 0) {
		e->write_own_share *= e->write_share / whole;
		e->write_writer_share *= e->write_share / whole;
	}
	e->write_data_share = (double)p->n[TL_STALL_DATA_NS] / wall;
	e->write_wall_s = wall / 1e9;
}

/* The whole run's evidence e made the phase's, from its summed point p. */
static void phase_evidence(struct evidence *e, const struct tl_point *p, __u32 page_size,
			   const double *th)
{
	double dur = p->dur_ns / 1e9, whole_stall = e->stall_share;
	double opened = e->opens ? (double)p->n[TL_OPENS] / e->opens : 0;
	__u64 wall = p->n[TL_STALL_WALL_NS], blk = p->n[TL_BLK_READS];
	__u64 thr = p->n[TL_CPU_NS] + p->n[TL_IO_WAIT_NS] + p->n[TL_RUNQ_NS] + p->n[TL_SLEEP_NS];

	e->duration_s = dur;
	/* Metadata calls but opens are not in the points: the phase's share by its opens. */
	e->stats = e->stats * opened;
	e->getdents = e->getdents * opened;
	e->meta_s *= opened;
	/*
	 * Which distinct files a phase read is not kept (a file read in
	 * several epochs): its files are the run's, as their sizes and order
	 * are, and its rate is its opens of regular files.
	 */
	e->phase_file_opens = p->n[TL_FILES];
	e->opens = p->n[TL_OPENS];
	e->reads = p->n[TL_READS];
	e->read_bytes = p->n[TL_READ_BYTES];
	e->files_per_s = per_s(e->phase_file_opens, dur);
	e->opens_per_s = per_s(e->opens, dur);
	e->reads_per_s = per_s(e->reads, dur);
	e->read_bytes_per_s = per_s(e->read_bytes, dur);
	e->read_s = p->n[TL_READ_NS] / 1e9;
	e->read_mean_us = e->reads ? p->n[TL_READ_NS] / 1e3 / e->reads : 0;
	e->read_p50_us = tl_point__quantile(p, 0.5) / 1e3;
	e->read_p99_us = tl_point__quantile(p, 0.99) / 1e3;
	e->read_concurrency = dur > 0 ? e->read_s / dur : 0;
	e->cache_bytes = p->n[TL_CACHE_PAGES] * page_size;
	e->miss_share = evidence__ratio(e->cache_bytes, e->read_bytes);
	if (thr) {
		e->cpu_share = e->ld_cpu_share = (double)p->n[TL_CPU_NS] / thr;
		e->io_wait_share = e->ld_io_share = (double)p->n[TL_IO_WAIT_NS] / thr;
		e->runq_share = e->ld_runq_share = (double)p->n[TL_RUNQ_NS] / thr;
		e->sleep_share = e->ld_sleep_share = (double)p->n[TL_SLEEP_NS] / thr;
		e->ld_runnable = dur > 0 ?
			(p->n[TL_CPU_NS] + p->n[TL_RUNQ_NS]) / 1e9 / dur : 0;
	}
	e->have_stall = e->have_stall && wall;
	if (e->have_stall) {
		e->stall_share = (double)p->n[TL_STALL_DATA_NS] / wall;
		/* The split of the wait is the whole run's, scaled to the phase's. */
		if (whole_stall > 0) {
			e->stall_own_io_share *= e->stall_share / whole_stall;
			e->stall_loader_share *= e->stall_share / whole_stall;
		}
		e->stall_wall_s = wall / 1e9;
		e->stall_least_share = fmin(e->stall_least_share, e->stall_share);
	}
	phase_writes(e, p);
	if (e->have_block) {
		e->blk_reads = blk;
		e->blk_reads_per_s = per_s(blk, dur);
		e->blk_await_ms = blk ? p->n[TL_BLK_READ_NS] / 1e6 / blk : 0;
		e->blk_mean_bytes = blk ? (double)p->n[TL_BLK_READ_BYTES] / blk : 0;
		e->blk_inflight_mean = dur > 0 ? p->n[TL_BLK_READ_NS] / 1e9 / dur : 0;
		e->blk_util = dur > 0 ? fmin(1, p->n[TL_BUSY_NS] / 1e9 / dur) : 0;
	}
	phase_layer(e, p, th);
}

/* The phase's figures, from its evidence. */
static void phase_figures(struct phase *ph, const struct evidence *e)
{
	ph->stall_share = e->have_stall ? e->stall_share : -1;
	ph->write_share = !e->have_stall ? -1 : e->have_write_wait ? e->write_share : 0;
	ph->miss_share = e->miss_share;
	ph->util = e->have_block ? e->blk_util : -1;
	ph->reads_per_s = e->reads_per_s;
	ph->files_per_s = e->files_per_s;
	ph->read_p50_us = e->read_p50_us;
}

/* Keep the headline and the most severe findings of all[n]. */
static void phase_keep(struct phase *ph, const struct finding *all, int n, const char *headline)
{
	snprintf(ph->headline, sizeof(ph->headline), "%s", headline);
	for (int i = 0; i < n && ph->nr_top < PHASE_TOP; i++) {
		struct phase_finding *f = &ph->top[ph->nr_top];

		if (all[i].severity < SEV_INFO)
			continue;
		f->id = all[i].id;
		f->severity = all[i].severity;
		snprintf(f->summary, sizeof(f->summary), "%s", all[i].summary);
		ph->nr_top++;
	}
}

/* Judge phase ph from its point. */
static int judge_phase(struct phase *ph, const struct evidence *whole, const struct tl_point *p,
		       __u32 page_size, const struct thresholds *th)
{
	struct finding all[FINDINGS_MAX];
	struct evidence e = *whole;
	char headline[sizeof(ph->headline)];
	int n;

	phase_evidence(&e, p, page_size, th->v);
	phase_figures(ph, &e);
	n = judge__rules(&e, th, all, FINDINGS_MAX);
	if (n < 0)
		return n;
	judge__headline(all, n, headline, sizeof(headline));
	phase_keep(ph, all, n, headline);
	return 0;
}

/*
 * Split t's timeline into phases and judge each: d->phases. After d's own
 * findings are judged.
 */
static int judge_phases(struct findings *d, const struct trace *t, const struct thresholds *th)
{
	const struct timeline *tl = &t->timeline;
	struct phase_span spans[PHASES_MAX];
	int n = phases__split(tl->points, tl->nr, t->page_size ? t->page_size : 4096, spans);

	_Static_assert(PHASES_MAX <= PHASE_ROOM, "raise PHASE_ROOM");
	d->nr_phases = 0;
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct phase *ph = &d->phases[d->nr_phases];
		struct tl_point sum;
		int err;

		memset(ph, 0, sizeof(*ph));
		phases__sum(tl->points, &spans[i], &sum);
		ph->start_s = tl->points[spans[i].first].t_ns / 1e9;
		ph->end_s = ph->start_s + sum.dur_ns / 1e9;
		ph->start_ns = tl->start_ns + tl->points[spans[i].first].t_ns;
		ph->unsplit = spans[i].unsplit;
		if (n == 1) {	/* a steady run: the phase is the whole run */
			phase_figures(ph, &d->e);
			ph->files_per_s = per_s(sum.n[TL_FILES], sum.dur_ns / 1e9);
			phase_keep(ph, d->findings, d->nr_findings, d->headline);
		} else {
			err = judge_phase(ph, &d->e, &sum, t->page_size ? t->page_size : 4096, th);
			if (err)
				return err;
		}
		d->nr_phases++;
	}
	return 0;
}

int findings__judge(struct findings *d, const struct trace *t, const struct facts *fa,
		    const struct thresholds *th)
{
	int err;

	memset(d, 0, sizeof(*d));
	err = evidence__from_trace(&d->e, t, fa);
	if (err)
		return err;
	evidence__add_block(&d->e, t, fa);
	evidence__add_fuse(&d->e, t, fa);
	evidence__add_nfs(&d->e, t, fa);
	evidence__add_layer(&d->e, t, fa, th);
	evidence__add_kernel(&d->e, t);
	evidence__add_saves(&d->e, t, th);
	d->nr_findings = judge__rules(&d->e, th, d->findings, FINDINGS_MAX);
	if (d->nr_findings < 0)
		return d->nr_findings;
	judge__headline(d->findings, d->nr_findings, d->headline, sizeof(d->headline));
	err = judge_phases(d, t, th);
	if (err)
		return err;
	if (d->nr_phases > 1) {	/* the whole run averages them: say so where it is read */
		size_t len = strlen(d->headline);

		snprintf(d->headline + len, sizeof(d->headline) - len,
			 " [the run changed: %d phases, judged apart]", d->nr_phases);
	}
	d->done = true;
	return 0;
}
