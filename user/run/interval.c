// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Interval lines (-i), see interval.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "collect/drain.h"
#include "model/hist.h"
#include "run/interval.h"
#include "model/trace.h"

#define MIB	(1024.0 * 1024.0)

/*
 * The kernel's counters first, then the store, which a drain brings up to
 * the map swap, a few ms later: so both count nearly the same events.
 */
static int snap_take(struct interval_snap *s, struct drain *d, struct iostorm_bpf *skel,
		     struct trace *t, __u64 now_ns)
{
	int err;

	s->ns = now_ns;
	err = drain__live(d, skel, s->counters, &s->read_lat);
	if (!err)
		err = drain__block(d, skel, &s->block, 0, now_ns);
	if (!err)
		err = drain__files(d, t);
	s->reg_opens = t->store.reg_opens;
	return err;
}

int interval__start(struct interval *iv, FILE *out, double period,
		    struct drain *d, struct iostorm_bpf *skel, struct trace *t,
		    __u64 now_ns)
{
	memset(iv, 0, sizeof(*iv));
	iv->out = out;
	iv->period = period;
	if (period <= 0)
		return 0;
	iv->snap[0] = calloc(1, sizeof(*iv->snap[0]));
	iv->snap[1] = calloc(1, sizeof(*iv->snap[1]));
	if (!iv->snap[0] || !iv->snap[1])
		return -ENOMEM;
	iv->next_ns = now_ns + (__u64)(period * 1e9);
	return snap_take(iv->snap[0], d, skel, t, now_ns);
}

bool interval__due(const struct interval *iv, __u64 now_ns)
{
	return iv->period > 0 && now_ns >= iv->next_ns;
}

void interval__free(struct interval *iv)
{
	for (int i = 0; i < 2; i++) {
		if (!iv->snap[i])
			continue;
		block__free(&iv->snap[i]->block);
		free(iv->snap[i]);
		iv->snap[i] = NULL;
	}
}

void interval__header(FILE *out)
{
	fprintf(out, "%-8s %8s %8s %8s %8s %8s %8s %8s %8s %6s\n", "time", "files/s",
		"opens/s", "reads/s", "MiB/s", "rd_p50", "rd_p99", "dev_r/s",
		"r_await", "%util");
}

/* The target's busy time on its busiest device between a and b, ns. */
static __u64 busiest_delta(const struct block *a, const struct block *b)
{
	__u64 best = 0;

	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i], *p = block__find(a, d->dev);
		__u64 was = p ? p->busy_ns[SCOPE_TARGET] : 0, now = d->busy_ns[SCOPE_TARGET];

		if (now > was && now - was > best)
			best = now - was;
	}
	return best;
}

static double rate(__u64 a, __u64 b, double secs)
{
	return b > a && secs > 0 ? (b - a) / secs : 0;
}

void interval__line(FILE *out, const struct interval_snap *a,
		    const struct interval_snap *b, const char *clock)
{
	double secs = b->ns > a->ns ? (b->ns - a->ns) / 1e9 : 0, util = 0, await = 0;
	const __u64 *ca = a->counters, *cb = b->counters;
	struct blk_stats ra, rb;
	struct hist lat = b->read_lat;

	for (int i = 0; i < HIST_SLOTS; i++)
		lat.slots[i] = lat.slots[i] > a->read_lat.slots[i] ?
			       lat.slots[i] - a->read_lat.slots[i] : 0;
	block__sum(&a->block, BLK_READ, WHO_BIT(WHO_TARGET), &ra);
	block__sum(&b->block, BLK_READ, WHO_BIT(WHO_TARGET), &rb);
	if (rb.reqs > ra.reqs)
		await = (rb.total_ns - ra.total_ns) / 1e6 / (rb.reqs - ra.reqs);
	if (secs > 0)
		util = busiest_delta(&a->block, &b->block) / 1e9 / secs * 100;
	fprintf(out, "%-8s %8.1f %8.1f %8.1f %8.2f %8.3f %8.3f %8.1f %8.3f %6.1f\n",
		clock, rate(a->reg_opens, b->reg_opens, secs),
		rate(ca[C_OPENS], cb[C_OPENS], secs), rate(ca[C_READS], cb[C_READS], secs),
		rate(ca[C_READ_BYTES], cb[C_READ_BYTES], secs) / MIB,
		hist__quantile(&lat, 0.5) / 1e6, hist__quantile(&lat, 0.99) / 1e6,
		rate(ra.reqs, rb.reqs, secs), await, util > 100 ? 100 : util);
}

int interval__tick(struct interval *iv, struct drain *d, struct iostorm_bpf *skel,
		   struct trace *t, __u64 now_ns)
{
	struct interval_snap *prev = iv->snap[iv->cur], *cur = iv->snap[!iv->cur];
	char clock[16];
	time_t wall = time(NULL);
	struct tm tm;
	int err;

	err = snap_take(cur, d, skel, t, now_ns);
	if (err)
		return err;
	iv->cur = !iv->cur;
	while (iv->next_ns <= now_ns)	/* a late tick skips, never bunches */
		iv->next_ns += (__u64)(iv->period * 1e9);
	strftime(clock, sizeof(clock), "%H:%M:%S", localtime_r(&wall, &tm));
	if (iv->rows++ % INTERVAL_HEADER_EVERY == 0)
		interval__header(iv->out);
	interval__line(iv->out, prev, cur, clock);
	fflush(iv->out);
	return 0;
}
