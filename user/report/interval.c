// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Interval lines (-i): one iostat-like line from two snapshots, see report.h. */
#include <stdio.h>
#include "report/report_int.h"

#define MIB	(1024.0 * 1024.0)

void report__interval_header(FILE *out)
{
	fprintf(out, "%-8s %8s %8s %8s %8s %8s %8s %8s %8s %6s %6s\n", "time", "files/s",
		"opens/s", "reads/s", "MiB/s", "rd_p50", "rd_p99", "dev_r/s",
		"r_await", "%util", "%stall");
}

/* The target's busy time on its busiest device between a and b, ns. */
static __u64 busiest_delta(const struct block *a, const struct block *b)
{
	__u64 best = 0;

	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i], *p = block__find(a, d->dev);
		__u64 was = p ? p->busy_ns[BLK_SCOPE_TARGET] : 0, now = d->busy_ns[BLK_SCOPE_TARGET];

		if (now > was && now - was > best)
			best = now - was;
	}
	return best;
}

static double rate(__u64 a, __u64 b, double secs)
{
	return b > a && secs > 0 ? (b - a) / secs : 0;
}

/* The training loop's wait over the interval, "-" when not measured in both. */
static const char *stall_pct(const struct trace_snap *a, const struct trace_snap *b,
			     char *buf, size_t len)
{
	__u64 wall = b->consumer_wall_ns - a->consumer_wall_ns;

	if (!a->consumer_tid || a->consumer_tid != b->consumer_tid ||
	    b->consumer_wall_ns <= a->consumer_wall_ns)
		return "-";
	snprintf(buf, len, "%.1f", 100.0 * (b->consumer_data_ns - a->consumer_data_ns) / wall);
	return buf;
}

void report__interval_line(FILE *out, const struct trace_snap *a,
			   const struct trace_snap *b, const char *clock)
{
	double secs = b->ns > a->ns ? (b->ns - a->ns) / 1e9 : 0, util = 0, await = 0;
	char stall[16];
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
	fprintf(out, "%-8s %8.1f %8.1f %8.1f %8.2f %8.3f %8.3f %8.1f %8.3f %6.1f %6s\n",
		clock, rate(a->reg_opens, b->reg_opens, secs),
		rate(ca[C_OPENS], cb[C_OPENS], secs), rate(ca[C_READS], cb[C_READS], secs),
		rate(ca[C_READ_BYTES], cb[C_READ_BYTES], secs) / MIB,
		hist__quantile(&lat, 0.5) / 1e6, hist__quantile(&lat, 0.99) / 1e6,
		rate(ra.reqs, rb.reqs, secs), await, util > 100 ? 100 : util,
		stall_pct(a, b, stall, sizeof(stall)));
}
