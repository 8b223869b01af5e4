// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where a run changes behaviour, see phases.h. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "model/phases.h"

/* The signals of a run of points, from their sums; NAN where not measured. */
struct signals {
	double stall;
	double miss;
	double util;
	double rate;
};

static void signals_of(const struct tl_point *sum, __u32 page_size, struct signals *s)
{
	double dur = sum->dur_ns / 1e9;
	__u64 wall = sum->n[TL_STALL_WALL_NS], bytes = sum->n[TL_READ_BYTES];

	s->stall = wall ? (double)sum->n[TL_STALL_DATA_NS] / wall : NAN;
	s->miss = bytes >= PHASE_MISS_MIN_BYTES ?
		fmin(1, (double)sum->n[TL_CACHE_PAGES] * page_size / bytes) : NAN;
	s->util = dur > 0 ? fmin(1, sum->n[TL_BUSY_NS] / 1e9 / dur) : NAN;
	s->rate = dur > 0 ? sum->n[TL_READS] / dur : NAN;
}

#define NSIG	4

static void as_array(const struct signals *s, double v[NSIG])
{
	v[0] = s->stall;
	v[1] = s->miss;
	v[2] = s->util;
	v[3] = s->rate;
}

/* How far apart one signal is on two sides, in steps: >= 1 splits. */
static double sig_apart(int k, double a, double b)
{
	static const double step[NSIG - 1] = {
		PHASE_STALL_STEP, PHASE_MISS_STEP, PHASE_UTIL_STEP,
	};

	if (isnan(a) || isnan(b))
		return 0;
	if (k < NSIG - 1)
		return fabs(a - b) / step[k];
	if (fmin(a, b) < PHASE_RATE_MIN)
		return 0;
	return log(fmax(a, b) / fmin(a, b)) / log(PHASE_RATE_STEP);
}

/* How far apart two sides are, in steps of the most changed signal. */
static double apart(const struct signals *a, const struct signals *b)
{
	double va[NSIG], vb[NSIG], d = 0;

	as_array(a, va);
	as_array(b, vb);
	for (int k = 0; k < NSIG; k++)
		d = fmax(d, sig_apart(k, va[k], vb[k]));
	return d;
}

/*
 * Do most points of [first, end) side with their own side? For one
 * signal: of the points that measured it, PHASE_AGREE at least are nearer
 * their side's value than the other side's. A lone outlier at the edge of
 * a run (the last, partial interval) moves a mean, not the points.
 */
#define PHASE_AGREE	(2.0 / 3)

static bool side_agrees(const struct signals *pts, size_t first, size_t end, int k,
			double own, double other)
{
	size_t n = 0, near = 0;

	for (size_t i = first; i < end; i++) {
		double v[NSIG];

		as_array(&pts[i], v);
		if (isnan(v[k]))
			continue;
		n++;
		if (k == NSIG - 1)	/* rates: by ratio */
			near += fabs(log((v[k] + 1) / (own + 1))) <
				fabs(log((v[k] + 1) / (other + 1)));
		else
			near += fabs(v[k] - own) < fabs(v[k] - other);
	}
	return n && near >= PHASE_AGREE * n;
}

/*
 * A signal that parts the sides by a step, and whose points agree on
 * both sides next to the boundary (PHASE_WINDOW points each way): a step
 * there, not a mean moved by points far from it (a run that alternates
 * keeps each side's mean in between; its boundaries are still steps).
 */
static bool split_holds(const struct signals *pts, size_t first, size_t at, size_t end,
			const struct signals *a, const struct signals *b)
{
	size_t lo = at - first > PHASE_WINDOW ? at - PHASE_WINDOW : first;
	size_t hi = end - at > PHASE_WINDOW ? at + PHASE_WINDOW : end;
	double va[NSIG], vb[NSIG];

	as_array(a, va);
	as_array(b, vb);
	for (int k = 0; k < NSIG; k++)
		if (sig_apart(k, va[k], vb[k]) >= 1 &&
		    side_agrees(pts, lo, at, k, va[k], vb[k]) &&
		    side_agrees(pts, at, hi, k, vb[k], va[k]))
			return true;
	return false;
}

void phases__sum(const struct tl_point *p, const struct phase_span *s, struct tl_point *sum)
{
	memset(sum, 0, sizeof(*sum));
	if (s->first >= s->end)
		return;
	*sum = p[s->first];
	for (size_t i = s->first + 1; i < s->end; i++)
		tl_point__merge(sum, &p[i]);
}

/*
 * The best split of span s: its point in *at and its weighted score, or 0
 * when no boundary parts the sides by a step. The sides are summed as the
 * boundary moves (the latency slots are not needed: counts alone).
 */
static double best_split(const struct tl_point *p, const struct signals *pts,
			 const struct phase_span *s, __u32 page_size, size_t *at)
{
	struct tl_point left = { 0 }, right = { 0 }, total = { 0 };
	double best = 0;
	size_t n = s->end - s->first;

	if (n < 2 * PHASE_MIN_POINTS)
		return 0;
	for (size_t i = s->first; i < s->end; i++) {
		total.dur_ns += p[i].dur_ns;
		for (int k = 0; k < TL__MAX; k++)
			total.n[k] += p[i].n[k];
	}
	for (size_t i = s->first; i + PHASE_MIN_POINTS < s->end; i++) {
		size_t nl = i + 1 - s->first, nr = n - nl;
		struct signals a, b;
		double d, w;

		left.dur_ns += p[i].dur_ns;
		for (int k = 0; k < TL__MAX; k++)
			left.n[k] += p[i].n[k];
		if (nl < PHASE_MIN_POINTS || nr < PHASE_MIN_POINTS)
			continue;
		right.dur_ns = total.dur_ns - left.dur_ns;
		for (int k = 0; k < TL__MAX; k++)
			right.n[k] = total.n[k] - left.n[k];
		signals_of(&left, page_size, &a);
		signals_of(&right, page_size, &b);
		d = apart(&a, &b);
		w = d * sqrt((double)nl * nr / n);
		/* The points are checked only for a boundary that would be the best. */
		if (d < 1 || w <= best || !split_holds(pts, s->first, i + 1, s->end, &a, &b))
			continue;
		best = w;
		*at = i + 1;
	}
	return best;
}

int phases__split(const struct tl_point *p, size_t n, __u32 page_size,
		  struct phase_span out[PHASES_MAX])
{
	double score[PHASES_MAX];	/* each span's best split, 0: none */
	size_t cut[PHASES_MAX];
	struct signals *pts;
	int nr = 1;

	if (!n)
		return 0;
	pts = malloc(n * sizeof(*pts));
	if (!pts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		signals_of(&p[i], page_size, &pts[i]);
	out[0] = (struct phase_span){ 0, n, false };
	score[0] = best_split(p, pts, &out[0], page_size, &cut[0]);
	while (nr < PHASES_MAX) {
		int which = -1;

		for (int i = 0; i < nr; i++)
			if (score[i] > 0 && (which < 0 || score[i] > score[which]))
				which = i;
		if (which < 0)
			break;
		/* Split it in two; only the two new spans need their best split. */
		memmove(&out[which + 2], &out[which + 1], (nr - which - 1) * sizeof(out[0]));
		memmove(&score[which + 2], &score[which + 1], (nr - which - 1) * sizeof(score[0]));
		memmove(&cut[which + 2], &cut[which + 1], (nr - which - 1) * sizeof(cut[0]));
		out[which + 1] = (struct phase_span){ cut[which], out[which].end, false };
		out[which].end = cut[which];
		nr++;
		for (int i = which; i <= which + 1; i++)
			score[i] = best_split(p, pts, &out[i], page_size, &cut[i]);
	}
	for (int i = 0; i < nr; i++)
		out[i].unsplit = score[i] > 0;
	free(pts);
	return nr;
}
